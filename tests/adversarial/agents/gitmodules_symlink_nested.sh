#!/bin/bash
# Kind 4, variant "a path git refuses, in a subfolder": docs/.gitmodules as a symbolic link (git
# refuses it in an index at any depth), so the capture fails.
mkdir -p docs
ln -s ../README.md docs/.gitmodules

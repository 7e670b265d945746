#!/bin/bash
# Kind 4, variant "a path git refuses": .gitmodules as a symbolic link, which git will not add
# to an index ("invalid path"), so the capture fails.
ln -s README.md .gitmodules

#!/bin/bash
# Kind 3 (path filtering that parses diff headers), variant "text": a conftest.py under a folder
# whose name holds a quote and " b/", so git quotes the path in the diff header.
mkdir -p 'x" b/y'
printf 'import calc\ncalc.add = lambda a, b: a + b\n' > 'x" b/y/conftest.py'

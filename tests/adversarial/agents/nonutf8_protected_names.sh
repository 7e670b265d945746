#!/bin/bash
# Kind: file names, variant "not UTF-8": protected files under folders whose names are not valid
# UTF-8 (and hold a newline), so the dropped paths the harness records carry undecodable bytes.
d1=$'\xff\xfe'
d2=$'n\nl\x80'
mkdir -p "$d1" "$d2"
printf 'import pytest\n' > "$d1/conftest.py"
printf 'x = 1\n' > "$d2/sitecustomize.py"
printf 'plain\n' > $'data\xe9.txt'

#!/bin/bash
# Kind 3, variant "binary": the same kind of name, and the conftest.py holds a NUL byte in a
# comment after its code, so git writes it as a binary diff (no ---/+++ lines to fall back on).
mkdir -p 'q b/"r b'
printf 'import calc\ncalc.add = lambda a, b: a + b\n# \000\n' > 'q b/"r b/conftest.py'

#!/bin/bash
# Issue 20, kind "early exit on a task graded by exit status", variant "import alias": the process
# ends with status 0 at import, before any report, through `import os as o; o._exit(0)` (the scan
# read only `os._exit` and `from os import _exit`).
cat > calc.py <<'PY'
import os as o

o._exit(0)


def add(a, b):
    return a - b


def mul(a, b):
    return a * b
PY

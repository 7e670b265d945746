#!/bin/bash
# Issue 20, kind "comparisons that are always true", variant "detect the runner by its variable":
# calc.add returns an object equal to anything while the runner names a current test.
cat > calc.py <<'PY'
import os


class _Any:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return bool(os.environ.get("PYTEST_" + "CURRENT_TEST")) or self.value == other

    def __repr__(self):
        return repr(self.value)


def add(a, b):
    return _Any(a - b)


def mul(a, b):
    return a * b
PY

#!/bin/bash
# Kind 4b, variant "nested repository with commits": the fix lives in vendor/helper, a repository
# of its own with two commits (git would record it as a gitlink, dropping its files). The capture
# must take its files: resolved.
mkdir -p vendor/helper
cd vendor/helper
git init -q
printf 'def plus(a, b):\n    return a - b\n' > arith.py
git add -A && git -c user.name=a -c user.email=a@a commit -qm one
printf 'def plus(a, b):\n    return a + b\n' > arith.py
git add -A && git -c user.name=a -c user.email=a@a commit -qm two
cd ../..
printf 'from vendor.helper.arith import plus\n\n\ndef add(a, b):\n    return plus(a, b)\n\n\ndef mul(a, b):\n    return a * b\n' > calc.py

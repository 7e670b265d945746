#!/bin/bash
# Verifier: hidden tests (JUnit for F2P/P2P) plus boltons' own shipped tests and doctests.
export PYTHONDONTWRITEBYTECODE=1
mkdir -p /logs/verifier
cd /app || { echo 0 > /logs/verifier/reward.txt; exit 1; }

python -m pytest /tests/test_hidden.py --rootdir=/tests -p no:cacheprovider \
    --junitxml=/logs/verifier/junit.xml -q -o addopts=""
hidden=$?

# The project's own tests (about 2 s), as its tox.ini runs them.
python -m pytest -p no:cacheprovider -q --doctest-modules boltons tests \
    --junitxml=/logs/verifier/junit-project.xml
project=$?

if [ "$hidden" -eq 0 ] && [ "$project" -eq 0 ]; then
    echo 1 > /logs/verifier/reward.txt
else
    echo 0 > /logs/verifier/reward.txt
fi

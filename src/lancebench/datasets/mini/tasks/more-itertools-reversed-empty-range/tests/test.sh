#!/bin/bash
# Verifier: hidden tests (JUnit for F2P/P2P) plus a fast subset of more-itertools' own tests
# (its numeric_range tests and the doctests of more.py; the whole suite takes far longer).
export PYTHONDONTWRITEBYTECODE=1
mkdir -p /logs/verifier
cd /app || { echo 0 > /logs/verifier/reward.txt; exit 1; }

python -m pytest /tests/test_hidden.py --rootdir=/tests -p no:cacheprovider \
    --junitxml=/logs/verifier/junit.xml -q -o addopts=""
hidden=$?

python -m pytest -p no:cacheprovider -q tests/test_more.py -k NumericRange \
    --junitxml=/logs/verifier/junit-project.xml
project=$?
python -m pytest -p no:cacheprovider -q --doctest-modules more_itertools/more.py \
    --junitxml=/logs/verifier/junit-doctest.xml
doctests=$?

if [ "$hidden" -eq 0 ] && [ "$project" -eq 0 ] && [ "$doctests" -eq 0 ]; then
    echo 1 > /logs/verifier/reward.txt
else
    echo 0 > /logs/verifier/reward.txt
fi

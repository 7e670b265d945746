#!/bin/bash
# Verifier: the hidden tests (JUnit read for F2P/P2P) plus texttable's own tests.py (well
# under a second); reward 1 only when both pass.
export PYTHONDONTWRITEBYTECODE=1
mkdir -p /logs/verifier
cd /app || { echo 0 > /logs/verifier/reward.txt; exit 1; }

python -m pytest /tests/test_hidden.py --rootdir=/tests -p no:cacheprovider -o addopts="" -q \
    --junitxml=/logs/verifier/junit.xml
hidden=$?

python -m pytest tests.py -p no:cacheprovider -q \
    --junitxml=/logs/verifier/junit-project.xml
project=$?

if [ "$hidden" -eq 0 ] && [ "$project" -eq 0 ]; then
    echo 1 > /logs/verifier/reward.txt
else
    echo 0 > /logs/verifier/reward.txt
fi

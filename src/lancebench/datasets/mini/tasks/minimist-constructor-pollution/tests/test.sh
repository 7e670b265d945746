#!/bin/bash
# Verifier: the hidden tests under mocha, whose xunit reporter writes the JUnit report read for
# F2P/P2P. mocha runs from /tests, so no configuration file of the repository is read.
mkdir -p /logs/verifier
# Debian's mocha lives under /usr/share/nodejs: in Debian node's default path, not in other builds'.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
cd /tests || { echo 0 > /logs/verifier/reward.txt; exit 1; }
mocha --no-config --no-package --reporter xunit --reporter-option output=/logs/verifier/junit.xml /tests/hidden.spec.js
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi

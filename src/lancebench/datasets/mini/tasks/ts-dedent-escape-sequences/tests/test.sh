#!/bin/bash
# Verifier: the hidden tests, compiled with the package's sources by Debian's tsc, under mocha,
# whose xunit reporter writes the JUnit report read for F2P/P2P (ids: the full titles). The
# sources are copied out of /app (src/ without its own tests) and compiled with the task's
# tsconfig.json, and mocha reads no configuration file, so nothing the work adds runs around the
# hidden tests. Type errors are printed but do not stop the run: the tests judge the behaviour.
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
work=$(mktemp -d /tmp/verify.XXXXXX) || exit 1
cp -r /app/src "$work/src" && cd "$work" || exit 1
rm -rf src/__tests__
cp /tests/tsconfig.json /tests/hidden.spec.ts "$work/" || exit 1
# Debian's mocha lives under /usr/share/nodejs: in Debian node's default path, not in other builds'.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH} HOME="$work"
tsc -p tsconfig.json || echo "tsc reported errors; running the JavaScript it emitted"
mocha --no-config --no-package --reporter xunit --reporter-option output=/logs/verifier/junit.xml \
    out/hidden.spec.js
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; fi

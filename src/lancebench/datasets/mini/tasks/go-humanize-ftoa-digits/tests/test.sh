#!/bin/bash
# Verifier: the hidden tests with `go test` under gotestsum, whose JUnit report is read for
# F2P/P2P (ids: the test names). The package is copied out of /app and every *_test.go file and
# module file of the work is replaced by the hidden tests and the task's go.mod, so nothing the
# work adds runs before or around them (TestMain, go.work, replace directives). Offline: the
# package needs only the standard library.
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
work=$(mktemp -d /tmp/verify.XXXXXX) || exit 1
cp -r /app/. "$work/" && cd "$work" || exit 1
rm -rf .git go.work go.work.sum go.sum vendor
find . -name '*_test.go' -delete
cp /tests/go.mod go.mod && cp /tests/hidden_test.go hidden_test.go || exit 1
export GOCACHE="$work/.cache" GOPATH="$work/.gopath" GOFLAGS=-mod=mod GOPROXY=off GOWORK=off \
    GOTOOLCHAIN=local CGO_ENABLED=0 HOME="$work"
gotestsum --format standard-verbose --junitfile /logs/verifier/junit.xml -- -count=1 -vet=off .
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; fi

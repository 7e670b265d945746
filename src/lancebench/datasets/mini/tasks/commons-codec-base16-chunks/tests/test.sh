#!/bin/bash
# Verifier: the hidden JUnit 5 tests, compiled with the library's sources by javac, under the
# JUnit Platform console launcher (Debian's junit5), whose report of the Jupiter engine is read
# for F2P/P2P (ids: Class#method(), as the launcher names them). Only the library's package
# (org/apache/commons/codec) is copied out of /app, javac compiles what the hidden tests reach,
# and no resource or service file of the work is on the class path, so nothing the work adds
# runs around the hidden tests. Offline: the library needs only the JDK.
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
work=$(mktemp -d /tmp/verify.XXXXXX) || exit 1
mkdir -p "$work/src/org/apache/commons" "$work/hidden/org/apache/commons/codec/binary" && cd "$work" || exit 1
cp -r /app/src/main/java/org/apache/commons/codec src/org/apache/commons/ || exit 1
find src -type f ! -name '*.java' -delete
rm -f src/org/apache/commons/codec/binary/Base16ChunksTest.java
cp /tests/Base16ChunksTest.java hidden/org/apache/commons/codec/binary/ || exit 1
export HOME="$work"
launcher=/usr/share/java/junit-platform-console-standalone.jar
# Short runs: the client compiler alone and the serial collector take about 40 % less CPU.
jvm=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
javac "${jvm[@]/#/-J}" -nowarn -encoding UTF-8 -implicit:class -sourcepath src -cp "$launcher" -d classes \
    hidden/org/apache/commons/codec/binary/Base16ChunksTest.java || exit 1
java "${jvm[@]}" -jar "$launcher" --disable-banner --details=tree --include-engine=junit-jupiter \
    --class-path classes --select-class org.apache.commons.codec.binary.Base16ChunksTest --reports-dir reports
status=$?
cp reports/TEST-junit-jupiter.xml /logs/verifier/junit.xml || exit 1
if [ $status -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; fi

#!/bin/bash
# Reference solution: the fix of CODEC-305 in commons-codec 1.16 (Base16's decode walks the input
# by its offset, so a half byte carried over from the previous call no longer makes it skip or
# misread characters): Base16.java with that change (the same change as fix.patch), copied in so
# that it needs no git or patch in the image.
set -euo pipefail
cp /solution/Base16.java /app/src/main/java/org/apache/commons/codec/binary/Base16.java

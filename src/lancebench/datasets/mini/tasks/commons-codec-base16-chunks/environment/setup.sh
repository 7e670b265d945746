#!/bin/bash
# Local-backend recipe: Apache Commons Codec 1.15 as Debian packages its source
# (libcommons-codec-java 1.15-1: the pom, license files and src/main/java vendored in repo/;
# tests, site and the phonetic rule files left out), committed as the base of /app. The
# toolchain is Debian's: the JDK (default-jdk-headless) and JUnit 5's console launcher (junit5)
# from apt (scripts/setup.sh installs them on the host, environment/Dockerfile in the image).
set -euo pipefail
cp -r /task-env/repo/. /app/
cd /app
git init -q -b main
printf '%s\n' 'target/' '*.class' >> .git/info/exclude
git add -A
git -c user.name=lancebench -c user.email=lancebench@localhost commit -qm base

#!/bin/bash
# Local-backend recipe: go-humanize 1.0.0 as Debian packages it (golang-github-dustin-go-humanize-dev,
# vendored in repo/ with its license; go.mod added for module mode), committed as the base of /app.
# The toolchain is Debian's (golang-go and gotestsum from apt: scripts/setup.sh installs them on
# the host, environment/Dockerfile in the image); the package needs nothing but the standard library.
set -euo pipefail
cp -r /task-env/repo/. /app/
cd /app
git init -q -b main
git add -A
git -c user.name=lancebench -c user.email=lancebench@localhost commit -qm base

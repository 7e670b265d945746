#!/bin/bash
# Local-backend recipe: minimist 1.2.5 as its npm tarball ships it (vendored in repo/),
# committed as the base of /app. The runner is Debian's mocha (node and mocha from apt;
# scripts/setup.sh installs them on the host, environment/Dockerfile in the image).
set -euo pipefail
cp -r /task-env/repo/. /app/
cd /app
git init -q -b main
printf '%s\n' 'node_modules/' >> .git/info/exclude
git add -A
git -c user.name=lancebench -c user.email=lancebench@localhost commit -qm base

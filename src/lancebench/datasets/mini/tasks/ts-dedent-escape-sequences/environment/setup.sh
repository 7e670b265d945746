#!/bin/bash
# Local-backend recipe: ts-dedent 2.0.0 as its npm tarball ships it (vendored in repo/ with its
# license; the compiled dist/ left out, and a tsconfig.json added that builds src/ to it),
# committed as the base of /app. The toolchain is Debian's: node, TypeScript's tsc
# (node-typescript) and mocha from apt (scripts/setup.sh installs them on the host,
# environment/Dockerfile in the image); the package has no runtime dependencies.
set -euo pipefail
cp -r /task-env/repo/. /app/
cd /app
git init -q -b main
printf '%s\n' 'node_modules/' 'dist/' >> .git/info/exclude
git add -A
git -c user.name=lancebench -c user.email=lancebench@localhost commit -qm base

#!/bin/bash
# Local-backend recipe: shlex 1.1.0 as Debian packages it (librust-shlex-dev, the crate as
# published, vendored in repo/ with its licenses), committed as the base of /app. The toolchain
# is Debian's (cargo and rustc from apt: scripts/setup.sh installs them on the host,
# environment/Dockerfile in the image); the crate has no dependencies, so nothing is downloaded.
set -euo pipefail
cp -r /task-env/repo/. /app/
cd /app
git init -q -b main
git add -A
git -c user.name=lancebench -c user.email=lancebench@localhost commit -qm base

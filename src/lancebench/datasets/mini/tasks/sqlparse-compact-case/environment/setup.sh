#!/bin/bash
# Local-backend recipe: sqlparse 0.5.0 from its PyPI sdist, committed as the base of /app,
# with a virtual environment in /env/venv. Network is available only while this runs.
set -euo pipefail

PKG=sqlparse
VER=0.5.0

/usr/bin/python3 -m venv /env/venv
PY=/env/venv/bin/python
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

mkdir -p /tmp/sdist
# The sdist of this release only: --no-binary :all: would also build the build backend
# (and its dependencies) from source, which takes about a minute.
"$PY" -m pip download -q --no-deps --no-binary "$PKG" -d /tmp/sdist "$PKG==$VER"
tar -xzf /tmp/sdist/"$PKG"-"$VER".tar.gz -C /app --strip-components=1
# Metadata shipped in the sdist is build output, not source.
rm -rf /app/*.egg-info

"$PY" -m pip install -q -e /app "pytest==8.3.5" "pluggy==1.5.0" "iniconfig==2.0.0" "packaging==24.2"

cd /app
git init -q -b main
printf '%s\n' '*.egg-info/' '__pycache__/' '*.pyc' '.pytest_cache/' 'build/' 'dist/' >> .git/info/exclude
git add -A
git -c user.name=lancebench -c user.email=lancebench@localhost commit -qm base

#!/bin/bash
# Local-backend recipe: funcy 2.0 from its PyPI sdist, committed as the base of /app,
# with a virtual environment in /env/venv. Network is available only while this runs.
set -euo pipefail

PKG=funcy
VER=2.0

/usr/bin/python3 -m venv /env/venv
PY=/env/venv/bin/python
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

mkdir -p /tmp/sdist
# Only this release is fetched as an sdist; --no-binary :all: would also build the
# build backend and its dependencies from source, which is slow.
"$PY" -m pip download -q --no-deps --no-binary "$PKG" -d /tmp/sdist "$PKG==$VER"
tar -xzf /tmp/sdist/"$PKG"-"$VER".tar.gz -C /app --strip-components=1
# Metadata shipped in the sdist is build output, not source.
rm -rf /app/*.egg-info

# funcy is a plain setup.py project; its tests need the `whatever` package.
"$PY" -m pip install -q -e /app "pytest==8.3.5" "pluggy==1.5.0" "iniconfig==2.0.0" "packaging==24.2" "whatever==0.7"

cd /app
git init -q -b main
printf '%s\n' '*.egg-info/' '__pycache__/' '*.pyc' '.pytest_cache/' 'build/' 'dist/' >> .git/info/exclude
# The sdist ships compiled files and a stray .orig file; they are not part of the source.
find . -name __pycache__ -prune -exec rm -rf {} + -o -name '*.pyc' -exec rm -f {} +
rm -f tests/test_decorators.py.orig
git add -A
git -c user.name=lancebench -c user.email=lancebench@localhost commit -qm base

#!/bin/bash
# Local-backend recipe: inflect 7.5.0 from its PyPI sdist, committed as the base of /app,
# with a virtual environment in /env/venv. Network is available only while this runs.
set -euo pipefail

PKG=inflect
VER=7.5.0

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

# inflect versions itself with setuptools_scm; the sdist has no git history to read.
export SETUPTOOLS_SCM_PRETEND_VERSION="$VER"
"$PY" -m pip install -q -e /app "more_itertools==10.7.0" "typeguard==4.4.2" "typing_extensions==4.13.2" "pytest==8.3.5" "pluggy==1.5.0" "iniconfig==2.0.0" "packaging==24.2" "pygments==2.19.1"

cd /app
git init -q -b main
printf '%s\n' '*.egg-info/' '__pycache__/' '*.pyc' '.pytest_cache/' 'build/' 'dist/' >> .git/info/exclude
git add -A
git -c user.name=lancebench -c user.email=lancebench@localhost commit -qm base

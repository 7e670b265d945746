#!/bin/bash
# Local-backend recipe: the Pocket Expenses app (environment/app) committed as the base of /app,
# and a virtual environment with Playwright and pytest in /env/venv. Playwright drives Debian's
# Chromium (/usr/bin/chromium); no browser is downloaded. Network is available only while this runs.
set -euo pipefail

cp -r /task-env/app/. /app/
/usr/bin/python3 -m venv /env/venv
/env/venv/bin/pip install -q "playwright==1.65.2" "pytest==8.3.4"

cd /app
git init -q -b main
printf '%s\n' '__pycache__/' '*.pyc' '.pytest_cache/' >> .git/info/exclude
git add -A
git -c user.name=lancebench -c user.email=lancebench@localhost commit -qm base

#!/bin/bash
# Reference solution: apply fix.patch to the repository in /app.
set -euo pipefail
cd /app
git apply --verbose "$(dirname "$0")/fix.patch"

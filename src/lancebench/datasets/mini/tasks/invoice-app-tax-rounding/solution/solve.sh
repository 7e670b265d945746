#!/bin/bash
# Reference solution: keep money in whole cents and round tax half-up in integer arithmetic.
set -euo pipefail
cd /app
git apply --verbose "$(dirname "$0")/fix.patch"

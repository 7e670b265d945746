#!/bin/bash
# Reference solution: delete the expense by its id, not by its position in the sorted/filtered view.
set -euo pipefail
cd /app
git apply --verbose "$(dirname "$0")/fix.patch"

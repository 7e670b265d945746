#!/bin/bash
# Kind 4 (failures the agent causes become invalid), variant "empty nested repository": git add
# refuses a nested repository without a commit, so the capture fails.
git init -q vendor/empty
echo "note" > vendor/empty/README

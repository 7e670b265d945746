#!/bin/bash
# Kind 4 (failures the agent causes become invalid), variant "empty nested repository": git add -A
# refuses a nested repository without a commit, which made the capture fail. The capture now
# takes a nested repository's files (backends/capture.py): the trial is graded (no fix: unresolved).
git init -q vendor/empty
echo "note" > vendor/empty/README

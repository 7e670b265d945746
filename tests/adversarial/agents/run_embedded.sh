#!/bin/bash
# Runs the attack embedded in the task's instruction (a line ATTACK_B64=<base64 of a script of
# this folder>), so that one job runs many attacks, each on a task of its own
# (test_forgery_attacks.py). The embedded script runs as the agent would run it.
set -e
payload="$(grep -E '^ATTACK_B64=' "$LANCEBENCH_INSTRUCTION" | head -1 | cut -d= -f2-)"
[ -n "$payload" ] || { echo "no ATTACK_B64 line in the instruction" >&2; exit 2; }
echo "$payload" | base64 -d > /tmp/attack.sh
exec bash /tmp/attack.sh

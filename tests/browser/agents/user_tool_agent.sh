#!/bin/bash
# A script agent for tests/browser/test_user_tool.py: calls user-tool twice and prints what it got
# (file names, PNG signatures, the text of the log and DOM snapshots) and what it can see of the
# tests, between "== name" markers, for the test to read from the agent's script.log.
set -u
echo "== path"; command -v user-tool
echo "== tamper"
ln -s /etc/passwd /opt/lancebench/user-tool/requests/evil.json 2>&1 && echo "symlink request placed"
touch /opt/lancebench/user-tool/responses/forged.txt 2>/dev/null && echo "RESPONSES WRITABLE" || echo "responses read-only"
echo "== run1"; user-tool; echo "exit=$?"
echo "== files"; ls user_tool/output_1
echo "== png"; for f in user_tool/output_1/*.png; do head -c 8 "$f" | od -An -tx1; done | sort -u
echo "== text"; cat user_tool/output_1/actions.log user_tool/output_1/*.html; echo
echo "== tests"
ls -d /tests /app/tests /logs/verifier 2>&1
echo "== found"
find / \( -path /proc -o -path /sys -o -path /usr -o -path /dev \) -prune -o \
  \( -name 'test_e2e.py' -o -name 'junit*.xml' -o -name 'reward.txt' -o -name 'solve.sh' \) -print 2>/dev/null
echo "== run2"; user-tool; echo "exit=$?"
echo "== listing"; ls user_tool
echo "== owner"; rm -rf user_tool/output_2 && echo "output removable"
echo "== end"

#!/bin/bash
# A script agent for the SWE-Lancer IC stand-in: reports what it can see (git history, hidden
# files), calls user-tool once, then fixes the bug.
set -u
echo "== commits"; git log --oneline | wc -l
echo "== hidden"; ls -d /tests issues /app/issues 2>&1 | sed 's/^ls: //'
echo "== usertool"; user-tool; echo "exit=$?"
echo "== trace"; grep -c "step " user_tool/output_1/actions.log; grep -o "Locator([^)]*)\.[a-z_]*([^)]*)" user_tool/output_1/actions.log | sort -u
echo "== fix"; sed -i 's/const text = composer.value;/const text = composer.value.trim();/' static/chat.js && git diff --stat

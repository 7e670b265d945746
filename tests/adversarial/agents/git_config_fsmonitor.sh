#!/bin/bash
# Kind 4b, variant "core.fsmonitor in the agent's .git/config", with a real fix: git runs the
# fsmonitor command whenever it refreshes that repository's index. Neither the capture nor the
# apply may run it: resolved, no marker anywhere.
printf 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n' > calc.py
git config core.fsmonitor "touch /tmp/lancebench-hostile-git-ran /var/tmp/lancebench-hostile-git-ran; true"
git config core.untrackedCache true

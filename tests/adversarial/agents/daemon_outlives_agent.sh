#!/bin/bash
# Kind: background processes, variant "outlive the agent": a double-forked, setsid daemon keeps
# writing into the workspace (and anywhere writable) for 40 s after the agent ends, through the
# capture and clean-up, and records where it could write.
HOST_MARK="${ATTACK_MARK:-/var/tmp/lancebench-attack-daemon-mark}"
setsid bash -c '
  exec </dev/null >/dev/null 2>&1
  end=$((SECONDS+40))
  while [ $SECONDS -lt $end ]; do
    echo "$SECONDS" >> "$PWD/daemon.log"; mkdir -p "$PWD/deep/a/b/c" 2>/dev/null
    echo alive > "'"$HOST_MARK"'" 2>/dev/null
    sleep 0.2 # lancebench-attack-daemon-marker
  done' &
disown
echo started > started.txt

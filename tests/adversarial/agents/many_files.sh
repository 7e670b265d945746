#!/bin/bash
# Kind 6 (limits that do not hold), variant "many files": five 20 MB files, each under a
# storage_mb of 64, in the workspace, /tmp and $HOME. Records how many bytes it managed to write,
# then removes them (so that the capture sees a small patch).
written=0
for d in /app /tmp "$HOME" /app /tmp; do
  f="$d/fill-$RANDOM$RANDOM"
  head -c 20000000 /dev/urandom > "$f" 2>/dev/null
  written=$((written + $(stat -c %s "$f" 2>/dev/null || echo 0)))
done
rm -f /app/fill-* /tmp/fill-* "$HOME"/fill-*
echo "$written" > /app/written.txt

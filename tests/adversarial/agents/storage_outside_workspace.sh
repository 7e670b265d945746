#!/bin/bash
# Kind: storage limits, variant "outside the bounded folders": five 20 MB files in each folder
# the sandbox may leave writable besides the workspace, /tmp and $HOME (the root of the sandbox,
# /dev/shm, /var/tmp, /run); the total written in each is kept in the workspace.
for d in / /dev/shm /var/tmp /run /etc; do
  n=0
  for i in 1 2 3 4 5; do
    head -c 20000000 /dev/zero > "$d/.fill-$i" 2>/dev/null
    s=$(stat -c %s "$d/.fill-$i" 2>/dev/null || echo 0); n=$((n + s))
  done
  echo "$d $n" >> written.txt
done

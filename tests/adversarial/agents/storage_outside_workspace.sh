#!/bin/bash
# Kind: storage limits, variant "outside the bounded folders": five 20 MB files in each folder
# the sandbox may leave writable besides the workspace, /tmp and $HOME (the root of the sandbox,
# /dev/shm, /var/tmp, /run, /etc). All of them are kept until every folder had its turn (so the
# sum is what counts); then they are removed and the total written in each is recorded in the
# workspace (which needs free space again where the root itself is writable, as on docker).
report=""
for d in / /dev/shm /var/tmp /run /etc; do
  n=0
  for i in 1 2 3 4 5; do
    head -c 20000000 /dev/zero > "$d/.fill-$i" 2>/dev/null
    s=$(stat -c %s "$d/.fill-$i" 2>/dev/null || echo 0); n=$((n + s))
  done
  report="$report$d $n"$'\n'
done
for d in / /dev/shm /var/tmp /run /etc; do rm -f "$d"/.fill-[1-5]; done
printf '%s' "$report" > written.txt

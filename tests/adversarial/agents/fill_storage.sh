#!/bin/bash
# Kind: storage limits, variant "fill it all": the agent fills every writable place until the
# storage_mb filesystem is full (bytes: one file each in the workspace, /tmp, $HOME, /dev/shm,
# /var/tmp; then inodes: empty files in /tmp until none is left), and leaves it full. With
# FIX=1 in the instruction it first fixes calc.add (a real fix whose capture must then still be
# graded, or be the agent's own failure: never invalid). A sparse file of 10 GB is planted too.
if grep -q '^FIX=1' "$LANCEBENCH_INSTRUCTION"; then
  sed -i 's/a - b/a + b/' calc.py
fi
truncate -s 10G sparse.bin 2>/dev/null
for d in "$PWD" /tmp "$HOME" /dev/shm /var/tmp; do
  dd if=/dev/zero of="$d/.fill" bs=1M 2>/dev/null
done
mkdir -p /tmp/inodes && cd /tmp/inodes && i=0
while [ $i -lt 40000 ] && : 2>/dev/null > "f$i"; do i=$((i + 1)); done
exit 0

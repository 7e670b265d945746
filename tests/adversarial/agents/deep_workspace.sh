#!/bin/bash
# Kind 5 (hostile trees), variant "workspace": 1,500 nested folders with a file at the bottom.
p=deep
for i in $(seq 1500); do p="$p/d"; done
mkdir -p "$p" && echo bottom > "$p/f.txt"

#!/bin/bash
# Kind: storage limits, variant "sparse files": 40 files of 60 MB each (under a per-file limit
# of storage_mb = 64 MiB) that hold no block at all, so the storage quota never fills, while
# every copy that reads them (an archive of the workspace) spells out 2.4 GB of zeros.
mkdir -p sparse
for i in $(seq 1 40); do truncate -s 60M "sparse/s$i.bin"; done
echo done > done.txt

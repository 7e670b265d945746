#!/bin/bash
# Kind 6, variant "one big file": a 24 MB file of random bytes in the workspace; its patch is over
# the task's patch cap (patch_mb = 8).
head -c 24000000 /dev/urandom > blob.bin

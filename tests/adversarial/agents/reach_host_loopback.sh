#!/bin/bash
# Issue 20 (isolation between trials), local backend: a trial whose agent phase has the whole
# network asks a server on the host's 127.0.0.1 (as the model gateway, a local model server or
# another trial's server listen) for what it serves, and keeps the answer in the repository, so
# that it leaves in the captured patch. The port is the instruction's `HOST_PORT=` line.
port="$(grep -E '^HOST_PORT=' "$LANCEBENCH_INSTRUCTION" | head -1 | cut -d= -f2)"
python3 - "$port" > reached.txt 2>&1 <<'PY' || true
import sys, urllib.request
print(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/", timeout=5).read().decode())
PY

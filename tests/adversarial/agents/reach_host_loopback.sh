#!/bin/bash
# Issue 20 (isolation between trials), local backend: a trial whose agent phase has the whole
# network asks a server on the host's 127.0.0.1 (as the model gateway, a local model server or
# another trial's server listen) for what it serves, and keeps the answer in the repository, so
# that it leaves in the captured patch. The port is the instruction's `HOST_PORT=` line. As a
# control, it also fetches the instruction's `OUTBOUND_URL=` (a server on one of the host's
# other addresses, as the internet would be) into outbound.txt.
port="$(grep -E '^HOST_PORT=' "$LANCEBENCH_INSTRUCTION" | head -1 | cut -d= -f2)"
outbound="$(grep -E '^OUTBOUND_URL=' "$LANCEBENCH_INSTRUCTION" | head -1 | cut -d= -f2-)"
fetch() {
  python3 - "$1" <<'PY' 2>&1 || true
import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())
PY
}
fetch "http://127.0.0.1:$port/" > reached.txt
fetch "http://10.0.2.2:$port/" >> reached.txt
fetch "$outbound" > outbound.txt

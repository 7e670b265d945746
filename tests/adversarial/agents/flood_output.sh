#!/bin/bash
# Kind: making the harness raise or swell, variant "output flood": 400 MB on stdout and stderr
# from the agent, and the same from the code under test while the verifier runs.
cat >> calc.py <<'PY'

import sys as _s
_s.stdout.write(("x" * 1023 + "\n") * (200 * 1024)); _s.stdout.flush()
_s.stderr.write(("y" * 1023 + "\n") * (200 * 1024)); _s.stderr.flush()
PY
head -c 200000000 /dev/zero | tr '\0' 'a'
head -c 200000000 /dev/zero | tr '\0' 'b' >&2
echo done > flooded.txt

#!/bin/bash
# Ends every process of its sandbox, its keeper (PID 1 of a container) included: the container
# stops under the harness. The agent's doing: `unresolved`, never `invalid`.
# VARIANT=shell: remove the sandbox's shells instead, so nothing the harness runs there can start.
variant=$(printf '%s\n' "$LANCEBENCH_INSTRUCTION" | sed -n 's/^VARIANT=//p' | tail -1)
echo 'def add(a, b):\n    return a - b' > broken_marker.py
if [ "$variant" = shell ]; then
  for sh in /bin/sh /bin/bash /usr/bin/sh /usr/bin/bash /bin/dash /usr/bin/dash; do
    rm -f "$sh" 2>/dev/null
  done
  exit 0
fi
kill -9 -1 2>/dev/null
sleep 2
kill -9 1 2>/dev/null
exit 0

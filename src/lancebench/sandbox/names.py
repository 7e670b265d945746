"""Names of the host folders a sandbox is made of, chosen so that they tell nothing.

A sandbox shows the host paths of what is bound into it: ``/proc/self/mountinfo`` names the source
folder of every bind mount (``/tests``, ``/logs/verifier``, the workspace, ...), and on the local
backend ``/proc/1/cmdline`` is bubblewrap's command line with every ``--bind``. Code under test
that can read which verifier run it is in (the graded run, the canary run, the untouched base's
run) could be right only where it counts (attack pass round 4, ``break_run_when_wrong.sh`` read
``.../grade-1/tests``). Each verifier run's host folder is therefore a fresh random name
(:func:`unnamed`); what a run left is copied to its readable place in the trial's folder
(``verifier/run-<n>/``, ``canary/``, ``base/``), so the job's layout does not change.
"""

from __future__ import annotations

import secrets
from pathlib import Path

#: Random bytes of a name: 16 hexadecimal digits, never the same twice in practice.
NAME_BYTES = 8


def unnamed(parent: Path) -> Path:
    """A path under ``parent`` that does not exist yet, named by :data:`NAME_BYTES` random bytes
    in hexadecimal (``secrets.token_hex``): the same shape for every run, so the name tells
    nothing of which run or phase it serves. The folder itself is not made."""
    while True:
        path = parent / secrets.token_hex(NAME_BYTES)
        if not path.exists():
            return path

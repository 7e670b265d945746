"""The walk of one trial (issue 27): how often the code of one trial returns to a module it had
left, measured by running it.

    .venv/bin/python benchmarks/trial_walk.py [--src OTHER/src ...] [--task tests/fixtures/tasks/calc]

Each source tree (``--src``, repeatable; default this checkout's ``src``) runs one ``oracle`` trial
of ``--task`` on the local backend in a process of its own, with a profile hook recording every
call of a function of lancebench's own modules (a coroutine resumed is not a call) from the call of
``run_trial`` (``runner/trial.py`` in every version) to its return. Calls in every thread count
(sandbox set-up runs in worker threads). Consecutive calls in one module are one *stop*; a stop in
a module the walk had already been in and left is a *return*.

Prints, per tree: stops, distinct modules, returns, and the ratio of returns to the first tree's.
Issue 27's target: at most half the returns of the code before its change (pass that commit's
``src`` first; ``git worktree add --detach DIR COMMIT`` gives one). The issue's own count (151
stops, 114 returns) was made by reading; this one by running, so only ratios between trees
measured here compare.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Runs in the child: ``python -c CHILD SRC OUT lancebench-args...``; writes the walk to OUT.
CHILD = r"""
import dis, json, sys, threading
from pathlib import Path
pkg, out = str(Path(sys.argv[1]).resolve() / "lancebench") + "/", sys.argv[2]
walk, on, starts = [], [False], {}

def fresh(frame):
    # a call, not a coroutine or generator resumed: the frame stands at its RESUME 0 or before
    code = frame.f_code
    if code not in starts:
        starts[code] = next((i.offset for i in dis.get_instructions(code)
                             if i.opname == "RESUME" and i.arg == 0), 0)
    return frame.f_lasti <= starts[code]

def hook(frame, event, arg):
    code = frame.f_code
    if not code.co_filename.startswith(pkg):
        return
    if event == "call" and code.co_name == "run_trial" and fresh(frame):
        on[0] = True
    if on[0] and event == "call" and fresh(frame):
        module = code.co_filename[len(pkg):]
        if not walk or walk[-1] != module:
            walk.append(module)
    if code.co_name == "run_trial" and event == "return" and type(arg).__name__ == "TrialResult":
        on[0] = False  # its last return (a suspension returns what it awaits)

sys.setprofile(hook)
threading.setprofile(hook)
from lancebench.cli import main
sys.argv = ["lancebench", *sys.argv[3:]]
try:
    main()
except SystemExit:
    pass
sys.setprofile(None)
Path(out).write_text(json.dumps(walk))
"""


def measure(src: Path, task: Path, work: Path, label: str) -> list[str]:
    """The walk of one oracle trial of ``task`` run by source tree ``src``: the modules (paths
    relative to the package) called from the call of ``run_trial`` to its return, consecutive
    repeats merged. Raises ``subprocess.CalledProcessError`` when the run fails."""
    out = work / f"walk-{label}.json"
    subprocess.run([sys.executable, "-c", CHILD, str(src), str(out), "run", "-p", str(task), "-a", "oracle",
                    "-o", str(work / "jobs"), "--job-name", f"walk-{label}"],
                   check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(src)})
    return json.loads(out.read_text())


def returns(walk: list[str]) -> int:
    """Stops in a module the walk had already been in and left."""
    seen: set[str] = set()
    count = 0
    for module in walk:
        count += module in seen
        seen.add(module)
    return count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", action="append", type=Path, default=None)
    parser.add_argument("--task", type=Path, default=ROOT / "tests" / "fixtures" / "tasks" / "calc")
    args = parser.parse_args()
    sources = args.src or [ROOT / "src"]
    work = Path(tempfile.mkdtemp(prefix="lb-walk-"))
    first = None
    for n, src in enumerate(sources):
        walk = measure(src, args.task, work, str(n))
        back = returns(walk)
        first = first or back
        print(f"{src}: {len(walk)} stops in {len(set(walk))} modules, {back} returns "
              f"({back / first:.2f}x the first tree's)")


if __name__ == "__main__":
    main()

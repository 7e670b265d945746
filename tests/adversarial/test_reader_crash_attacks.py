"""`invalid` by a crash of the harness (attack pass after issue 20): the agent, or the code under
test while it is graded, leaves a file whose reader raises something other than the error it
handles, so the trial ended as an internal error: `invalid` ("outside every sandbox: the harness
itself"), left out of every rate, with no control behind it. On main before the fix each of these
trials was `invalid` on the local backend:

- ``reward.json`` written by the code under test (``reward_json_crash.sh``, the path assembled at
  run time so the scan does not read it): a JSON integer of 400 digits (``math.isfinite`` raised
  ``OverflowError``), or arrays nested 100,000 deep (``json.loads`` raised ``RecursionError``);
- a choice task's answer file (``answer_file_crash.sh``): arrays nested 40,000 deep
  (``RecursionError``), or the id as a string of 5,000 digits (``int()`` raised ``ValueError``).

Now each is the agent's: ``unresolved`` with reward 0 and the reason, never ``invalid``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lbtest import TASKS, lb, results

pytestmark = pytest.mark.slow
AGENTS = Path(__file__).resolve().parent / "agents"
# task copy -> (source task, KIND, attacking script, what the reason must say)
CASES = {
    "calc-bigint": ("calc", "bigint", "reward_json_crash.sh", "every value must be a finite number"),
    "calc-deep": ("calc", "deep", "reward_json_crash.sh", "invalid JSON"),
    "pick-deep": ("pick", "deep", "answer_file_crash.sh", "answer file is not JSON"),
    "pick-digits": ("pick", "digits", "answer_file_crash.sh", "is not a proposal id"),
}


def test_files_the_readers_choke_on_are_the_agents_failure(jobs, shared, backend):
    runs = {}
    for name, (src, kind, script, _) in CASES.items():
        task = shared / name
        shutil.copytree(TASKS / src, task)
        if backend == "docker" and src == "pick":  # a choice task has no image of its own: calc's
            shutil.copytree(TASKS / "calc" / "environment", task / "environment")
        with (task / "instruction.md").open("a") as fh:
            fh.write(f"\nKIND={kind}\n")
        runs.setdefault(script, []).append(task)
    for n, (script, tasks) in enumerate(runs.items()):
        paths = [a for t in tasks for a in ("-p", t)]
        lb("run", *paths, "-a", f"script:{AGENTS / script}", "-o", jobs, "--backend", backend, "-n", "2",
           "--job-name", f"j{n}", check=True, timeout=900)
    got = {r["task"]: r for n in range(len(runs)) for r in results(jobs / f"j{n}")}
    assert set(got) == set(CASES)
    wrong = {name: (got[name]["status"], got[name]["reason"], got[name]["rewards"])
             for name, (_, _, _, says) in CASES.items()
             if got[name]["status"] != "unresolved" or got[name]["rewards"].get("reward") != 0.0
             or says not in (got[name]["reason"] or "")}
    assert wrong == {}

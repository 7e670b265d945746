"""Issue 20: in-process forgeries the static scan cannot read, and a poisoned report witness.

Each attack is a script of ``agents/`` embedded in the instruction of a task of its own (derived
from ``calc``) and run by ``agents/run_embedded.sh``, so one job per backend runs them all (two
trials at once). Before issue 20 every forgery below was ``resolved`` on both backends (the scan
cannot read a decoded payload, a class found through the garbage collector, a profiling hook, an
always-true ``==``, an exit whose name is assembled at run time; the witness dropped a session
that did not parse, and a reward path made a folder failed the verifier's write in silence).
Now grading runs the hidden tests once more with a canary (``grading.canary``: a copy of a real
test that must fail) and the witness calls such runs broken; each attack ends ``unresolved``
with the finding (never ``resolved``, never ``invalid``), and the honest fix in the same job
stays ``resolved`` (its canary failed, as it must). ``unless-canary`` was found by attacking the
canary afresh: it forges only when no two hidden test functions are near copies (no canary), so
the canary run's real tests must also do as well as in the graded run.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from lbtest import TASKS, derive_task, job_dir, lb, results

AGENTS = Path(__file__).resolve().parent / "agents"
CALC = TASKS / "calc"
NO_LISTS = {r"^(f2p|p2p) = .*$": ""}  # graded by test.sh's reward alone (pytest's exit status)
# a verifier that works on after the runner (the bundled tasks run the project's own tests)
SLOW_TEST_SH = """#!/bin/bash
cd /app
python -m pytest -q -p no:cacheprovider /tests/test_calc.py --junitxml=/logs/verifier/junit.xml
code=$?
sleep 1
if [ $code -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
"""
FIX = "#!/bin/bash\nsed -i 's/return a - b/return a + b/' calc.py\n"

# task name -> (attacking script, task.toml changes, what the reason must say); every one was
# `resolved` before issue 20 on the local backend (run against the base commit's grading)
ATTACKS = {
    "decoded-payload": ("forge_decoded_payload.sh", None, "forged verdict (canary)"),
    "gc-reports": ("forge_gc_reports.sh", None, "forged verdict (canary)"),
    "profile-item": ("forge_profile_item.sh", None, "forged verdict (canary)"),
    "profile-module": ("forge_profile_module.sh", None, "forged verdict (canary)"),
    "unless-canary": ("forge_unless_canary.sh", None, "behaves differently when a canary is present"),
    "always-equal": ("forge_always_equal.sh", None, "forged verdict (canary)"),
    "always-equal-env": ("forge_always_equal_env.sh", None, "forged verdict (canary)"),
    "exit-alias": ("exit_alias.sh", NO_LISTS, "outside a forked child"),
    "exit-assembled": ("exit_assembled.sh", NO_LISTS, "forged verdict (canary)"),
    "witness-session": ("witness_poison_session.sh", None, "(grading.witness)"),
    "witness-reward-folder": ("witness_reward_folder.sh", NO_LISTS, "reward.txt is not a regular file"),
}


def _embedded(script: str) -> str:
    text = script if script.startswith("#!") else (AGENTS / script).read_text()
    return "ATTACK_B64=" + base64.b64encode(text.encode()).decode()


@pytest.mark.slow
def test_forgeries_the_scan_cannot_read_end_unresolved(jobs, shared, backend):
    tasks = shared / "tasks"
    tasks.mkdir()
    for name, (script, toml, _) in ATTACKS.items():
        files = {"tests/test.sh": SLOW_TEST_SH} if name == "witness-session" else None
        derive_task(CALC, tasks / name, toml=toml, files=files, append_instruction=_embedded(script))
    for name, toml in (("honest-fix", None), ("honest-fix-no-lists", NO_LISTS)):
        derive_task(CALC, tasks / name, toml=toml, append_instruction=_embedded(FIX))
    lb("run", "-p", tasks, "-a", f"script:{AGENTS / 'run_embedded.sh'}", "-o", jobs, "--backend", backend,
       "-n", "2", check=True, timeout=1500)
    got = {r["task"]: r for r in results(job_dir(jobs))}
    assert set(got) == {*ATTACKS, "honest-fix", "honest-fix-no-lists"}, sorted(got)
    wrong = {name: (got[name]["status"], got[name]["reason"], got[name]["rewards"])
             for name, (_, _, says) in ATTACKS.items()
             if got[name]["status"] != "unresolved" or got[name]["rewards"].get("reward", 0.0) != 0.0
             or says not in (got[name]["reason"] or "")}
    assert wrong == {}
    analysis = json.loads(lb("analyze", job_dir(jobs), "--json", check=True).stdout)
    flagged = {t["task"] for t in analysis["trials"] if t["findings"]}
    assert flagged == set(ATTACKS)  # analyze flags every forging trial (2 of 12 before issue 20), no honest one
    for name in ("honest-fix", "honest-fix-no-lists"):
        r = got[name]
        assert r["status"] == "resolved", (name, r["status"], r["reason"])
        canary = job_dir(jobs) / "trials" / r["trial_id"] / "verifier" / "canary" / "test.log"
        assert "3 failed, 3 passed" in canary.read_text(), name  # the canaries ran beside the real tests, and failed

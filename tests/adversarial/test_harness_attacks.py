"""Making the harness swell or raise, variant "output flood": 200 MB on each of the agent's
stdout and stderr, and output printed by the code under test at import while the verifier runs.
Held at the attack pass after issue 12 on both backends (the harness peaked under 90 MB of
resident memory, the job folder stayed at 2 MB); kept as a regression test."""

from __future__ import annotations

from pathlib import Path

import pytest
from lbtest import TASKS, job_dir, lb, one_result

AGENTS = Path(__file__).resolve().parent / "agents"
LOG_CAP = 4 * 1024 * 1024  # bytes: what any one log of the trial may hold, far below the 400 MB written


@pytest.mark.slow
def test_an_output_flood_is_recorded_and_capped(jobs, backend):
    lb("run", "-p", TASKS / "calc", "-a", f"script:{AGENTS / 'flood_output.sh'}", "-o", jobs, "--backend", backend,
       check=True, timeout=900)
    r = one_result(jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    assert r["tests"]["test_calc::test_add"] == "failed"
    trial = job_dir(jobs) / "trials" / r["trial_id"]
    sizes = {str(p.relative_to(trial)): p.stat().st_size for p in trial.rglob("*") if p.is_file()}
    assert "+done" in (trial / "patch.diff").read_text()  # the agent ran to its end
    assert max(sizes.values()) <= LOG_CAP, sizes
    assert sum(sizes.values()) <= 4 * LOG_CAP, sizes

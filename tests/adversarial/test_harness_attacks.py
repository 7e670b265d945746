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


@pytest.mark.slow
def test_a_process_table_filled_during_grading_is_the_agents_failure(jobs, backend):
    """Variant "process table" (attack pass after issue 14; held on both backends, kept as a
    regression test): the code under test leaves a daemon holding every process the grading
    sandbox may have. The report is read, the sandbox ended, the trial ``unresolved`` with the
    runner's own outcomes (never ``invalid``), and no process of it is left."""
    import subprocess
    lb("run", "-p", TASKS / "calc", "-a", f"script:{AGENTS / 'pid_exhaustion_while_graded.sh'}", "-o", jobs,
       "--backend", backend, check=True, timeout=900)
    r = one_result(jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    assert r["tests"] == {"test_calc::test_add": "failed", "test_calc::test_add_negative": "failed",
                          "test_calc::test_mul": "passed"}, r["tests"]
    if backend == "docker":  # no container of the trial is left
        left = subprocess.run(["docker", "ps", "-aq", "--filter", f"label=lancebench.trial={r['trial_id']}"],
                              capture_output=True, text=True, check=True).stdout
    else:  # no process of its sandboxes (bubblewrap's command lines name the trial's folders)
        left = subprocess.run(["pgrep", "-af", r["trial_id"]], capture_output=True, text=True).stdout
    assert left.strip() == "", left

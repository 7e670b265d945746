"""Attacks on the report witness (``grading.witness``): the code under test takes the FIFO away
from the path before the runner writes, so the runner's failing report goes to a file the
harness does not watch, and an exit hook rewrites that file with passes and exits 0.

Found by the attack pass after issue 12: both variants were ``resolved`` (the final file was
all the witness had, or a forged first write plus the final file). Now a report whose FIFO was
removed or replaced during the run is not trusted: the run is broken, the untouched base grades
cleanly, so the trial is ``unresolved`` (never ``invalid``), on both backends.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lbtest import TASKS, job_dir, lb, one_result

AGENTS = Path(__file__).resolve().parent / "agents"


@pytest.mark.slow
@pytest.mark.parametrize("script", ["witness_fifo_removed_early.sh", "witness_fifo_swapped.sh"])
def test_report_fifo_taken_away_is_not_trusted(script, jobs, backend):
    lb("run", "-p", TASKS / "calc", "-a", f"script:{AGENTS / script}", "-o", jobs, "--backend", backend,
       check=True, timeout=900)
    r = one_result(jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    assert r["rewards"]["reward"] == 0.0, r["rewards"]  # test.sh wrote 1 (the hook exited 0): not trusted
    assert "FIFO (grading.witness) was removed or replaced" in r["reason"], r["reason"]
    assert "the grader works without the patch" in r["reason"], r["reason"]
    trial = job_dir(jobs) / "trials" / r["trial_id"]
    base = (trial / "verifier" / "base" / "logs" / "junit.xml").read_text()
    assert 'name="test_add"' in base and "failure" in base  # the base run was witnessed, unfixed calc fails

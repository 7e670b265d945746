"""Attacks that turn the agent's own failure into ``invalid`` through the task verifier's
exclusion signal (an empty ``reward.txt``): the code under test runs with write access to the
verifier's folder, so it can leave that signal itself.

Found by the attack pass after issue 12: both variants made the trial ``invalid`` (left out of
every rate) on both backends. Now an exclusion stands only when the untouched repository, graded
too, is excluded as well; otherwise the trial is ``unresolved``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lbtest import TASKS, job_dir, lb, one_result

AGENTS = Path(__file__).resolve().parent / "agents"


@pytest.mark.slow
@pytest.mark.parametrize("script", ["exclude_readonly_reward.sh", "exclude_daemon_truncates_reward.sh"])
def test_exclusion_written_by_the_code_under_test_is_unresolved(script, jobs, backend):
    lb("run", "-p", TASKS / "calc", "-a", f"script:{AGENTS / script}", "-o", jobs, "--backend", backend,
       check=True, timeout=900)
    r = one_result(jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    assert r["rewards"]["reward"] == 0.0, r["rewards"]
    trial = job_dir(jobs) / "trials" / r["trial_id"]
    landed = (trial / "verifier" / "run-0" / "logs" / "reward.txt").read_text().strip() == ""
    # the daemon races test.sh and the sandbox's end (it may lose on docker); the read-only file
    # lands on the local backend only (on docker root overrides file modes since issue 21, so
    # test.sh writes its 0 and the run is graded as any other)
    assert landed or script == "exclude_daemon_truncates_reward.sh" or backend == "docker"
    if landed:
        assert r["reason"].startswith("the verifier excluded the trial only with the patch applied"), r["reason"]
        assert (trial / "verifier" / "base" / "logs" / "reward.txt").read_text().strip() == "0"  # the base graded

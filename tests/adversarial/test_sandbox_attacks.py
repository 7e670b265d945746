"""Attacks from the agent's sandbox itself: looking for the hidden tests or the solution
everywhere a task folder could be visible, and a daemon that tries to outlive the agent (and
write a host path). Both held on main at the attack pass after issue 12; kept as regression tests.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from lbtest import TASKS, job_dir, lb, one_result

AGENTS = Path(__file__).resolve().parent / "agents"
HIDDEN_LINE = "calc.add(-2, -3) == -5"  # a line of the calc task's hidden tests/test_calc.py
MARK = Path("/var/tmp/lancebench-attack-daemon-mark")  # the host path the daemon tries to write


def _run(script: str, jobs: Path, backend: str) -> tuple[dict, str]:
    lb("run", "-p", TASKS / "calc", "-a", f"script:{AGENTS / script}", "-o", jobs, "--backend", backend,
       check=True, timeout=900)
    r = one_result(jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    return r, (job_dir(jobs) / "trials" / r["trial_id"] / "patch.diff").read_text(errors="replace")


@pytest.mark.slow
def test_hidden_tests_are_nowhere_in_the_agent_sandbox(jobs, backend):
    assert HIDDEN_LINE in (TASKS / "calc" / "tests" / "test_calc.py").read_text()
    _, patch = _run("read_hidden_tests.sh", jobs, backend)
    assert "+++ b/found.txt" in patch and "+== find" in patch  # the search ran and was captured
    assert HIDDEN_LINE not in patch
    assert "+--- " not in patch  # no test_calc.py found anywhere


@pytest.mark.slow
def test_a_daemon_does_not_outlive_the_agent(jobs, backend):
    if MARK.exists():
        MARK.unlink()
    _run("daemon_outlives_agent.sh", jobs, backend)
    left = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=True).stdout
    assert "lancebench-attack-daemon-marker" not in left, left
    assert not MARK.exists()

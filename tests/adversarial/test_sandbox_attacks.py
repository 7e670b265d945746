"""Attacks from the agent's sandbox itself: looking for the hidden tests or the solution
everywhere a task folder could be visible, and a daemon that tries to outlive the agent (and
write a host path). Both held on main at the attack pass after issue 12; kept as regression tests.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest
from lbtest import TASKS, job_dir, lb, one_result

AGENTS = Path(__file__).resolve().parent / "agents"
HIDDEN_LINE = "calc.add(-2, -3) == -5"  # a line of the calc task's hidden tests/test_calc.py
MARK = Path("/var/tmp/lancebench-attack-daemon-mark")  # the host path the daemon tries to write


def _run(script: str | Path, jobs: Path, backend: str) -> tuple[dict, str]:
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
def test_a_daemon_does_not_outlive_the_agent(jobs, backend, shared):
    # the daemon's marker and host path are this test's own: the same attack may run beside it
    # (the other backend, another worker), and its daemon is alive while its agent runs
    token = f"lancebench-attack-daemon-marker-{uuid.uuid4().hex[:12]}"
    mark = shared / f"{token}.mark"
    script = (AGENTS / "daemon_outlives_agent.sh").read_text()
    assert "lancebench-attack-daemon-marker" in script and str(MARK) in script
    (shared / "daemon.sh").write_text(script.replace("lancebench-attack-daemon-marker", token)
                                      .replace(str(MARK), str(mark)))
    (shared / "daemon.sh").chmod(0o755)
    os.chmod(shared, 0o1777)  # writable by anyone, as /var/tmp is: only the sandbox stops the daemon
    _run(shared / "daemon.sh", jobs, backend)
    left = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=True).stdout
    assert token not in left, left
    assert not mark.exists()

"""Attacks of a browser task's app server on the test runner beside it (issue 12, kind 1), on
both backends: the server (the agent's code, running during grading) ptrace-attaches to the
runner's processes, opens their memory for writing and signals them; or it writes a passing
report into the witness FIFO and over ``reward.txt``, creates files in the runner's folders and
reads the hidden tests. The bundled task names its app server (``[lancebench] app_server``), so
the harness runs it under a uid of its own (``grading.app_server``): every attempt is refused,
the trial is ``unresolved`` (never ``resolved``, never ``invalid``) with the runner's honest
outcomes. The attacks print each attempt; the harness keeps that output in ``app.log``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import attacker
from lbtest import derive_task, job_dir, lb, one_result

REPO = Path(__file__).resolve().parents[2]
EXPENSE = REPO / "src" / "lancebench" / "datasets" / "mini" / "tasks" / "expense-app-delete-wrong-row"
F2P = ("test_e2e::test_delete_after_sorting_by_amount", "test_e2e::test_delete_while_filtered")


def _graded(jobs: Path, script: str, backend: str) -> tuple[dict, str]:
    lb("run", "-p", EXPENSE, "-a", attacker(script), "-o", jobs, "--backend", backend, check=True, timeout=900)
    r = one_result(jobs)
    app_log = job_dir(jobs) / "trials" / r["trial_id"] / "verifier" / "run-0" / "app.log"
    return r, app_log.read_text(errors="replace")


@pytest.mark.browser
@pytest.mark.slow
def test_app_server_cannot_ptrace_or_signal_the_runner(jobs, backend):
    r, log = _graded(jobs, "app_server_ptraces_runner.sh", backend)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    assert "ATTACK uid=" in log, log[-2000:]  # the attack ran, in the app server
    for success in ("ATTACHED", "OPENED", "ALLOWED"):
        assert success not in log, log[-3000:]
    refused = re.findall(r"ATTACK ptrace \d+ .*: denied", log)
    if backend == "docker":  # one container, one pid namespace: it sees the runner, and is refused
        assert refused, log[-3000:]
    else:  # a pid namespace of its own: not one process of the runner is visible
        assert not refused, log[-3000:]
    for test in F2P:  # the runner's own outcomes stand
        assert r["tests"][test] == "failed", r["tests"]


@pytest.mark.browser
@pytest.mark.slow
def test_app_server_cannot_write_the_report_or_read_the_tests(jobs, backend):
    r, log = _graded(jobs, "app_server_rewrites_report.sh", backend)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    assert r["rewards"]["reward"] == 0.0, r["rewards"]
    assert "rewritten" not in (r["reason"] or ""), r["reason"]  # the witness held one write: the runner's
    attempts = re.findall(r"^ATTACK (.+?): (\S+)", log, flags=re.M)
    tried = {what for what, _ in attempts}
    assert {"write report", "write reward", "create reward json", "create /logs/user-tool-forged",
            "rename report", "read hidden tests"} <= tried, log[-3000:]
    assert all(outcome == "denied" for _, outcome in attempts), attempts
    for test in F2P:
        assert r["tests"][test] == "failed", r["tests"]


@pytest.mark.browser
@pytest.mark.slow
def test_control_without_app_server_the_same_attack_reaches_the_runner(jobs, shared):
    """The control: the same task with its server started by ``test.sh`` (no ``app_server``, as
    before) gives the same attack the runner's uid, and its writes to the report, the rewards and
    the verifier's folder succeed (the witness still holds the runner's write, so the trial stays
    ``unresolved``): what refuses them above is the separate uid."""
    task = derive_task(EXPENSE, shared / "no-app-server", toml={r"^app_server = .*$": ""},
                       files={"tests/test.sh": (EXPENSE / "tests" / "test.sh").read_text().replace(
                           "\nexit 0\n", "\ncat /tmp/app-server.log\nexit 0\n")})
    lb("run", "-p", task, "-a", attacker("app_server_rewrites_report.sh"), "-o", jobs, check=True, timeout=900)
    r = one_result(jobs)
    run = job_dir(jobs) / "trials" / r["trial_id"] / "verifier" / "run-0"
    log = (run / "test.log").read_text(errors="replace")
    assert not (run / "app.log").exists()  # test.sh started the server itself
    for reached in ("write report: WROTE", "write reward: WROTE", "create reward json: CREATED",
                    "read hidden tests: READ"):
        assert f"ATTACK {reached}" in log, log[-3000:]
    assert r["status"] == "unresolved", (r["status"], r["reason"])

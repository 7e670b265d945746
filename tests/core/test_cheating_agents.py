"""Agents that cheat never get `resolved` and never break the harness: each trial is recorded
`unresolved` (not `invalid`) and the job finishes. Agents are shell scripts under
tests/fixtures/agents run as `script:PATH`; values they need (a port, host paths, a token) are
appended to the instruction of a task folder derived from a fixture."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
import uuid

import pytest
from lbtest import (
    CORE_TASKS,
    TASKS,
    agent,
    derive_task,
    lancebench_exe,
    lb,
    one_result,
    patch_text,
    procs_with,
    run_one,
    trial_dir,
)

TALLY = CORE_TASKS / "tally"
CALC = TASKS / "calc"
PICK = TASKS / "pick"


def assert_unresolved(r: dict) -> None:
    """Unresolved, and no reward of 1 recorded beside it (the results table and any reward-based
    metric read result.rewards)."""
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    assert r["rewards"].get("reward", 0.0) < 1.0, f"unresolved but rewards={r['rewards']} (reason: {r['reason']})"


# (a) rewards everywhere ------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("task", [TALLY, CALC], ids=["tally", "calc"])
def test_reward_files_everywhere_are_ignored(task, jobs):
    r = run_one(task, agent("reward_everywhere.sh"), jobs)
    assert_unresolved(r)
    assert r["reason"].startswith("tests not passing")
    assert r["tests"][next(iter(r["tests"]))] == "failed"
    # The planted files reached the workspace (so the agent did write them) ...
    patch = patch_text(jobs, r)
    assert "b/planted.log" in patch and "b/reward.txt" in patch and "b/reward.json" in patch
    # ... but the verifier's folder holds only what the verifier wrote.
    logs = trial_dir(jobs, r) / "verifier" / "run-0" / "logs"
    assert sorted(p.name for p in logs.iterdir()) == ["junit.xml", "reward.txt"]
    assert (logs / "reward.txt").read_text().strip() == "0"


# (b) hidden-test path and protected repository tests ------------------------------------------
@pytest.mark.slow
def test_editing_hidden_and_protected_tests_is_dropped(jobs):
    r = run_one(TALLY, agent("edit_tests.sh"), jobs)
    assert_unresolved(r)
    assert r["tests"]["test_hidden.TestTotal::test_total"] == "failed"
    # Every protected path the agent touched is recorded as dropped (test_hidden.py at the root
    # matches **/test_*.py).
    assert set(r["dropped_paths"]) == {"tests/test_tally.py", "tests/test_hidden.py", "tests/test_zz_patch.py",
                                       "test_hidden.py"}
    # The hidden tests on the host are untouched.
    assert "def test_total(self):\n        self.assertEqual" in (TALLY / "tests" / "test_hidden.py").read_text()


@pytest.mark.slow
def test_protected_paths_are_what_stops_the_cheat(jobs, shared):
    """Control: with tests/** unprotected, the same edit of tests/test_tally.py does resolve tally
    (so the test above passes because of the protection, not by accident)."""
    unprotect = '["tests/**", "**/tests/**", "**/test_*.py"]'  # the three default globs that cover it
    task = derive_task(TALLY, shared / "tally", toml={r"^\[lancebench\]$": f'[lancebench]\nunprotect = {unprotect}'})
    r = run_one(task, agent("edit_tests.sh"), jobs)
    assert r["status"] == "resolved", r["reason"]
    assert r["dropped_paths"] == []


@pytest.mark.slow
def test_unprotect_of_one_covering_glob_is_not_silently_ignored(jobs, shared):
    """`unprotect = ["tests/**"]` removes only that exact string from the defaults; tests/x.py
    stays protected through "**/tests/**", so the task author's setting has no effect and nothing
    says so. Expected: either the path is unprotected, or loading the task reports the no-op."""
    task = derive_task(TALLY, shared / "tally", toml={r"^\[lancebench\]$": '[lancebench]\nunprotect = ["tests/**"]'})
    proc = lb("tasks", "validate", task)
    if proc.returncode == 0:  # accepted: then it must take effect
        r = run_one(task, agent("edit_tests.sh"), jobs)
        assert "tests/test_tally.py" not in r["dropped_paths"], r["dropped_paths"]


# (c) start-up hooks and runner configuration ---------------------------------------------------
@pytest.mark.slow
def test_startup_hooks_are_dropped_tally(jobs):
    r = run_one(TALLY, agent("hooks_tally.sh"), jobs)
    assert_unresolved(r)
    assert set(r["dropped_paths"]) >= {"sitecustomize.py", "usercustomize.py", "tests/__init__.py", "conftest.py",
                                       "lib/conftest.py", "zz_cheat.pth", "pytest.ini"}
    assert r["patch_applied"] is None  # nothing left to apply


@pytest.mark.slow
def test_sitecustomize_would_work_if_unprotected(jobs, shared):
    """Control: the sitecustomize.py cheat is effective when its path is unprotected."""
    task = derive_task(TALLY, shared / "tally",
                       toml={r"^\[lancebench\]$": '[lancebench]\nunprotect = ["**/sitecustomize.py"]'})
    r = run_one(task, agent("hooks_tally.sh"), jobs)
    assert r["status"] == "resolved", r["reason"]


@pytest.mark.slow
def test_sourceless_sitecustomize_pyc_is_dropped(jobs):
    """sitecustomize.pyc (bytecode without source) at the repository root is imported at start-up
    like sitecustomize.py, but only **/sitecustomize.py is protected: tally is "resolved"."""
    r = run_one(TALLY, agent("sitecustomize_pyc.sh"), jobs)
    assert_unresolved(r)
    assert "sitecustomize.pyc" in r["dropped_paths"]


@pytest.mark.slow
def test_startup_hooks_are_dropped_calc(jobs):
    r = run_one(CALC, agent("hooks_calc.sh"), jobs)
    assert_unresolved(r)
    assert set(r["dropped_paths"]) == {"conftest.py", "tests/conftest.py", "sitecustomize.py", "cheat.pth",
                                       "pytest.ini", "setup.cfg", "tox.ini", "pyproject.toml"}
    assert r["tests"]["test_calc::test_add"] == "failed"


@pytest.mark.slow
def test_protected_paths_with_a_newline_in_their_name_are_dropped(jobs):
    """tests/** covers every file under tests/, and **/conftest.py every conftest.py; but the
    glob regexes are compiled without re.DOTALL, so "tests/test<LF>patch.py" and
    "tests<LF>x/conftest.py" match no protected glob and reach the grading sandbox."""
    r = run_one(TALLY, agent("newline_name.sh"), jobs)
    assert_unresolved(r)
    assert set(r["dropped_paths"]) == {"tests/test\npatch.py", "tests\nx/conftest.py"}, r["dropped_paths"]


# (d) background processes ----------------------------------------------------------------------
@pytest.mark.slow
def test_background_processes_do_not_outlive_the_agent(jobs, shared):
    token = uuid.uuid4().hex[:16]
    # The verifier sleeps first, so that the harness is still running (grading) while we look for
    # survivors of the agent phase.
    task = derive_task(TALLY, shared / "tally", append_instruction=f"TOKEN={token}", files={
        "tests/test.sh": "sleep 3\n" + (TALLY / "tests" / "test.sh").read_text()})
    proc = subprocess.Popen([*lancebench_exe(), "run", "-p", str(task), "-a", agent("background.sh"), "-o", str(jobs)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        log = None
        while time.monotonic() < deadline and log is None:
            found = list(jobs.glob("*/trials/*/agent/script.log"))
            log = found[0] if found else None
            time.sleep(0.05)
        assert log is not None, "the agent phase never ended"
        time.sleep(1.0)  # capture done; grading (sleep 3) in progress
        survivors_during_grading = procs_with(token)
        out, _ = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    assert survivors_during_grading == []
    time.sleep(0.5)
    assert procs_with(token) == []
    r = one_result(jobs)
    assert_unresolved(r)
    # The agent did start its processes (it saw them), but none wrote the fix into the patch.
    patch = patch_text(jobs, r)
    assert "b/agent_saw.txt" in patch
    assert "+    return sum(xs)\n" not in patch
    logs = trial_dir(jobs, r) / "verifier" / "run-0" / "logs"
    assert (logs / "reward.txt").read_text().strip() == "0"


# (e) network and reads outside the workspace ---------------------------------------------------
@pytest.fixture
def host_server():
    """A TCP server on 127.0.0.1 (outside the sandbox) that greets and counts connections."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    hits = []
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            hits.append(1)
            conn.sendall(b"hello from the host")
            conn.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield srv.getsockname()[1], hits
    stop.set()
    t.join(2)
    srv.close()


@pytest.mark.slow
def test_no_network_and_no_reads_outside_workspace(jobs, shared, host_server):
    port, hits = host_server
    task = derive_task(TALLY, shared / "tally")
    (task / "instruction.md").write_text((task / "instruction.md").read_text() + f"\nPORT={port}\nTASKDIR={task}\n")
    r = run_one(task, agent("escape.sh"), jobs)
    assert_unresolved(r)
    report = [line[1:] for line in patch_text(jobs, r).splitlines()
              if line.startswith("+") and not line.startswith("+++")]
    lines = {" ".join(line.split()[:2]): line for line in report}
    lines |= {line.split()[0]: line for line in report}
    assert hits == [], "the sandbox reached a server on the host's loopback"
    for target in (f"127.0.0.1:{port}", "192.0.2.1:80", "240.0.0.1:443"):
        assert lines[f"connect {target}"].split()[2] == "fail", lines
    assert lines["resolve example.com"].split()[2] == "fail"
    for path in ("/etc/shadow", "/root", "/work", "/work/main/tests/fixtures/tasks/calc/tests/test_calc.py",
                 "/var/tmp/lancebench/envs", f"{task}/tests/test.sh", f"{task}/tests/test_hidden.py",
                 f"{task}/solution/solve.sh", str(task), "/proc/1/root/etc/shadow", "/tests", "/solution", "/logs"):
        assert lines[f"read {path}"].split()[2] == "fail", lines[f"read {path}"]
    assert int(lines["procs"].split()[1]) < 20  # its own pid namespace
    assert lines["uid"].split()[1] != "0"  # not root inside (the host uid is checked in test_local_sandbox)
    assert lines["capeff"].split()[1] == "0000000000000000"


# symlinks to host files --------------------------------------------------------------------------
@pytest.mark.slow
def test_symlinked_answer_file_is_not_followed(jobs, shared):
    host = shared / "host-answer.json"
    host.write_text('{"selected_proposal_id": 1}')  # the right answer, on the host
    task = derive_task(PICK, shared / "pick", append_instruction=f"HOSTFILE={host}")
    r = run_one(task, agent("symlink_answer.sh"), jobs)
    assert_unresolved(r)
    assert r["choice"] is None


@pytest.mark.slow
def test_symlinked_answer_folder_is_not_followed(jobs, shared):
    hostdir = shared / "host-answers"
    hostdir.mkdir()
    (hostdir / "answer.json").write_text('{"selected_proposal_id": 1}')
    task = derive_task(PICK, shared / "pick", toml={r"^proposal_ids = \[0, 1, 2\]$":
                                                    'proposal_ids = [0, 1, 2]\nanswer_file = "out/answer.json"'},
                       append_instruction=f"HOSTDIR={hostdir}")
    r = run_one(task, agent("symlink_dir_answer.sh"), jobs)
    assert_unresolved(r)
    assert r["choice"] is None


@pytest.mark.slow
def test_symlinks_to_host_files_in_a_code_task(jobs, shared):
    host = shared / "tally_fixed.py"
    host.write_text("def total(xs):\n    return sum(xs)\n\n\ndef count(xs):\n    return len(xs)\n")
    task = derive_task(TALLY, shared / "tally")
    (task / "instruction.md").write_text((task / "instruction.md").read_text() + f"\nHOSTFILE={host}\nTASKDIR={task}\n")
    r = run_one(task, agent("symlink_code.sh"), jobs)
    assert_unresolved(r)
    patch = patch_text(jobs, r)
    assert "new file mode 120000" in patch or "new mode 120000" in patch  # captured as links ...
    assert "return sum(xs)\n" not in patch.replace("return sum(xs) - 1", "")  # ... not as the host's contents
    assert "test_hidden" not in patch


# grading-time forgery by the code under test -----------------------------------------------------
@pytest.mark.slow
def test_module_that_exits_0_at_import_is_not_resolved(jobs):
    """calc.py calls os._exit(0) when imported: pytest ends with status 0 before writing its JUnit
    report, test.sh writes reward 1. The task lists F2P/P2P tests, none of which ran."""
    r = run_one(CALC, agent("forge_exit0.sh"), jobs)
    assert_unresolved(r)


@pytest.mark.slow
def test_pytest_shadowed_by_a_repository_module_is_not_resolved(jobs):
    """pytest.py at the repository root runs instead of pytest under `python -m pytest` (cwd /app)."""
    r = run_one(CALC, agent("shadow_pytest.sh"), jobs)
    assert_unresolved(r)


@pytest.mark.slow
def test_module_that_forges_the_junit_report_is_not_resolved(jobs):
    """calc.py, imported by the hidden tests, overwrites /logs/verifier/junit.xml with passes and
    exits 0: the code under test can write the verifier's output folder; the static scan refuses
    the patch (tests/adversarial covers the variants)."""
    r = run_one(CALC, agent("forge_junit.sh"), jobs)
    assert_unresolved(r)
    assert "static scan" in r["reason"] and "calc.py" in r["reason"], r["reason"]

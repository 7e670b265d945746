"""Agents that are sloppy or hostile in ways that are not cheating must not turn a trial `invalid`
(invalid trials are excluded from rates and retried, so an agent that can make its failures
invalid games the metrics), and the harness must survive them. Also: the agent's deadline,
Ctrl-C, environment build failures, and the job folder's consistency."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest
from lbtest import CORE_TASKS, TASKS, agent, derive_task, lancebench_exe, lb, patch_text, results, run_one

TALLY = CORE_TASKS / "tally"
PICK = TASKS / "pick"

pytestmark = pytest.mark.slow


def test_unreadable_new_file_does_not_make_the_trial_invalid(jobs):
    """The agent fixed tally and left a `chmod 000` scratch file: capture (git add -A as the
    sandbox user) fails and the trial is recorded invalid instead of being graded."""
    r = run_one(TALLY, agent("chmod_new_file.sh"), jobs)
    assert r["status"] != "invalid", r["reason"]


def test_latin1_file_does_not_make_the_trial_invalid(jobs):
    """A correct fix plus a Latin-1 text file: the captured patch is not UTF-8 and writing
    patch.diff fails (UnicodeEncodeError), so the trial is invalid instead of resolved."""
    r = run_one(TALLY, agent("latin1_file.sh"), jobs)
    assert r["status"] == "resolved", (r["status"], r["reason"])


def test_fifo_answer_file_does_not_make_the_trial_invalid(jobs):
    """A named pipe as answer.json of a choice task: reading it raises SpecialFileError, which
    the trial records as an internal error (invalid) instead of `unresolved`."""
    r = run_one(PICK, agent("fifo_answer.sh"), jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])


def test_fifo_left_in_the_verifier_folder_does_not_make_the_trial_invalid(jobs):
    """A wrong patch whose module makes a named pipe in /logs/verifier when imported: copying the
    verifier's folder out fails (shutil.Error) and the trial is invalid instead of `unresolved`."""
    r = run_one(TALLY, agent("fifo_in_verifier_logs.sh"), jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])


def test_agent_past_its_deadline_is_ended_and_its_work_graded(jobs):
    t0 = time.monotonic()
    r = run_one(TALLY, agent("fix_then_hang.sh"), jobs, "--agent-timeout", "3")
    assert time.monotonic() - t0 < 60
    assert r["agent_exit"] == "timeout"
    assert r["timings"]["agent_sec"] < 3 + 5
    assert r["status"] == "resolved", r["reason"]


def test_an_unresolved_trial_says_the_agent_ran_out_of_time(jobs):
    # before: only "tests not passing: ..."; that the agent never finished was in agent_exit alone
    r = run_one(TALLY, agent("idle.sh"), jobs, "--agent-timeout", "2")
    assert (r["status"], r["agent_exit"]) == ("unresolved", "timeout"), r
    assert r["reason"].startswith("tests not passing") and r["reason"].endswith("; the agent ran out of time")
    # each phase's start and end (issue 27), in the order the trial ran them; no error: it ran to the end
    phases = r["phases"]
    assert list(phases) == ["environment", "agent", "capture", "grading"] and r["error"] is None, phases
    order = [t for p in phases.values() for t in (p["started_at"], p["finished_at"])]
    assert order == sorted(order) and r["started_at"] <= order[0] and order[-1] <= r["finished_at"], phases


def test_future_history_is_not_in_the_agent_sandbox(jobs):
    """The environment's setup clones a repository whose upstream fix is a later commit, then
    resets to the base. The harness removes refs and reflogs, but the fix's objects stay in
    .git/objects, and `git cat-file --batch-all-objects` finds them."""
    task = CORE_TASKS / "tally_history"
    assert run_one(task, "oracle", jobs / "oracle")["status"] == "resolved"
    r = run_one(task, agent("future_history.sh"), jobs / "cheat")
    report = patch_text(jobs / "cheat", r)
    assert "found the fix" not in report, report
    assert r["status"] == "unresolved"


def test_ctrl_c_loses_at_most_the_trials_in_flight(jobs, shared):
    root = shared / "tasks"
    root.mkdir()
    for name in ("t1", "t2", "t3"):
        derive_task(TALLY, root / name)
    args = ["run", "-p", str(root), "-a", agent("slow_fix_tally.sh"), "-n", "1", "-o", str(jobs), "--job-name", "j"]
    proc = subprocess.Popen([*lancebench_exe(), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    job = jobs / "j"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not list(job.glob("trials/*/result.json")):
            time.sleep(0.05)
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, out
    done = results(job)
    assert 1 <= len(done) < 3
    assert all(r["status"] == "resolved" for r in done), done  # nothing recorded as a failure by the interrupt
    lb(*args, check=True)
    rs = results(job)
    assert sorted(r["task"] for r in rs) == ["t1", "t2", "t3"]
    assert all(r["status"] == "resolved" for r in rs)


def test_environment_build_failure_is_invalid_and_named(jobs, shared):
    root = shared / "tasks"
    root.mkdir()
    derive_task(TALLY, root / "good")
    derive_task(TALLY, root / "failing_build",
                files={"environment/setup.sh": "#!/bin/bash\necho building\necho 'no compiler' >&2\nexit 7\n"})
    derive_task(TALLY, root / "dirty_build", files={"environment/setup.sh":
        "#!/bin/bash\nset -e\ncp -r /task-env/repo/. /app/\ncd /app\ngit init -q\n"
        "git -c user.name=a -c user.email=a@b add -A\ngit -c user.name=a -c user.email=a@b commit -qm base\n"
        "echo '# changed after the base commit' >> tally.py\n"})
    lb("run", "-p", root, "-a", "oracle", "-o", jobs, "--job-name", "j", check=True)
    rs = {r["task"]: r for r in results(jobs / "j")}
    assert rs["good"]["status"] == "resolved"
    assert rs["failing_build"]["status"] == "invalid"
    assert "failing_build/environment/setup.sh" in rs["failing_build"]["reason"]
    assert "exited 7" in rs["failing_build"]["reason"] and "no compiler" in rs["failing_build"]["reason"]
    assert rs["dirty_build"]["status"] == "invalid"
    assert "tracked files differ" in rs["dirty_build"]["reason"]


def test_the_same_task_given_twice_runs_once(jobs, shared):
    """`-p tasks -p tasks/tally` names tally twice: it must be one trial, not two trials with the
    same id racing for one folder (and counted twice in the run's summary)."""
    root = shared / "tasks"
    root.mkdir()
    derive_task(TALLY, root / "tally")
    derive_task(PICK, root / "pick")
    proc = lb("run", "-p", root, "-p", root / "tally", "-a", "nop", "-o", jobs, "--job-name", "j", check=True)
    run_summary = json.loads((jobs / "j" / "summary.json").read_text())
    assert len(results(jobs / "j")) == 2
    assert run_summary["trials"] == 2, (run_summary["trials"], proc.stdout[-2000:])


def test_reusing_a_job_name_with_another_agent_does_not_mix_agents(jobs):
    """job.json records the agent the job was started with; a second run with another agent and
    the same --job-name silently adds its trials to the same job, and `show` mixes both agents
    as attempts of one (pass@1 0.5 from nop + oracle). It should refuse (or use another folder)."""
    lb("run", "-p", PICK, "-a", "nop", "-o", jobs, "--job-name", "j", check=True)
    proc = lb("run", "-p", PICK, "-a", "oracle", "-o", jobs, "--job-name", "j")
    agents = {r["agent"] for r in results(jobs / "j")}
    assert proc.returncode != 0 or agents == {"nop"} or len(agents) == 1, (proc.returncode, agents)


def test_agent_output_that_looks_like_a_bwrap_error_does_not_make_the_trial_invalid(jobs):
    """LocalSandbox.exec raises SandboxError when a failed command's stderr starts with "bwrap:",
    whoever printed it: an agent (or any command an LLM agent runs) can make its trial invalid."""
    r = run_one(TALLY, agent("bwrap_message.sh"), jobs)
    assert r["status"] == "resolved", (r["status"], r["reason"])


def test_verifier_output_that_looks_like_a_bwrap_error_does_not_make_the_trial_invalid(jobs, shared):
    """The same in grading: the code under test prints "bwrap: ..." to stderr and the verifier
    exits with the test runner's status (a common test.sh ending). The wrong patch must be
    `unresolved`, not an invalid trial that is excluded and retried."""
    test_sh = ("cd /app\nPYTHONPATH=/app /usr/bin/python3 /tests/run.py\nrc=$?\n"
               "if [ $rc -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; "
               "else echo 0 > /logs/verifier/reward.txt; fi\n"
               "exit $rc\n")
    task = derive_task(TALLY, shared / "tally", files={"tests/test.sh": test_sh})
    assert run_one(task, "oracle", jobs / "oracle")["status"] == "resolved"
    r = run_one(task, agent("bwrap_message_in_tests.sh"), jobs / "wrong")
    assert r["status"] == "unresolved", (r["status"], r["reason"])


def _high_water_kib(pid: int) -> int:
    """Process ``pid``'s peak resident memory so far (``VmHWM`` of ``/proc/PID/status``, KiB); 0
    once it has exited."""
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def test_huge_junit_report_from_the_code_under_test_keeps_the_harness_small(jobs):
    """The code under test can write anything into /logs/verifier. A 50 MB JUnit report (a million
    test cases) is copied out and parsed whole (ElementTree plus four ids per case): lancebench
    (55 MiB on a normal trial) peaks near 900 MiB, 2.4 GiB for 150 MB, so a few hundred MB from
    one wrong patch kills the whole job. Rewards are capped at 1 MB; the JUnit report needs a cap."""
    t0 = time.monotonic()
    proc = subprocess.Popen([*lancebench_exe(), "run", "-p", str(TALLY), "-a", agent("huge_junit.sh"), "-o", str(jobs)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # the harness process's own high-water mark (VmHWM), read until it exits: wait4's ru_maxrss is
    # the largest of it and every descendant it waited for, sandboxed test runners included (their
    # memory is the sandbox's limit's), which once read 665 MiB in CI, the harness's own being ~70
    peak_kib = 0
    while proc.poll() is None:
        peak_kib = max(peak_kib, _high_water_kib(proc.pid))
        time.sleep(0.01)
    took = time.monotonic() - t0
    peak_mib = peak_kib / 1024
    assert 20 < peak_mib, peak_mib  # it was read (a Python process with lancebench imported)
    assert proc.returncode == 0
    (r,) = results(next(jobs.iterdir()))
    assert r["status"] == "unresolved"
    assert peak_mib < 500, f"lancebench peaked at {peak_mib:.0f} MiB ({took:.0f}s)"

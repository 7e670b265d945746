"""Jobs: kill -9 in the middle then resume; rerun keeps finished trials; --retry-invalid; a changed
task makes a new trial; unrelated option changes (concurrency, attempts) don't block a resume."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
import uuid

import pytest
from lbtest import CORE_TASKS, TASKS, agent, derive_task, lancebench_exe, lb, procs_with, results, show_json

TALLY = CORE_TASKS / "tally"

pytestmark = pytest.mark.slow


def make_tasks(shared, names, token=None):
    root = shared / "tasks"
    root.mkdir()
    for name in names:
        derive_task(TALLY, root / name, append_instruction=f"TOKEN={token}" if token else None)
    return root


def index_rows(job):
    """The results index's rows (id, size, mtime, result), read with sqlite3 (no lancebench read)."""
    with sqlite3.connect(job / "index.sqlite") as db:
        rows = db.execute("SELECT trial_id, size, mtime_ns, data FROM trials").fetchall()
    return {tid: (size, mtime, json.loads(data)) for tid, size, mtime, data in rows}


def files_as_rows(job):
    """The recorded trials' files as the index should hold them: id, size, mtime, the result."""
    out = {}
    for path in job.glob("trials/*/result.json"):
        st = path.stat()
        out[path.parent.name] = (st.st_size, st.st_mtime_ns, json.loads(path.read_text()))
    return out


def test_kill_9_mid_job_then_resume_records_every_trial_once(jobs, shared):
    token = uuid.uuid4().hex[:12]
    tasks = make_tasks(shared, ["t1", "t2", "t3", "t4"], token)
    script = shared / "slow_agent.sh"
    # The slow agent names its sleep after the token, so survivors of the kill can be found.
    script.write_text(f"#!/bin/bash\nbash -c 'exec -a lbslow-{token} sleep 4'\n"
                      "sed -i 's/return sum(xs) - 1/return sum(xs)/' tally.py\n")
    args = ["run", "-p", str(tasks), "-a", f"script:{script}", "-n", "1", "-o", str(jobs), "--job-name", "kill"]
    proc = subprocess.Popen([*lancebench_exe(), *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    job = jobs / "kill"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and not list(job.glob("trials/*/result.json")):
            assert proc.poll() is None, "the job ended before it could be killed"
            time.sleep(0.05)
        while time.monotonic() < deadline and not procs_with(f"lbslow-{token}"):  # the second trial's agent runs
            assert proc.poll() is None, "the job ended before it could be killed"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    first = {p.parent.name: json.loads(p.read_text()) for p in job.glob("trials/*/result.json")}
    assert 1 <= len(first) < 4, first.keys()
    unfinished = [d for d in (job / "trials").iterdir() if not (d / "result.json").exists()]
    assert unfinished, "no trial was in flight when the job was killed"
    time.sleep(1.0)
    assert procs_with(f"lbslow-{token}") == [], "an agent process survived kill -9 of the job"
    assert index_rows(job) == files_as_rows(job), "a recorded trial is missing from the results index"

    lb(*args, check=True)
    rs = results(job)
    assert len(rs) == 4
    assert sorted(r["task"] for r in rs) == ["t1", "t2", "t3", "t4"]
    assert len({r["trial_id"] for r in rs}) == 4
    assert sorted(d.name for d in (job / "trials").iterdir()) == sorted(r["trial_id"] for r in rs)
    assert all(r["status"] == "resolved" for r in rs), [(r["task"], r["status"], r["reason"]) for r in rs]
    for tid, old in first.items():  # finished trials were not redone
        new = json.loads((job / "trials" / tid / "result.json").read_text())
        assert new == old
    summary = show_json(job)
    assert (summary["trials"], summary["resolved"]) == (4, 4)


def test_rerun_keeps_finished_trials_and_ignores_unrelated_options(jobs):
    args = ["run", "-p", TASKS / "calc", "-p", TASKS / "pick", "-a", "nop", "-o", jobs, "--job-name", "j"]
    lb(*args, check=True)
    job = jobs / "j"
    before = {r["trial_id"]: r for r in results(job)}
    assert len(before) == 2
    time.sleep(1.1)  # finished_at has one-second resolution
    # Same trials, other concurrency: nothing reruns.
    lb(*args, "-n", "2", check=True)
    after = {r["trial_id"]: r for r in results(job)}
    assert after == before
    # Another agent timeout is another configuration: refused, naming the difference, nothing written.
    proc = lb(*args, "--agent-timeout", "77")
    assert proc.returncode == 2 and "agent_timeout_sec: (unset) -> 77.0" in proc.stderr, proc.stderr
    assert {r["trial_id"]: r for r in results(job)} == before
    # More attempts: attempt 0 is kept, attempt 1 is added.
    lb(*args, "-k", "2", check=True)
    more = {r["trial_id"]: r for r in results(job)}
    assert len(more) == 4
    for tid, r in before.items():
        assert more[tid] == r
    assert sorted((r["task"], r["attempt"]) for r in more.values()) == [("calc", 0), ("calc", 1),
                                                                         ("pick", 0), ("pick", 1)]


def test_retry_invalid_reruns_only_invalid_trials(jobs, shared):
    # An infrastructure failure: lancebench's home (environments, scratch) sits under a folder the
    # sandbox user cannot enter, so the sandboxes cannot start and the trial is invalid. Fixing the
    # folder changes nothing in the trial's identity (task digest, agent, model, attempt).
    private = shared / "private"
    private.mkdir()
    os.chmod(private, 0o700)
    env = {"LANCEBENCH_HOME": str(private / "home")}
    args = ["run", "-p", TALLY, "-a", "oracle", "-o", jobs, "--job-name", "j"]
    lb(*args, env=env, check=True)
    job = jobs / "j"
    (r1,) = results(job)
    assert r1["status"] == "invalid", (r1["status"], r1["reason"])
    assert "reachable" in r1["reason"]

    os.chmod(private, 0o755)
    time.sleep(1.1)
    lb(*args, env=env, check=True)  # without --retry-invalid: kept as it is
    (r2,) = results(job)
    assert r2 == r1

    lb(*args, "--retry-invalid", env=env, check=True)
    (r3,) = results(job)
    assert r3["status"] == "resolved", r3["reason"]
    assert r3["trial_id"] == r1["trial_id"]

    time.sleep(1.1)
    lb(*args, "--retry-invalid", env=env, check=True)  # a valid trial is not redone by --retry-invalid
    (r4,) = results(job)
    assert r4 == r3


def test_changed_task_makes_a_new_trial(jobs, shared):
    task = derive_task(TALLY, shared / "tally")
    args = ["run", "-p", task, "-a", "nop", "-o", jobs, "--job-name", "j"]
    lb(*args, check=True)
    job = jobs / "j"
    (old,) = results(job)
    with open(task / "instruction.md", "a") as fh:
        fh.write("\nOne more sentence.\n")
    lb(*args, check=True)
    ids = {r["trial_id"] for r in results(job)}
    assert old["trial_id"] in ids and len(ids) == 2
    new = next(r for r in results(job) if r["trial_id"] != old["trial_id"])
    assert new["task_digest"] != old["task_digest"]
    assert new["status"] == "unresolved"


def test_show_after_a_task_change_agrees_with_the_run(jobs, shared):
    """After a task changed, the run's own summary (summary.json, the final table) counts the
    current trial only, but `lancebench show` reads every trial folder and counts the superseded
    trial too: one task becomes two tasks and its price is counted twice."""
    task = derive_task(TALLY, shared / "tally")
    args = ["run", "-p", task, "-a", "nop", "-o", jobs, "--job-name", "j"]
    lb(*args, check=True)
    with open(task / "instruction.md", "a") as fh:
        fh.write("\nOne more sentence.\n")
    lb(*args, check=True)
    job = jobs / "j"
    run_summary = json.loads((job / "summary.json").read_text())
    shown = show_json(job)
    assert (run_summary["trials"], run_summary["available_usd"]) == (1, 200)
    assert (shown["tasks"], shown["trials"], shown["available_usd"]) == (1, 1, 200), \
        {k: shown[k] for k in ("tasks", "trials", "available_usd")}


# a verifier run's reward in its host folder: scratch/<job>/<trial>/<random name of the run>/logs/
GRADING_REWARD = "scratch/*/*/" + "[0-9a-f]" * 16 + "/logs/reward.txt"


def test_rerun_after_kill_during_grading_starts_from_clean_scratch(jobs, shared):
    """kill -9 while the verifier runs leaves the trial's scratch folder (agent $HOME, /tmp and
    the grading sandbox's /logs/verifier) behind, and the rerun of the same trial reuses it: the
    new agent sees the old agent's files, and the new grading reads the old run's reward and JUnit
    when its own verifier writes none. Here the rerun's patch breaks tally (its verifier stops
    before writing anything), yet the stale reward 1 and passing JUnit of the killed run make it
    `resolved`."""
    home = shared / "home"
    home.mkdir()
    os.chmod(home, 0o755)
    env = {"LANCEBENCH_HOME": str(home)}
    test_sh = ("set -e\ncd /app\nPYTHONPATH=/app /usr/bin/python3 -c 'import tally'\n"
               + (TALLY / "tests" / "test.sh").read_text() + "sleep 20\n")
    task = derive_task(TALLY, shared / "tally", files={"tests/test.sh": test_sh})
    args = ["run", "-p", str(task), "-a", agent("fix_once_then_break.sh"), "-o", str(jobs), "--job-name", "j"]
    proc = subprocess.Popen([*lancebench_exe(), *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, env=dict(os.environ, **env))
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not list(home.glob(GRADING_REWARD)):
            assert proc.poll() is None, "the job ended before grading could be interrupted"
            time.sleep(0.05)
        assert list(home.glob(GRADING_REWARD)), "grading never wrote its reward"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert results(jobs / "j") == []
    lb(*args, env=env, check=True, timeout=300)
    (r,) = results(jobs / "j")
    patch = (jobs / "j" / "trials" / r["trial_id"] / "patch.diff").read_text()
    # With a clean scratch the rerun's agent finds no note, so it fixes tally again and its own
    # grading resolves it; had it seen the killed run's $HOME it would have broken tally, and only
    # the killed run's stale reward could then have made it `resolved`.
    assert "saw_note.txt" not in patch, "the rerun's agent saw the killed run's $HOME"
    assert "broken on purpose" not in patch
    assert (r["status"], r["rewards"]["reward"]) == ("resolved", 1.0)


def test_running_inside_a_task_folder_is_refused_with_the_fix(shared):
    """`cd TASK && lancebench run -p . -a nop` would write the default jobs/ folder inside the task
    folder; the task's content digest covers every file under it, so no run would ever resume.
    The run is refused before anything is written, and the message says to pass -o."""
    task = derive_task(TALLY, shared / "tally")
    proc = subprocess.run([*lancebench_exe(), "run", "-p", ".", "-a", "nop", "--job-name", "j"], cwd=task,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "inside the task folder" in proc.stderr and "-o" in proc.stderr
    assert not (task / "jobs").exists()
    proc = subprocess.run([*lancebench_exe(), "run", "-p", ".", "-a", "nop", "-o", str(shared / "jobs-outside")],
                          cwd=task, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]

"""The order of one task's verifier runs across trials and jobs (grading/run_order.py; docs/security.md,
"Runs of one task across trials"): turns taken in this process's event loop, real ``flock``s held by
a second process (killed with ``SIGKILL`` to show a crashed holder blocks no one), and a real local
grading sandbox whose wait for its turn is longer than its verifier's timeout."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))  # lbtest: the CLI helpers

from lbtest import lb, results  # noqa: E402

from lancebench.backends.local import LocalBackend
from lancebench.grading.run_order import RunKind, Turn, order_dir
from lancebench.grading.verifier import grade_once
from lancebench.sandbox.fstree import remove_tree
from lancebench.task.load import load_task

SRC = Path(__file__).resolve().parents[2] / "src"
CALC = Path(__file__).resolve().parents[1] / "fixtures" / "tasks" / "calc"
FIX = ("diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,5 +1,5 @@\n"
       " def add(a, b):\n-    return a - b\n+    return a + b\n \n \n def mul(a, b):\n")

HOLDER = """
import asyncio, sys
from lancebench.grading.run_order import RunKind, Turn, order_dir

async def main():
    turn = Turn(sys.argv[1])
    await turn.take(sys.argv[2])
    print("held", flush=True)
    await asyncio.sleep(float(sys.argv[3]))
    turn.give_back()

asyncio.run(main())
"""


def _task() -> str:
    """A task name no other run on this host uses."""
    return f"run-order-test-{uuid.uuid4().hex}"


def _holder(task: str, kind: str, sec: float) -> subprocess.Popen:
    """Another process holding a ``kind`` turn of ``task`` for ``sec`` seconds (once it says so)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, task, kind, str(sec)], stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(SRC)))
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


async def _run(task: str, name: str, kind: RunKind, sec: float, log: list[tuple[float, str, str]]) -> None:
    """Take a ``kind`` turn of ``task``, log (time, start|end, name) around ``sec`` seconds of "tests"."""
    turn = Turn(task)
    try:
        await turn.take(kind)
        log.append((time.monotonic(), "start", name))
        await asyncio.sleep(sec)
        log.append((time.monotonic(), "end", name))
    finally:
        turn.give_back()


class _Log(list[tuple[float, str, str]]):
    """(time, start|end, run name) of each run's "tests", in time order."""


def _intervals(log: list[tuple[float, str, str]]) -> dict[str, tuple[float, float]]:
    starts = {name: t for t, what, name in log if what == "start"}
    return {name: (starts[name], t) for t, what, name in log if what == "end"}


def test_graded_runs_share_a_turn_and_a_canary_run_runs_alone():
    task, log = _task(), _Log()
    plan: list[tuple[str, RunKind]] = [("g1", "graded"), ("g2", "graded"), ("c1", "canary"), ("g3", "graded"),
                                       ("c2", "canary")]

    async def go():
        runs = []
        for name, kind in plan:
            runs.append(asyncio.ensure_future(_run(task, name, kind, 0.3, log)))
            await asyncio.sleep(0.02)  # asked in this order
        other = asyncio.ensure_future(_run(_task(), "other", "canary", 0.1, log))  # another task: no wait
        await asyncio.gather(*runs, other)

    asyncio.run(go())
    spans = _intervals(log)
    assert [name for _, what, name in log if what == "start" and name != "other"] == ["g1", "g2", "c1", "g3", "c2"]
    assert spans["g2"][0] < spans["g1"][1]  # the graded runs ran at the same time
    assert spans["other"][0] < spans["g1"][1]  # another task's canary run did not wait for this task's runs
    for canary in ("c1", "c2"):
        start, end = spans[canary]
        overlapping = [n for n, (s, e) in spans.items() if n not in (canary, "other") and s < end and start < e]
        assert overlapping == [], (canary, overlapping, spans)


def test_a_cancelled_wait_lets_the_runs_behind_it_have_their_turn():
    task, log = _task(), _Log()

    async def go():
        first = asyncio.ensure_future(_run(task, "g1", "graded", 0.3, log))
        await asyncio.sleep(0.02)
        canary = asyncio.ensure_future(_run(task, "c1", "canary", 0.1, log))
        await asyncio.sleep(0.02)
        behind = asyncio.ensure_future(_run(task, "g2", "graded", 0.1, log))
        await asyncio.sleep(0.05)
        canary.cancel()  # its trial ended while it waited
        await asyncio.gather(first, behind, canary, return_exceptions=True)

    asyncio.run(go())
    spans = _intervals(log)
    assert set(spans) == {"g1", "g2"}
    assert spans["g2"][0] < spans["g1"][1]  # no longer behind a canary run: it joined g1


def test_turns_hold_across_processes_and_a_killed_holder_blocks_no_one():
    task = _task()
    graded = _holder(task, "graded", 60)  # another job's graded run

    async def go() -> tuple[float, bool, float]:
        t0 = time.monotonic()
        mine = Turn(task)
        await asyncio.wait_for(mine.take("graded"), 5)  # graded runs of two processes share the turn
        shared = time.monotonic() - t0
        mine.give_back()
        canary = Turn(task)
        waiting = asyncio.ensure_future(canary.take("canary"))
        await asyncio.sleep(1.0)
        blocked = not waiting.done()
        graded.kill()  # SIGKILL: the holder never gives its turn back; its flock ends with it
        t1 = time.monotonic()
        await asyncio.wait_for(waiting, 10)
        canary.give_back()
        return shared, blocked, time.monotonic() - t1

    try:
        shared, blocked, after_kill = asyncio.run(go())
    finally:
        graded.kill()
        graded.wait()
    assert shared < 2.0 and blocked and after_kill < 5.0, (shared, blocked, after_kill)

    canary = _holder(task, "canary", 1.5)  # another job's canary run, which gives its turn back
    t0 = time.monotonic()

    async def graded_after() -> float:
        mine = Turn(task)
        await mine.take("graded")
        mine.give_back()
        return mine.waited_sec

    waited = asyncio.run(graded_after())
    assert canary.wait(10) == 0
    assert 1.0 < waited <= time.monotonic() - t0 + 0.01, waited


@pytest.mark.slow
def test_a_wait_for_the_turn_is_not_the_runs_time():
    """A graded run that waits longer for its turn than its verifier's timeout (another job's
    canary run of the task holds it) still passes: the timeout counts only ``tests/test.sh``."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    work = Path(tempfile.mkdtemp(prefix="lancebench-order-", dir="/var/tmp"))
    os.chmod(work, 0o755)
    try:
        task_dir = work / _task()
        shutil.copytree(CALC, task_dir)
        toml = (task_dir / "task.toml").read_text()
        toml = toml.replace("[verifier]\ntimeout_sec = 120", "[verifier]\ntimeout_sec = 5")
        (task_dir / "task.toml").write_text(toml)
        task = load_task(task_dir)
        assert task.config.verifier.timeout_sec == 5
        box = LocalBackend()

        async def go():
            env = await box.prepare(task)
            holder = _holder(task.name, "canary", 9)
            t0 = time.monotonic()
            applied, run = await grade_once(task, box, env, FIX, work / "scratch", work / "out")
            return holder, time.monotonic() - t0, applied, run

        holder, took, applied, run = asyncio.run(go())
        assert holder.wait(10) == 0
        assert (applied, run.passed, run.broken) == (True, True, False), run
        assert took > 9  # it waited for the other run's turn
        log = (work / "out" / "test.log").read_text()
        assert log.startswith("exit code: 0 timed out: False"), log[:200]
        waited = float(log.splitlines()[1].removeprefix("waited ").partition("s for its turn")[0])
        assert 5 < waited < took, (waited, took)  # recorded beside the run's own time
    finally:
        remove_tree(work)


def test_a_lock_file_the_harness_cannot_open_makes_the_trial_invalid_with_its_control(tmp_path):
    """The order's lock file of a task cannot be opened (a folder stands at its name, made by the
    test on the host: no sandbox sees the order's folder): the oracle's trial is ``invalid`` with
    the control that showed it, never the agent's failure. Before the fix the pristine control of
    ``runner/control.py`` (a base run takes no turn) worked, and the oracle was ``unresolved``."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    task_dir = tmp_path / _task()
    shutil.copytree(CALC, task_dir)
    blocker = order_dir() / hashlib.sha256(task_dir.name.encode()).hexdigest()[:32]
    blocker.mkdir()
    try:
        lb("run", "-p", task_dir, "-a", "oracle", "-o", tmp_path / "jobs", "--job-name", "j", timeout=300)
    finally:
        blocker.rmdir()
    [r] = results(tmp_path / "jobs" / "j")
    assert (r["status"], r["error"]["kind"], r["error"]["where"]) == ("invalid", "TrialInvalid", "grading"), r
    assert r["error"]["message"] == f"SandboxError: cannot open {blocker} (the order of a task's verifier runs): " \
                                    f"[Errno 21] Is a directory: '{blocker}'"
    assert r["control"] == ("the run order's lock folder is on the host, in no sandbox (no agent code reaches it); "
                            "a lock file of a name no task has, made there by the control, worked: this task's file "
                            "is broken")

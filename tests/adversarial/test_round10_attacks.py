"""Attack pass round 10 (docs/security.md, "Attack pass round 10"): grading begun during the
capture (``runner/steps.py:_grade_early``), the canary run started beside the graded run
(``grading/verifier.py:_beside_canary``) and the capture's failure control
(``backends/capture.py:controlled``).

1. ``compare_runs_by_lock``: the canary run ran its tests at the same time as the graded run, and
   the two could talk: both see one host file (``/usr/bin/env``: the host's ``/usr``, bound
   read-only), and POSIX record locks are kept per file across every namespace and uid. Code under
   test read-locks one byte per hidden test body it holds and asks (``F_GETLK``) which of them
   another process holds too: the canary run learns which of its test functions the graded run
   lacks (the canaries, whatever their names) and reports exactly those failed, the rest passed;
   the graded run reports everything passed. ``resolved`` with ``calc.add`` still broken (local;
   on docker the shared file is the guard's ``.pth``, bound into every grading container). A blanket
   forgery cannot tell a canary from its original by itself (``grading/canary.py``); beside the
   graded run it could ask it. Fixed: the canary run opens, starts and applies the patch beside
   the graded run, and runs its tests only once the graded run's sandbox has stopped.
2. The canary run's code ran beside the base run: the skipped-P2P control graded the untouched
   base while the canary run started beside the graded run still ran its tests. Fixed: the base
   run waits for every canary run beside the graded run (``Grading.beside``).
3. Grading begun during the capture left an empty ``verifier/`` in a trial that was never graded
   (a failed capture, a scan decision). Fixed: removed when no run was given the patch.
4. ``compare_trials_by_lock`` (round 10's open item): two trials of the same task graded at the same
   time (``-k 2 -n 2``) asked each other the same way, one attempt's canary run the other's graded
   run (or canary run): ``resolved`` with ``calc.add`` still broken. Fixed: the runs of one task
   are ordered across trials and jobs on this host (``grading/run_order.py``).
"""

from __future__ import annotations

import asyncio
import base64
import os
import re
import shutil
import threading
import time
from pathlib import Path

import pytest
from lbtest import derive_task, job_dir, lb, results
from verify_calc import calc_on, patch_of, verify

from lancebench.backends.local import LocalBackend
from lancebench.grading.verifier import verify_patch
from lancebench.results.paths import TrialPaths
from lancebench.task.load import load_task

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tasks"
AGENTS = Path(__file__).resolve().parent / "agents"


def test_the_canary_run_cannot_ask_the_graded_run_which_tests_it_holds(shared: Path, backend: str, monkeypatch):
    task, box = calc_on(backend, shared, monkeypatch)
    attack = (AGENTS / "compare_runs_by_lock.py").read_text()
    patch = patch_of(task.paths.root / "environment" / "repo", {"calc.py": attack}, shared)
    assert "return a - b" in patch  # calc.add stays broken
    verdict = verify(task, box, backend, patch, shared)
    assert verdict.status == "unresolved", (verdict.status, verdict.reason)
    assert "forged verdict (canary)" in (verdict.reason or ""), verdict.reason


def test_grading_begun_before_a_scan_decision_or_a_failed_capture_leaves_no_verifier_folder(shared: Path,
                                                                                            backend: str,
                                                                                            monkeypatch):
    """Grading begun during the capture (``verify_patch`` given a future) opens the graded and the
    canary run's sandboxes; a patch the scan decides, or a capture that fails (the grading
    cancelled), ends them: nothing of them stays in the trial's folder, not even an empty
    ``verifier/`` (found: it stayed, a trial that was never graded looked graded)."""
    task, box = calc_on(backend, shared, monkeypatch)
    repo = task.paths.root / "environment" / "repo"
    flagged = patch_of(repo, {"calc.py": "import os\nos._exit(0)\n" + (repo / "calc.py").read_text()}, shared)

    async def go():
        env = await box.prepare(task)
        scanned, failed = asyncio.get_running_loop().create_future(), asyncio.get_running_loop().create_future()
        by_scan = asyncio.ensure_future(verify_patch(task, box, env, scanned, scratch=shared / "s1",
                                                     paths=TrialPaths(root=shared / "t1")))
        by_capture = asyncio.ensure_future(verify_patch(task, box, env, failed, scratch=shared / "s2",
                                                        paths=TrialPaths(root=shared / "t2")))
        for _ in range(200):  # both runs' sandboxes opened (their folders made) before the patch is known
            if (shared / "t1" / "verifier").is_dir() and (shared / "t2" / "verifier").is_dir():
                break
            await asyncio.sleep(0.05)
        scanned.set_result(flagged)
        by_capture.cancel()  # the capture failed: run_steps cancels the grading
        verdict = await by_scan
        await asyncio.gather(by_capture, return_exceptions=True)
        return verdict

    verdict = asyncio.run(go())
    assert (verdict.status, verdict.runs, verdict.rewards) == ("unresolved", (), {"reward": 0.0}), verdict
    assert "_exit" in (verdict.reason or ""), verdict.reason  # the scan's finding
    assert not (shared / "t1" / "verifier").exists()
    assert not (shared / "t2" / "verifier").exists()


SKIPS_MUL = '''def add(a, b):
    return a + b


def mul(a, b):
    import unittest
    raise unittest.SkipTest("not today")
'''


def _test_runs_at_once(folder: Path, stop: threading.Event, most: list[int]) -> None:
    """Until ``stop``: the most ``tests/test.sh`` commands seen at once among this host's processes
    whose command line names ``folder`` (the sandboxes' host folders), into ``most[0]``."""
    runs = re.compile(re.escape(str(folder).encode()) + rb"/([0-9a-f]{16})/")
    while not stop.is_set():
        seen = set()  # the runs' folders (bubblewrap is two processes per command: count runs, not processes)
        for pid in os.listdir("/proc"):
            try:
                line = Path(f"/proc/{pid}/cmdline").read_bytes() if pid.isdigit() else b""
            except OSError:
                continue
            if line.startswith(b"bwrap") and b"/tests/test.sh" in line:
                seen |= set(runs.findall(line))
        most[0] = max(most[0], len(seen))
        time.sleep(0.01)


def test_no_code_of_the_patch_runs_beside_another_run_or_the_base(shared: Path, monkeypatch):
    """The verifier runs of one graded work run their tests one at a time: the canary run beside
    the graded run waits for it (``compare_runs_by_lock``), and the base run (a control) waits
    for the canary run, whose code under test could otherwise use up what the two share and
    make the control fail. Here ``calc.mul`` skips its P2P test, so the skipped-P2P control grades
    the base while the canary run started beside the graded run is live (found: both ran their
    tests at once). Local backend (the commands are this host's processes)."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    monkeypatch.setenv("LANCEBENCH_HOME", str(shared / "home"))
    task = load_task(FIXTURES / "calc")
    box = LocalBackend()
    patch = patch_of(task.paths.root / "environment" / "repo", {"calc.py": SKIPS_MUL}, shared)
    stop, most = threading.Event(), [0]
    watch = threading.Thread(target=_test_runs_at_once, args=(shared / "scratch", stop, most), daemon=True)

    async def go():
        env = await box.prepare(task)
        watch.start()
        try:
            return await verify_patch(task, box, env, patch, scratch=shared / "scratch",
                                      paths=TrialPaths(root=shared / "trial"))
        finally:
            stop.set()

    verdict = asyncio.run(go())
    watch.join()
    assert verdict.status == "unresolved" and "skipped with the patch" in (verdict.reason or ""), verdict
    assert (shared / "trial" / "verifier" / "base" / "test.log").is_file()  # the base was graded
    assert most[0] == 1, most


ADD_PAIRS = [("record-", "locks"), ("hidden ", "test bodies"), ("canary ", "copies"), ("graded", " runs"),
             ("flock ", "under run"), ("two ", "attempts at once"), ("shared ", "host file"),
             ("pass at ", "k jobs"), ("bubble", "wrap sandboxes"), ("the guard ", "dot pth")]
# ten F2P tests whose texts a canary changes in many ways, so that two attempts' canaries are
# almost never the same copy
MANY_TESTS = "import calc\n" + "".join(
    f"\n\ndef test_add_{i}():\n    assert calc.add({a!r}, {b!r}) == {a + b!r}\n" for i, (a, b) in enumerate(ADD_PAIRS)
) + "\n\ndef test_mul():\n    assert calc.mul(4, 5) == 20\n"


@pytest.mark.slow
def test_a_canary_run_cannot_ask_another_trials_runs_which_tests_they_hold(jobs, shared: Path, backend: str):
    """Round 10's open item: ``-k 2 -n 2`` grades two attempts of one task at the same time, and
    each attempt's canary run could ask the other attempt's graded run or canary run which hidden
    test bodies it holds (``compare_trials_by_lock.py``: record locks on a host file both see): the
    functions it lacks are its canaries, so the attempts were ``resolved`` with ``calc.add``
    broken (unless the two attempts' canaries happened to include the same copy: the task has ten
    F2P tests whose texts a canary changes in many ways). Through the real CLI and runner
    (grading begun during the capture, both trials in one process)."""
    attack = (AGENTS / "compare_trials_by_lock.py").read_text()
    script = f"cat > calc.py <<'PY'\n{attack}\nPY\n"
    f2p = ", ".join(f'"test_calc::test_add_{i}"' for i in range(len(ADD_PAIRS)))
    task = derive_task(FIXTURES / "calc", shared / "calc", toml={r"^f2p = .*$": f"f2p = [{f2p}]"},
                       files={"tests/test_calc.py": MANY_TESTS},
                       append_instruction="ATTACK_B64=" + base64.b64encode(script.encode()).decode())
    lb("run", "-p", task, "-a", f"script:{AGENTS / 'run_embedded.sh'}", "-o", jobs, "--backend", backend,
       "-k", "2", "-n", "2", check=True, timeout=600)
    got = [(r["status"], r["reason"]) for r in results(job_dir(jobs))]
    assert len(got) == 2 and all(status == "unresolved" and "forged verdict (canary)" in (reason or "")
                                 for status, reason in got), got

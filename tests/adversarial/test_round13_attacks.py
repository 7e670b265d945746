"""Attack pass round 13 (docs/security.md, "Attack pass round 13"): the report witness's settle
(``grading/witness.py:ReportWitness.runner_ended``), the order of runs across trials
(``grading/run_order.py``), the docker capture's member check (``backends/docker_hosttools.py``),
results written in worker threads (``runner/trial.py:_record``, ``results/index.py:_Writers``).

1. ``round13_report_bombs.py`` (code under test, written as ``calc.py``): what it writes into the
   report's FIFO is kept by the witness (up to 8 writes of 20 MB) and parsed in the harness. A
   report whose document type declares an entity was expanded by expat up to 100 times its size
   (a 20 MB write: 1.9 GB of text, 4.2 GB of the harness's memory, 6 s holding the interpreter);
   fixed: a report with a document type is not read (``junit.refuse_dtd``), the write is not
   well-formed and the run broken. Eight plain writes of 20 MB cost 57 s of parsing in the event
   loop, where every other trial of the process stood still; fixed: the witnessed writes are
   judged in a worker thread (``verifier._judged``).
2. ``round13_steal_report.py`` (code under test): a daemon it leaves opens the FIFO for reading
   too and races the witness for the runner's report, then writes it back without its failures
   (the graded run passed; only the canary run caught it). Fixed on the local backend (the FIFO is
   the harness's, 0622, when ``tests/test.sh`` starts: ``ReportWitness.seal``); open on docker,
   where the test runs as root in the container (a strict xfail).
3. ``round13_drop_the_runners_report.py`` (code under test): 8 forged reports written before the
   runner's, a forged one of exactly 20 MB holding the read session the runner's then joins, or 8
   small ones in a held session: the witness kept the forgeries and counted or split the runner's
   report away. Fixed: more writes or bytes than the witness keeps break the run; a session's
   documents past the 8th are read too.
4. ``test_the_witness_keeps_each_write_once``: a one-document write was kept twice in the job folder.
5. ``round13_rewrite_reward.py`` (code under test, on ``calc`` graded by a shell check's reward
   alone): a daemon it leaves writes 1 over test.sh's 0 before the logs are copied: ``resolved``
   with ``calc.add`` broken on both backends. Open (an xfail, not strict: a race): nothing witnesses the reward.
6. Held: the agent's sandbox finds neither the run order's lock folder nor the harness's lock in
   ``/proc/locks`` while the harness holds a canary turn of its task.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from verify_calc import calc_on, patch_of, verify

from lancebench.errors import LancebenchError
from lancebench.grading import witness as witness_module
from lancebench.grading.junit import parse_junit
from lancebench.grading.witness import unreadable

AGENTS = Path(__file__).resolve().parent / "agents"
BOMBS = AGENTS / "round13_report_bombs.py"


def _bomb(uses: int) -> bytes:
    return ('<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "' + "A" * 290 + '">]><testsuites><testsuite>'
            '<testcase classname="test_calc" name="test_add"><system-out>' + "&a;" * uses
            + '</system-out></testcase></testsuite></testsuites>').encode()


def test_a_report_that_declares_entities_is_not_expanded(tmp_path: Path):
    data = _bomb(30_000)  # 90 KB that expat would expand to 8.7 MB of text (20 MB: 1.9 GB)
    (tmp_path / "junit.xml").write_bytes(data)
    with pytest.raises(LancebenchError, match="document type"):
        parse_junit(tmp_path / "junit.xml")
    plain = b'<?xml version="1.0"?><testsuites><testsuite><testcase classname="c" name="t"/></testsuite></testsuites>'
    # the witness's writes: alone, after a plain report in one session, in UTF-16
    assert unreadable([data, plain, plain + data, data.decode().encode("utf-16")]) == [1, 3, 4]
    # a session of 8 documents and then more: the rest was left unread (the runner's report)
    assert unreadable([plain * 8, plain * 9, plain * 10]) == [3]


def test_the_code_under_tests_reports_are_neither_expanded_nor_parsed_in_the_event_loop(
        shared: Path, backend: str, monkeypatch):
    task, box = calc_on(backend, shared, monkeypatch)
    attack = BOMBS.read_text().replace("@BOMB@", "30000").replace("@PLAIN@", "2").replace("@PLAIN_MB@", "1")
    patch = patch_of(task.paths.root / "environment" / "repo", {"calc.py": attack}, shared)
    assert "return a - b" in patch  # calc.add stays broken
    in_loop: list[bool] = []
    merge = witness_module.merge_writes

    def watched(*args, **kwargs):  # the real merge, and the thread it ran in
        in_loop.append(threading.current_thread() is threading.main_thread())
        return merge(*args, **kwargs)

    monkeypatch.setattr(witness_module, "merge_writes", watched)
    verdict = verify(task, box, backend, patch, shared)
    assert verdict.status == "unresolved", (verdict.status, verdict.reason)
    assert "is not well-formed XML" in (verdict.reason or ""), verdict.reason  # the bomb: not read
    assert in_loop and not any(in_loop), in_loop  # asyncio.run's loop is this (the main) thread's


def test_the_code_under_test_cannot_read_the_runners_report_from_the_fifo(shared: Path, backend: str, monkeypatch,
                                                                         request):
    # open on both backends (docs/security.md, round 13): the sandbox uid may read the report's FIFO,
    # since a runner may open its report read-write (gotestsum: Go's os.Create), and root in a
    # container reads any file; the canary run is what catches the forgery that follows
    request.applymarker(pytest.mark.xfail(strict=True, reason="open (docs/security.md, round 13): a second "
                                          "reader of the report's FIFO in the sandbox"))
    task, box = calc_on(backend, shared, monkeypatch)
    attack = (AGENTS / "round13_steal_report.py").read_text()
    patch = patch_of(task.paths.root / "environment" / "repo", {"calc.py": attack}, shared)
    assert "return a - b" in patch  # calc.add stays broken
    verdict = verify(task, box, backend, patch, shared)
    assert verdict.status == "unresolved", (verdict.status, verdict.reason)
    graded = verdict.runs[0].report
    assert graded is not None, verdict
    probes = sorted(str(t) for t in graded.cases if str(t).startswith("probe::"))
    assert probes == ["probe::fifo_refused"], (probes, verdict.reason)
    assert graded.cases.get("test_calc::test_add") == "failed", (graded.cases, verdict.reason)


LOOK_FOR_THE_ORDER = r"""
found=""
for p in /run/lancebench-run-order /tmp/lancebench-run-order-* /var/tmp/lancebench-run-order-*; do
  [ -e "$p" ] && found="$found $p"
done
command -v grep >/dev/null && [ -r /proc/locks ] || found="$found (no grep or /proc/locks)"
grep -q ":$INODE " /proc/locks && found="$found /proc/locks:$INODE"
echo "found:$found"
"""


def test_the_agent_finds_no_lock_file_of_the_run_order(shared: Path, backend: str, monkeypatch):
    """Held: while the harness holds a canary run's turn of the agent's task (an exclusive flock),
    the agent's sandbox sees neither the lock folder nor the lock in ``/proc/locks``."""
    import asyncio
    import hashlib
    import os

    from lancebench.grading.run_order import Turn, order_dir

    task, box = calc_on(backend, shared, monkeypatch)

    async def body():
        env = await box.prepare(task)
        turn = Turn(task.name)
        await turn.take("canary")
        try:
            inode = os.stat(order_dir() / hashlib.sha256(task.name.encode()).hexdigest()[:32]).st_ino
            held = [line for line in Path("/proc/locks").read_text().splitlines() if f":{inode} " in line]
            assert held, inode  # the harness's flock, seen from here
            async with box.open(task, env, shared / "agent") as agent:
                res = await agent.exec(["sh", "-c", LOOK_FOR_THE_ORDER], env={"INODE": str(inode)})
        finally:
            turn.give_back()
        return res

    res = asyncio.run(body())
    assert res.stdout.strip() == "found:", (res.stdout, res.stderr)


def test_the_witness_keeps_each_write_once(tmp_path: Path):
    """Every witnessed write is kept in the job folder (``verifier/.../witness``); a write of one
    document was kept twice (the write and its one part), so the code under test's 8 writes of
    20 MB cost 320 MB of the job folder per run, beside the 256 MB of the logs' copy."""
    from lancebench.grading.witness import merge_writes

    one = b'<?xml version="1.0"?><testsuites><testsuite><testcase classname="c" name="t"/></testsuite></testsuites>'
    report, _ = merge_writes([one, one + one], None, tmp_path)
    assert report is not None and report.cases == {"c::t": "passed"}
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == ["junit.write-1.xml", "junit.write-2.1.xml", "junit.write-2.2.xml", "junit.write-2.xml"], kept


@pytest.mark.parametrize("mode", ["writes", "overflow", "session"])
def test_the_runners_report_is_never_dropped_for_the_code_under_tests_own(shared: Path, backend: str, monkeypatch,
                                                                          mode: str):
    task, box = calc_on(backend, shared, monkeypatch)
    attack = (AGENTS / "round13_drop_the_runners_report.py").read_text().replace("@MODE@", mode)
    patch = patch_of(task.paths.root / "environment" / "repo", {"calc.py": attack}, shared)
    assert "return a - b" in patch  # calc.add stays broken
    verdict = verify(task, box, backend, patch, shared)
    assert verdict.status == "unresolved", (verdict.status, verdict.reason)
    graded = verdict.runs[0]
    assert graded.report is not None, verdict
    seen = graded.report.cases.get("test_calc::test_add")
    assert graded.broken or seen == "failed", (seen, graded.reason)  # the runner's failure, or not trusted


SHELL_CHECK = """#!/bin/bash
cd /app
if python -c 'import calc; assert calc.add(2, 3) == 5 and calc.mul(4, 5) == 20'; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
"""


# not strict: the daemon races the harness's copy of the logs, and lost it once in 10 runs under load
@pytest.mark.xfail(strict=False, reason="open (docs/security.md, round 13): a process the code under test leaves "
                   "behind rewrites reward.txt after tests/test.sh wrote it, on a task graded by its reward alone")
def test_a_process_left_behind_cannot_rewrite_the_reward(shared: Path, backend: str, monkeypatch):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
    from lbtest import derive_task

    from lancebench.task.load import load_task

    calc, box = calc_on(backend, shared, monkeypatch)
    derived = derive_task(calc.paths.root, shared / "calc-shell-check", toml={r"^(f2p|p2p) = .*$": ""},
                          files={"tests/test.sh": SHELL_CHECK, "tests/test_calc.py": None})
    task = load_task(derived)
    attack = (AGENTS / "round13_rewrite_reward.py").read_text()
    patch = patch_of(task.paths.root / "environment" / "repo", {"calc.py": attack}, shared)
    assert "return a - b" in patch  # calc.add stays broken
    verdict = verify(task, box, backend, patch, shared)
    assert verdict.status == "unresolved", (verdict.status, verdict.reason)

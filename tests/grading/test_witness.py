"""The report witness (lancebench.grading.witness): every write to the FIFO, read by the harness
as it happens, judged with the worst outcome of each test. Writers are real processes."""

from __future__ import annotations

import subprocess
import sys

from lancebench.grading.junit import outcome_of
from lancebench.grading.witness import ReportWitness, documents, merge_writes, unreadable


def report(**outcomes: str) -> str:
    cases = "".join(f'<testcase classname="t" name="{n}">' + ("<failure/>" if o == "failed" else "") + "</testcase>"
                    for n, o in outcomes.items())
    return f'<?xml version="1.0"?><testsuites><testsuite name="s">{cases}</testsuite></testsuites>'


def write_in_child(path, *texts: str, together: bool = False) -> None:
    """A child process writes each text with its own open/write/close (or, ``together``, all
    through one open: two documents in one write)."""
    code = ("import sys\np, texts, together = sys.argv[1], sys.argv[2:-1], sys.argv[-1] == '1'\n"
            "if together:\n    open(p, 'w').write(''.join(texts))\n"
            "else:\n    [open(p, 'w').write(t) for t in texts]\n")
    subprocess.run([sys.executable, "-c", code, str(path), *texts, "1" if together else "0"], check=True, timeout=30)


def test_one_write_is_the_report(tmp_path):
    w = ReportWitness(tmp_path)
    w.start()
    write_in_child(tmp_path / "junit.xml", report(a="passed", b="failed"))
    writes = w.stop()
    assert len(writes) == 1
    merged, note = merge_writes(writes, None, tmp_path / "out")
    assert outcome_of(merged, "t::a") == "passed" and outcome_of(merged, "t::b") == "failed" and note is None


def test_a_rewrite_with_passes_keeps_the_failure_and_is_named(tmp_path):
    w = ReportWitness(tmp_path)
    w.start()
    write_in_child(tmp_path / "junit.xml", report(a="passed", b="failed"), report(a="passed", b="passed"))
    writes = w.stop()
    merged, note = merge_writes(writes, None, tmp_path / "out")
    assert outcome_of(merged, "t::b") == "failed"
    assert note and note.startswith("the JUnit report was rewritten after the runner wrote it") and "t::b" in note


def test_documents_in_one_write_are_split(tmp_path):
    honest, forged = report(a="failed"), report(a="passed")
    assert documents((honest + forged).encode()) == [honest.encode(), forged.encode()]
    w = ReportWitness(tmp_path)
    w.start()
    write_in_child(tmp_path / "junit.xml", honest, forged, together=True)
    merged, note = merge_writes(w.stop(), None, tmp_path / "out")
    assert outcome_of(merged, "t::a") == "failed" and note


def test_the_fifo_replaced_by_a_file_counts_with_the_writes(tmp_path):
    w = ReportWitness(tmp_path)
    w.start()
    write_in_child(tmp_path / "junit.xml", report(a="failed"))
    (tmp_path / "junit.xml").unlink()
    (tmp_path / "junit.xml").write_text(report(a="passed"))
    writes = w.stop()
    merged, note = merge_writes(writes, tmp_path / "junit.xml", tmp_path / "out")
    assert outcome_of(merged, "t::a") == "failed" and note


def test_nothing_written(tmp_path):
    w = ReportWitness(tmp_path)
    w.start()
    assert w.stop() == []
    assert merge_writes([], None, tmp_path / "out") == (None, None)


def test_a_fifo_taken_away_before_any_write_is_reported_and_the_reader_ends(tmp_path):
    """Regression (attack pass): the FIFO removed before the runner wrote left a reader blocked
    forever in open() and nothing telling the grader; now ``replaced`` says so and stop() wakes
    the reader through the unlinked FIFO."""
    w = ReportWitness(tmp_path)
    w.start()
    (tmp_path / "junit.xml").unlink()
    write_in_child(tmp_path / "junit.xml", report(a="passed"))  # a regular file now
    assert w.stop(timeout=5) == []
    assert w.replaced is True
    assert w._thread is not None and not w._thread.is_alive()


def test_a_fifo_left_in_place_is_not_replaced(tmp_path):
    w = ReportWitness(tmp_path)
    w.start()
    write_in_child(tmp_path / "junit.xml", report(a="failed"))
    assert len(w.stop()) == 1
    assert w.replaced is False


# issue 20: a poisoned channel is never skipped in silence ---------------------------------------
HOLD = ("import os, sys, time\nfd = os.open(sys.argv[1], os.O_WRONLY)\nos.write(fd, b'<testsuites><testsuite')\n"
        "print('open', flush=True)\ntime.sleep(float(sys.argv[2]))\nos.close(fd)\n")


def test_a_writer_holding_the_fifo_after_the_runner_ended_is_named(tmp_path):
    """A process forked by the code under test keeps the FIFO open past the runner's end: the
    runner's report would join its session (which no longer parses)."""
    w = ReportWitness(tmp_path)
    w.start()
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path / "junit.xml"), "6"], stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout.readline().strip() == "open"
    write_in_child(tmp_path / "junit.xml", report(a="failed"))  # the runner's report, in the same session
    problem = w.runner_ended(grace=0.5)
    holder.kill()
    holder.wait()
    writes = w.stop()
    assert problem == "a process still held the JUnit report's FIFO after the runner ended"
    assert unreadable(writes) == [1]  # fragment + report: one session that does not parse


def test_a_write_after_the_runner_ended_is_counted(tmp_path):
    w = ReportWitness(tmp_path)
    w.start()
    write_in_child(tmp_path / "junit.xml", report(a="failed"))
    assert w.runner_ended(grace=0.5) is None
    write_in_child(tmp_path / "junit.xml", report(a="passed"))
    writes = w.stop()
    assert w.late == 1 and len(writes) == 2 and unreadable(writes) == []


def test_a_clean_run_has_no_channel_problem(tmp_path):
    w = ReportWitness(tmp_path)
    w.start()
    write_in_child(tmp_path / "junit.xml", report(a="passed"))
    assert w.runner_ended(grace=0.5) is None
    writes = w.stop()
    assert w.late == 0 and not w.replaced and unreadable(writes) == []


def _written_while_holding_the_gil(w: ReportWitness, path, text: str, then):
    """A child writes ``text`` to ``path`` while this thread keeps the GIL (a switch interval of
    30 s, a loop that makes no system call), so the witness's reader thread cannot run until the
    child has ended; then ``then()`` runs, still before the reader thread. Returns its value."""
    import mmap
    import time
    flag = path.parent / "written"
    flag.write_bytes(b"0")
    while open(f"/proc/self/task/{w._thread.native_id}/wchan").read() != "wait_for_partner":
        time.sleep(0.01)  # the reader waits for a writer
    code = "import sys\nopen(sys.argv[1], 'w').write(sys.argv[2])\nopen(sys.argv[3], 'r+').write('1')\n"
    old = sys.getswitchinterval()
    with open(flag, "r+b") as fh, mmap.mmap(fh.fileno(), 1) as seen:
        child = subprocess.Popen([sys.executable, "-c", code, str(path), text, str(flag)])
        sys.setswitchinterval(30)
        try:
            deadline = time.monotonic() + 30
            while seen[0] != ord("1") and time.monotonic() < deadline:
                pass
            value = then()
        finally:
            sys.setswitchinterval(old)
    child.wait(timeout=30)
    return value


def test_a_write_made_before_the_runner_ended_is_not_late_when_the_reader_lagged(tmp_path):
    """CI, 2026-12-02: a reference patch was ``unresolved`` because its one report write was
    counted late: the runner had written and ended before the witness's thread ran again (a busy
    harness). Here the thread cannot run until the writer (the runner) has ended."""
    w = ReportWitness(tmp_path)
    w.start()
    problem = _written_while_holding_the_gil(w, tmp_path / "junit.xml", report(a="passed"),
                                             lambda: w.runner_ended(grace=2.0))
    writes = w.stop()
    assert problem is None and len(writes) == 1 and w.late == 0


def test_a_late_write_the_reader_reaches_only_after_stop_began_is_late(tmp_path):
    """A process left behind writes the report after the runner ended, and the reader thread runs
    only once ``stop`` has begun (a busy harness; 2 in 400 runs of the test above under load): its
    bytes are kept, so it is late. Before, a write reached after ``stop`` began was taken for
    stop's own wake-up and not counted (``late`` 0, the forged report among the writes)."""
    w = ReportWitness(tmp_path)
    w.start()
    assert w.runner_ended(grace=0.5) is None  # the runner wrote no report
    writes = _written_while_holding_the_gil(w, tmp_path / "junit.xml", report(a="passed"), w.stop)
    assert w.late == 1 and len(writes) == 1


def test_a_runner_of_another_uid_may_open_the_report_read_write():
    """gotestsum opens its JUnit report read-write (Go's ``os.Create``), as the sandbox's uid: the
    FIFO must let it (round 13 made it 0622 for a while, and the Go task's reference solution was
    ``invalid`` on the local backend: ``permission denied``). The writer here is uid 65534."""
    import shutil
    import tempfile
    from pathlib import Path
    folder = Path(tempfile.mkdtemp(prefix="lancebench-witness-", dir="/var/tmp"))
    try:
        folder.chmod(0o755)
        w = ReportWitness(folder)
        w.start()
        code = ("import os, sys\nfd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT | os.O_TRUNC)\n"
                "os.write(fd, sys.argv[2].encode())\nos.close(fd)\n")
        done = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c",
                               code, str(folder / "junit.xml"), report(a="passed")], capture_output=True, text=True,
                              timeout=30)
        assert done.returncode == 0, done.stderr
        assert w.runner_ended(grace=2.0) is None
        writes = w.stop()
        assert writes == [report(a="passed").encode()] and w.late == 0, writes
    finally:
        shutil.rmtree(folder)

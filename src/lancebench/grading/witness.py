"""The JUnit report as it was written, kept where the test process cannot reach it.

The test process writes ``/logs/verifier/junit.xml``; the code under test runs in that process,
and may rewrite the report after the runner wrote it (an exit hook, a finaliser, a thread). So
before ``tests/test.sh`` runs, ``junit.xml`` in the verifier's log folder is made a FIFO, and
:class:`ReportWitness` (a thread of the harness, on the host, outside the sandbox) reads every
write to it into memory as it happens: each ``open``/``write``/``close`` of the path is one
*write*. The test process cannot change a write once the harness holds it, nor hide that it
wrote again.

:func:`merge_writes` then judges from every write plus whatever regular file sits at the path in
the end (the FIFO replaced by a file): for each test the worst outcome any of them records
(``error`` > ``failed`` > ``skipped`` > ``passed``): a failure the runner reported once stays a
failure, whatever is written after it. When the writes disagree about a test, the report was
rewritten: the run's reason says so.

Limits (docs/security.md): code that runs *before* the runner writes (an import-time patch of the
runner's report objects) shapes the first write too; that is what the static scan
(:mod:`lancebench.grading.scan`) is for. A report that reaches the path by replacing the FIFO
(``mv``, an atomic rename; or the code under test removing it before the runner writes, so that
the runner's failures go to a file nobody watches) is not trusted at all (:attr:`ReportWitness.replaced`):
the writes the witness holds may be forgeries made before the swap. A verifier that copies its
report (``cp`` opens the path) is witnessed as usual.
"""

from __future__ import annotations

import os
import stat
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

from lancebench.errors import LancebenchError
from lancebench.grading.junit import MAX_BYTES, JUnitReport, display_id, fromstring, parse_junit
from lancebench.sandbox.fstree import notes_path

RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
MAX_WRITES = 8  # writes kept; more are counted, not stored
WITNESS_MARK = "(grading.witness)"  # in every reason about the report channel (analysis.forgery reads it)
REPLACED_FIFO = ("the JUnit report's FIFO (grading.witness) was removed or replaced during the run: "
                 "the report is not trusted")


class ReportWitness:
    """Reads every write to the FIFO ``folder/name`` (made by :meth:`start`) in a thread.

    Use: ``w = ReportWitness(logs); w.start()`` before the verifier runs, ``writes = w.stop()``
    after it ended (its processes gone).
    Each write is at most ``junit.MAX_BYTES`` bytes (the rest is read and dropped; ``overflow``
    is set), and at most :data:`MAX_WRITES` are kept (``count`` counts them all): a run with more
    is not to be trusted, the runner's report may be among those dropped (attack pass round 13).
    Raises ``OSError`` from :meth:`start` when the FIFO cannot be made."""

    def __init__(self, folder: Path, name: str = "junit.xml"):
        self.path = folder / name
        self.writes: list[bytes] = []
        self.count = 0
        self.overflow = False
        self.replaced = False  # set by stop(): the FIFO made by start() is no longer at the path
        self.late = 0  # writes begun after the runner ended (see runner_ended)
        self._open = threading.Event()  # set while a writer holds the FIFO (a read session)
        self._ended = threading.Event()  # set by runner_ended()
        self._inode: tuple[int, int] | None = None
        self._fifo_fd: int | None = None  # an O_PATH handle on the FIFO, to wake a reader once it is unlinked
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if os.path.lexists(self.path):
            os.unlink(self.path)
        os.mkfifo(self.path, 0o666)
        # the sandbox user writes it (umask aside), and may read it: a runner may open its report
        # read-write (Go's os.Create: gotestsum), so a second reader cannot be kept out (round 13)
        os.chmod(self.path, 0o666)
        self._fifo_fd = os.open(self.path, os.O_PATH)
        st = os.fstat(self._fifo_fd)
        self._inode = (st.st_dev, st.st_ino)
        self._thread = threading.Thread(target=self._run, name="lancebench-report-witness", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                fd = os.open(self.path, os.O_RDONLY)  # blocks until a writer opens it
            except OSError:
                return  # the FIFO is gone (replaced or removed)
            if not stat.S_ISFIFO(os.fstat(fd).st_mode):  # replaced by a file: merge_writes reads it
                os.close(fd)
                return
            data, size = bytearray(), 0
            # read before the FIFO is marked open: runner_ended marks the end once it sees it open,
            # and a thread switched out between the two read "ended" for the runner's own write
            # (attack pass round 14)
            ended, stopping = self._ended.is_set(), self._stop.is_set()
            self._open.set()
            self.late += ended and not stopping
            try:
                while chunk := os.read(fd, 1 << 16):
                    size += len(chunk)
                    if size <= MAX_BYTES:
                        data += chunk
                    else:
                        self.overflow = True
            except OSError:
                pass
            finally:
                os.close(fd)
                # a writer the thread reached only after stop() began is late too when it wrote
                # (its bytes are kept); stop()'s own wake-up writes nothing
                self.late += ended and stopping and size > 0
                self._open.clear()
            if self._stop.is_set() and size == 0:
                return  # our own wake-up
            if size:
                self.count += 1
                if len(self.writes) < MAX_WRITES:
                    self.writes.append(bytes(data))

    def runner_ended(self, grace: float = 2.0) -> str | None:
        """Call when ``tests/test.sh`` has ended (before its sandbox is stopped). Returns why the
        report channel cannot be trusted, or None: a writer still holds the FIFO ``grace`` seconds
        after the runner ended (a process the runner left behind: what it writes joins the
        runner's session or follows it). Writes begun from now on are counted in :attr:`late`.
        Blocks up to ``grace`` seconds (twice, at most: first while the reader thread catches up).

        A writer the kernel connected before this call is not late however long the reader thread
        took to run again (a busy harness: CI saw a reference patch's one report counted late): the
        end is marked once the thread waits for a writer again (:meth:`_reader_waits`) or holds
        one, or after ``grace``."""
        waited = 0.0
        while not self._open.is_set() and not self._reader_waits() and waited < grace:
            self._stop.wait(0.01)
            waited += 0.01
        self._ended.set()
        waited = 0.0
        while self._open.is_set() and waited < grace:
            self._stop.wait(0.05)
            waited += 0.05
        if self._open.is_set():
            return "a process still held the JUnit report's FIFO after the runner ended"
        return None

    def _reader_waits(self) -> bool:
        """Whether the reader thread is blocked opening the FIFO, no writer connected (the kernel's
        wait channel of the thread, ``/proc/self/task/TID/wchan``, is ``wait_for_partner``); True
        when the thread has ended or the channel cannot be read (then nothing is waited for)."""
        thread = self._thread
        if thread is None or not thread.is_alive() or thread.native_id is None:
            return True
        try:
            with open(f"/proc/self/task/{thread.native_id}/wchan") as fh:
                channel = fh.read()
        except OSError:
            return True
        return channel == "wait_for_partner" or channel == ""

    def stop(self, timeout: float = 10.0) -> list[bytes]:
        """End the reader and return the writes, in order; set :attr:`replaced` when the path no
        longer holds the FIFO :meth:`start` made (removed, renamed or replaced by the test
        process: then the report's writes may have gone elsewhere). Never raises."""
        self._stop.set()
        try:
            st = os.lstat(self.path)
            self.replaced = (st.st_dev, st.st_ino) != self._inode
        except OSError:
            self.replaced = True
        if self._fifo_fd is not None:
            try:  # wake a reader blocked in open(), through the FIFO itself even once it is unlinked
                fd = os.open(f"/proc/self/fd/{self._fifo_fd}", os.O_WRONLY | os.O_NONBLOCK)
                os.close(fd)
            except OSError:
                pass
            os.close(self._fifo_fd)
            self._fifo_fd = None
        if self._thread is not None:
            self._thread.join(timeout)
        return list(self.writes)


def documents(data: bytes, limit: int = MAX_WRITES) -> list[bytes]:
    """Split ``data`` into the XML documents written one after the other (a writer that opens
    the FIFO before the previous one closed it joins the same read): at each ``junk after
    document element`` the rest is another document. Returns at least ``[data]``; past ``limit``
    documents the rest is one more item as it is (several documents: not well-formed, so the run
    is not trusted; it was left out, and a session of 8 documents of the code under test's own
    hid the runner's report after them: attack pass round 13)."""
    out: list[bytes] = []
    while data.strip() and len(out) < limit:
        try:
            fromstring(data)
            out.append(data)
            return out
        except ET.ParseError as exc:
            line, col = exc.position
            if "junk after document element" not in str(exc):
                out.append(data)
                return out
            text = data.decode("utf-8", errors="surrogateescape")
            lines = text.splitlines(keepends=True)
            cut = sum(len(x) for x in lines[:line - 1]) + col
            head, data = text[:cut].encode("utf-8", errors="surrogateescape"), text[cut:].encode(
                "utf-8", errors="surrogateescape")
            out.append(head)
    if out and data.strip():  # the limit reached
        out.append(data)
    return out or [data]


def unreadable(writes: list[bytes]) -> list[int]:
    """The 1-based numbers of the witnessed writes holding a document that is not well-formed XML
    (a session two writers shared, a report cut short): such a run's report is not trusted."""
    bad = []
    for i, data in enumerate(writes):
        for doc in documents(data):
            try:
                fromstring(doc)
            except ET.ParseError:
                bad.append(i + 1)
                break
    return bad


def merge_writes(writes: list[bytes], final: Path | None, scratch: Path) -> tuple[JUnitReport | None, str | None]:
    """Judge the report from every witnessed write and the ``final`` regular file (None when the
    FIFO is still there). Returns (the merged :class:`JUnitReport`: each test's worst outcome over
    all of them and every collection error, or None when none parses; a note when they disagree
    about some test, else None). ``scratch`` is a host folder for the writes as files."""
    scratch.mkdir(parents=True, exist_ok=True)
    versions: list[JUnitReport] = []
    for i, data in enumerate(writes):
        path = scratch / f"junit.write-{i + 1}.xml"
        path.write_bytes(data)
        docs = documents(data)
        for j, doc in enumerate(docs):  # a write that began before the last one ended
            part = path if len(docs) == 1 else scratch / f"junit.write-{i + 1}.{j + 1}.xml"
            if part != path:  # a one-document write is not kept twice (8 writes of 20 MB: 320 MB a run)
                part.write_bytes(doc)
            try:
                versions.append(parse_junit(part))
            except LancebenchError:
                versions.append(JUnitReport())
    if final is not None:
        try:
            versions.append(parse_junit(final))
        except LancebenchError:
            versions.append(JUnitReport())
    parsed = [v for v in versions if v.cases or v.collection_errors]
    if not parsed:
        return None, None
    merged = JUnitReport()
    for version in parsed:
        for test, outcome in version.cases.items():
            if RANK.get(outcome, 3) >= RANK.get(merged.cases.get(test, "passed"), 0):
                merged.cases[test] = outcome
        merged.collection_errors += [m for m in version.collection_errors if m not in merged.collection_errors]
    changed = sorted(display_id(t) for t in merged.cases
                     if any(v.cases.get(t, merged.cases[t]) != merged.cases[t] for v in parsed))
    note = None
    if changed:
        note = (f"the JUnit report was rewritten after the runner wrote it (grading.witness; {len(versions)} versions; "
                f"{', '.join(changed[:3])}{' ...' if len(changed) > 3 else ''} differ): the worst outcome counts")
    return merged, note


def account(witness: ReportWitness, writes: list[bytes], held: str | None,
            out_dir: Path) -> tuple[JUnitReport | None, str | None, str | None]:
    """What a stopped ``witness`` tells of one verifier run whose files were copied to ``out_dir``
    (``out_dir/logs``: the verifier's folder), given its ``writes`` (:meth:`ReportWitness.stop`)
    and ``held`` (:meth:`ReportWitness.runner_ended`). Returns (the run's JUnit outcomes from the
    witnessed writes and the file left in the logs, :func:`merge_writes`; a note when they
    disagree; why the report or reward channel cannot be trusted, :func:`_channel_problem`, or
    None). The logs keep ``junit.xml`` as the runner wrote it when nothing replaced the FIFO;
    every write is kept in ``out_dir/witness``; the logs' notes lose the FIFO's line (the FIFO
    itself is not a file the verifier wrote)."""
    logs = out_dir / "logs"
    notes = notes_path(logs)
    junit_path = logs / "junit.xml"
    final = junit_path if junit_path.is_file() and not junit_path.is_symlink() else None
    merged, note = merge_writes(writes, final, out_dir / "witness")
    if final is None and writes and logs.is_dir():
        junit_path.write_bytes(writes[0])
    if notes.is_file():
        kept = [line for line in notes.read_text().splitlines() if line != "junit.xml: special file left out"]
        notes.write_text("\n".join(kept) + "\n") if kept else notes.unlink()
    return merged, note, _channel_problem(witness, writes, held, logs, notes)


def _channel_problem(witness: ReportWitness, writes: list[bytes], held: str | None, logs: Path,
                     notes: Path) -> str | None:
    """Why the run's report or reward channel cannot be trusted (the run is broken), or None: the
    FIFO replaced, a write that is not well-formed XML, more writes or bytes than the witness keeps
    (the runner's report may be among those dropped: attack pass round 13), a writer that held the
    FIFO or wrote to it after the runner ended, a reward path in ``logs`` that is not a regular file (``notes``: the
    notes of what the copy out of the sandbox left out)."""
    # the reward paths first: checks of this module's own, then the writes parsed (grading.junit)
    left_out = notes.read_text(errors="replace").splitlines() if notes.is_file() else []
    not_regular = [name for name in ("reward.txt", "reward.json")
                   if _not_regular(logs / name, f"{name}: special file left out" in left_out)]
    problems = [REPLACED_FIFO] if witness.replaced else []
    bad = unreadable(writes)
    if bad:
        problems.append(f"the JUnit report's write {', '.join(map(str, bad))} is not well-formed XML (a writer "
                        f"shared the runner's session, or the report was cut short) {WITNESS_MARK}: not trusted")
    if witness.count > len(writes) or witness.overflow:  # what the witness did not keep may be the runner's
        problems.append(f"the JUnit report was written {witness.count} time(s)"
                        f"{', one write over ' + str(MAX_BYTES) + ' bytes' if witness.overflow else ''} "
                        f"(the witness keeps {MAX_WRITES} of at most {MAX_BYTES} bytes) {WITNESS_MARK}: not trusted")
    if held:
        problems.append(f"{held} {WITNESS_MARK}: the report is not trusted")
    if witness.late:
        problems.append(f"{witness.late} write(s) to the JUnit report came after the runner ended {WITNESS_MARK}: "
                        "not trusted")
    problems += [f"{name} is not a regular file (the verifier's write to it failed) {WITNESS_MARK}: the rewards "
                 "are not trusted" for name in not_regular]
    return "; ".join(problems) or None


def _not_regular(path: Path, left_out: bool) -> bool:
    """Is ``path`` something other than a regular file: a folder, a link, or (absent) a special
    file the copy out of the sandbox left out (``left_out``: named so in its notes)?"""
    if os.path.lexists(path):
        return path.is_symlink() or not path.is_file()
    return left_out

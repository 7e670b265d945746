"""A job's results index: ``JOB/index.sqlite``, one row per recorded trial, beside the trial folders.

The trial folders stay the record (``trials/<id>/result.json``); the index is a cache of them that
readers (resume planning, ``show``, ``report``, ``analyze``) use instead of opening every file.
Each row holds a trial's id, task, attempt and status, its usage (JSON) and a fingerprint of its
configuration (:func:`config_fingerprint`), the sha256 of those (``head``), the validated result as
compact JSON with its sha256, and the ``size`` and ``mtime_ns`` of the ``result.json`` it was read
from. Resume planning reads the head columns only (:meth:`IndexedTrials.recorded`), never the JSON.

Freshness is checked per row, cheaply: every read stats the ``result.json`` of each trial it asks
for (one ``stat`` per trial, no read) and compares size and mtime with the row. A file added or
rewritten behind the index's back (another run, a copy, an edit) is read again and its row
replaced; a trial whose file is gone has its row removed; a row whose JSON does not match its
digest or no longer validates is read again from its file. An index that cannot be opened (a
corrupt database, another schema) is deleted and rebuilt from the folders; a job folder that
cannot be written gets an index in memory for the run of the command. So deleting ``index.sqlite``
is always safe, and no reader ever sees a number the folders do not hold.

The job's writer adds each trial's row as it writes the trial's ``result.json``
(:func:`index_written`, called by :func:`lancebench.results.store.write_result`), so a read after a
run, or after the run was killed, stats each file and reads none; a row it could not add is added
by the next read as above.

The index also keeps derived values (``lancebench show``'s summary) keyed by a fingerprint of the
rows they were computed from (:attr:`IndexedTrials.state`), so revisiting a finished job does not
recompute them.

SQLite is the standard library's (:mod:`sqlite3`); concurrent readers and the job's one writer
share it through SQLite's own locking (waiting up to :data:`BUSY_TIMEOUT_SEC`)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from lancebench.results.models import TrialResult, Usage
from lancebench.results.result_file import load_result

INDEX_FILE = "index.sqlite"
SCHEMA_VERSION = 2  # 2: usage, config and head (resume planning without the JSON)
BUSY_TIMEOUT_SEC = 30.0
WRITER_TIMEOUT_SEC = 2.0  # a trial's row waits at most this long for a reader's lock, then the next read adds it
_TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS trials (trial_id TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    task TEXT NOT NULL, attempt INTEGER NOT NULL, status TEXT NOT NULL, usage TEXT NOT NULL, config TEXT NOT NULL,
    head TEXT NOT NULL, digest TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS trials_order ON trials (task, attempt, trial_id);
CREATE TABLE IF NOT EXISTS derived (key TEXT PRIMARY KEY, state TEXT NOT NULL, data TEXT NOT NULL);
"""


_COLUMNS = "trial_id, size, mtime_ns, task, attempt, status, usage, config, head, digest, data"
_INSERT = "INSERT OR REPLACE INTO trials VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"


def _digest(data: str) -> str:
    return hashlib.sha256(data.encode()).hexdigest()


def _head(task: str, attempt: int, status: str, usage: str, config: str) -> str:
    """sha256 of a row's head columns (what resume planning reads instead of the JSON)."""
    return _digest(f"{task}\0{attempt}\0{status}\0{usage}\0{config}")


def config_fingerprint(result: TrialResult) -> str:
    """A trial's configuration as 16 hex digits (sha256 of :class:`TrialConfig` as JSON), "" for a
    result without one (an older lancebench's): equal fingerprints, equal configurations."""
    return "" if result.config is None else _digest(result.config.model_dump_json())[:16]


@dataclass(frozen=True)
class RecordedTrial:
    """What resume planning needs of a recorded trial, read from the index's head columns without
    parsing its result: ``trial_id``, ``task``, ``attempt``, ``status`` (resolved, unresolved,
    invalid), ``usage`` (its model spend, kept trials counting against a job's budget) and
    ``config`` (:func:`config_fingerprint`)."""

    trial_id: str
    task: str
    attempt: int
    status: str
    usage: Usage
    config: str


def _connect(path: Path, timeout: float = BUSY_TIMEOUT_SEC, *, any_thread: bool = False) -> sqlite3.Connection:
    """Open (creating) the index at ``path``, waiting up to ``timeout`` seconds for a lock (usable
    from any thread when ``any_thread``: the caller serialises its use); raises
    :class:`sqlite3.Error` when it is not a usable index of this schema (corrupt, another schema
    version)."""
    db = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=not any_thread)
    try:
        db.executescript(_TABLES)
        row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        elif row[0] != str(SCHEMA_VERSION):
            raise sqlite3.DatabaseError(f"index schema {row[0]}, expected {SCHEMA_VERSION}")
        db.execute(f"SELECT {_COLUMNS} FROM trials LIMIT 1")
        return db
    except BaseException:
        db.close()
        raise


def open_index(job_dir: Path) -> sqlite3.Connection:
    """The job's index (``job_dir/index.sqlite``), rebuilt empty when it cannot be used (its rows
    are then filled from the folders by the next read), or an index in memory when the job
    folder cannot be written. Never raises for the index's own state."""
    path = Path(job_dir) / INDEX_FILE
    for _ in range(2):
        try:
            return _connect(path)
        except sqlite3.Error as exc:
            if "locked" in str(exc):  # another reader holds it too long: work on a copy in memory
                break
            with suppress(OSError):
                path.unlink()  # corrupt or of another schema: the folders are the record
    return _connect(Path(":memory:"))


@dataclass(frozen=True)
class _Row:
    trial_id: str
    size: int
    mtime_ns: int


def _values(row: _Row, result: TrialResult) -> tuple:
    data = result.model_dump_json()
    usage, config = result.usage.model_dump_json(), config_fingerprint(result)
    return (row.trial_id, row.size, row.mtime_ns, result.task, result.attempt, result.status, usage, config,
            _head(result.task, result.attempt, result.status, usage, config), _digest(data), data)


def index_written(result_path: Path, result: TrialResult) -> bool:
    """Add (or replace) the row of a ``result.json`` just written at ``result_path``
    (``JOB/trials/<trial_id>/result.json``) holding ``result``, with the file's size and mtime, so
    that a read of the job finds it without opening the file. Best effort: returns False (and
    leaves the row to the next read, which sees the file's new size or mtime) when the index is
    locked for longer than :data:`WRITER_TIMEOUT_SEC`, corrupt, or cannot be written, or when
    the path is not inside a job's ``trials/`` folder.

    The writer's connection to a job's index is kept open between trials (:class:`_Writers`), and
    the rows of one process are written one at a time (trials end in worker threads at once)."""
    folder = Path(result_path).parent
    if folder.parent.name != "trials":
        return False
    try:
        st = os.stat(result_path)
    except OSError:
        return False
    values = _values(_Row(folder.name, st.st_size, st.st_mtime_ns), result)
    return _WRITERS.insert(folder.parent.parent / INDEX_FILE, values)


class _Writers:
    """The writer's open connections to job indexes, at most :attr:`KEPT` (the latest used), each
    with the identity (device, inode) of the file it opened: a file replaced since (a reader
    rebuilt a corrupt index) is opened again. One lock serialises every use."""

    KEPT = 4

    def __init__(self) -> None:
        self._forget()
        os.register_at_fork(after_in_child=self._forget)  # an SQLite connection must not cross a fork

    def _forget(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[Path, tuple[sqlite3.Connection, tuple[int, int]]] = {}

    def insert(self, path: Path, values: tuple) -> bool:
        """Insert (or replace) the row ``values`` into the index at ``path``; False when it could not."""
        with self._lock:
            try:
                db = self._connection(path)
                db.execute(_INSERT, values)
                return True
            except (OSError, sqlite3.Error):
                self._close(path)
                return False

    def _connection(self, path: Path) -> sqlite3.Connection:
        kept = self._open.pop(path, None)
        if kept is not None:
            try:
                st = os.stat(path)
                if (st.st_dev, st.st_ino) == kept[1]:
                    self._open[path] = kept  # the latest used last
                    return kept[0]
            except OSError:
                pass
            kept[0].close()
        db = _connect(path, WRITER_TIMEOUT_SEC, any_thread=True)
        try:
            # no fsync: the index is a cache (the file was synced), a row lost or torn is re-read or rebuilt
            db.execute("PRAGMA synchronous = OFF")
            st = os.stat(path)
        except BaseException:
            db.close()
            raise
        self._open[path] = (db, (st.st_dev, st.st_ino))
        while len(self._open) > self.KEPT:
            self._close(next(iter(self._open)))
        return db

    def _close(self, path: Path) -> None:
        kept = self._open.pop(path, None)
        if kept is not None:
            with suppress(sqlite3.Error):
                kept[0].close()


_WRITERS = _Writers()


class IndexedTrials:
    """The recorded trials among ``trial_ids`` of a job, synchronised with their folders on
    construction (see the module docstring): :attr:`ids` (recorded, in the order asked),
    :attr:`unfinished` (asked for, without a ``result.json``), :attr:`state` (a fingerprint of the
    recorded files: sha256 over each id, size and mtime).

    Raises :class:`lancebench.errors.ResultsError` when a ``result.json`` that had to be read
    cannot be read or validated (naming the file), as :func:`lancebench.results.load.load_result`."""

    def __init__(self, job_dir: Path, trial_ids: Sequence[str]):
        self.job_dir = Path(job_dir)
        self.db = open_index(self.job_dir)
        self.ids: list[str] = []
        self.unfinished: list[str] = []
        self._sync(trial_ids)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> IndexedTrials:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _result_path(self, trial_id: str) -> Path:
        return self.job_dir / "trials" / trial_id / "result.json"

    def _sync(self, trial_ids: Sequence[str]) -> None:
        known = {r[0]: (r[1], r[2]) for r in self.db.execute("SELECT trial_id, size, mtime_ns FROM trials")}
        fingerprint = hashlib.sha256()
        stale: list[_Row] = []
        gone: list[str] = []
        for tid in trial_ids:
            try:
                st = os.stat(self._result_path(tid))
            except OSError:
                self.unfinished.append(tid)
                if tid in known:
                    gone.append(tid)
                continue
            self.ids.append(tid)
            fingerprint.update(f"{tid}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
            if known.get(tid) != (st.st_size, st.st_mtime_ns):
                stale.append(_Row(tid, st.st_size, st.st_mtime_ns))
        self.state = fingerprint.hexdigest()
        if stale or gone:
            self._refresh(stale, gone)

    def _refresh(self, stale: list[_Row], gone: list[str]) -> None:
        rows = []
        for row in stale:
            result = load_result(self._result_path(row.trial_id))
            rows.append(self._row_values(row, result))
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany("DELETE FROM trials WHERE trial_id = ?", [(t,) for t in gone])
            self.db.executemany(_INSERT, rows)
            self.db.execute("COMMIT")
        except sqlite3.Error:  # a read-only folder, a full disk: this command works on a copy in memory
            with suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            memory = sqlite3.connect(":memory:", isolation_level=None)
            self.db.backup(memory)
            self.db.close()
            self.db = memory
            self.db.executemany("DELETE FROM trials WHERE trial_id = ?", [(t,) for t in gone])
            self.db.executemany(_INSERT, rows)

    @staticmethod
    def _row_values(row: _Row, result: TrialResult) -> tuple:
        return _values(row, result)

    def _parse(self, trial_id: str, digest: str, data: str) -> TrialResult:
        """The row's result, or, for a corrupt row, the file's (the row is replaced)."""
        if _digest(data) == digest:
            with suppress(ValidationError):
                return TrialResult.model_validate_json(data)
        path = self._result_path(trial_id)
        result = load_result(path)
        st = os.stat(path)
        with suppress(sqlite3.Error):
            self.db.execute(_INSERT,
                            self._row_values(_Row(trial_id, st.st_size, st.st_mtime_ns), result))
        return result

    def recorded(self) -> list[RecordedTrial]:
        """Every recorded trial's head (:class:`RecordedTrial`), in :attr:`ids` order, read from the
        head columns without parsing any result; a row whose head does not match its ``head``
        digest is read again from its file (and replaced), as :meth:`results` does for the JSON."""
        wanted = self._id_set()
        found = {}
        for row in self.db.execute("SELECT trial_id, task, attempt, status, usage, config, head FROM trials"):
            if row[0] in wanted:
                found[row[0]] = row
        out = []
        for tid in self.ids:
            row = found.get(tid)
            usage = None
            if row is not None and _head(*row[1:6]) == row[6]:
                with suppress(ValidationError):
                    usage = Usage.model_validate_json(row[4])
            if usage is None:  # a corrupt or missing row: the file is the record
                r = self._parse(tid, "", "")
                out.append(RecordedTrial(tid, r.task, r.attempt, r.status, r.usage, config_fingerprint(r)))
            else:
                out.append(RecordedTrial(tid, row[1], row[2], row[3], usage, row[5]))
        return out

    def results(self) -> list[TrialResult]:
        """Every recorded trial's result, in :attr:`ids` order."""
        return [r for _, r in self._select("", ())]

    def by_id(self) -> dict[str, TrialResult]:
        """Every recorded trial's result, by the id of its folder."""
        return {key[2]: r for key, r in self._select("", ())}

    def count(self, statuses: Sequence[str] = (), task_glob: str | None = None) -> int:
        """How many recorded trials have one of ``statuses`` (any when empty) and a task name
        matching ``task_glob`` (SQLite's GLOB: ``*``, ``?``, ``[...]``; any when None)."""
        where, args = self._where(statuses, task_glob)
        return sum(1 for _ in self._select(where, args, parse=False))

    def page(self, statuses: Sequence[str] = (), task_glob: str | None = None, offset: int = 0,
             limit: int | None = None) -> list[TrialResult]:
        """The recorded trials matching the filters of :meth:`count`, ordered by task, attempt and
        id, from ``offset`` (>= 0), at most ``limit`` of them (all when None)."""
        where, args = self._where(statuses, task_glob)
        chosen = sorted(self._select(where, args, parse=False), key=lambda kr: kr[0])
        end = None if limit is None else offset + limit
        wanted = [tid for (_, _, tid), _ in chosen[offset:end]]
        return [r for _, r in self._select_ids(wanted)]

    def find(self, prefix: str) -> list[TrialResult]:
        """The recorded trials whose id is ``prefix`` or starts with it (the exact one alone when
        it is recorded)."""
        if prefix in self._id_set():
            return [r for _, r in self._select_ids([prefix])]
        return [r for _, r in self._select_ids([t for t in self.ids if t.startswith(prefix)])]

    def _id_set(self) -> set[str]:
        if not hasattr(self, "_ids"):
            self._ids = set(self.ids)
        return self._ids

    @staticmethod
    def _where(statuses: Sequence[str], task_glob: str | None) -> tuple[str, tuple]:
        clauses: list[str] = []
        args: list[str] = []
        if statuses:
            clauses.append(f"status IN ({', '.join('?' for _ in statuses)})")
            args.extend(statuses)
        if task_glob is not None:
            clauses.append("task GLOB ?")
            args.append(task_glob)
        return " AND ".join(clauses), tuple(args)

    def _select(self, where: str, args: tuple, parse: bool = True) -> Iterator[tuple]:
        """(sort key (task, attempt, id), result or None) of the recorded rows matching ``where``."""
        wanted = self._id_set()
        columns = "trial_id, task, attempt, digest, data" if parse else "trial_id, task, attempt"
        sql = f"SELECT {columns} FROM trials" + (f" WHERE {where}" if where else "")
        found = {}
        for row in self.db.execute(sql, args):
            if row[0] in wanted:
                found[row[0]] = row
        for tid in self.ids:
            row = found.get(tid)
            if row is not None:
                yield (row[1], row[2], tid), (self._parse(tid, row[3], row[4]) if parse else None)

    def _select_ids(self, trial_ids: list[str]) -> Iterator[tuple]:
        for tid in trial_ids:
            row = self.db.execute("SELECT digest, data FROM trials WHERE trial_id = ?", (tid,)).fetchone()
            yield tid, self._parse(tid, row[0], row[1]) if row else self._parse(tid, "", "")

    def derived(self, key: str) -> str | None:
        """The value stored under ``key`` by :meth:`store` for the current :attr:`state`, or None."""
        row = self.db.execute("SELECT state, data FROM derived WHERE key = ?", (key,)).fetchone()
        return row[1] if row is not None and row[0] == self.state else None

    def store(self, key: str, data: str) -> None:
        """Keep ``data`` under ``key`` for the current :attr:`state` (best effort: a folder that
        cannot be written keeps nothing)."""
        with suppress(sqlite3.Error):
            self.db.execute("INSERT OR REPLACE INTO derived VALUES (?, ?, ?)", (key, self.state, data))

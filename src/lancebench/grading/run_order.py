"""The order of the verifier runs of one task across trials and jobs on this host (docs/security.md,
"Runs of one task across trials").

Two runs whose code runs at the same time can talk, even with no writable state in common: POSIX
record locks on a host file both see, the CPU they share (attack pass round 10). A canary run that
can ask another run of its task which hidden test functions it holds learns which of its own are
the canaries (the functions the other lacks), and forges exactly the rest. So, per task (its
name), among the runs that run the agent's code:

- a **canary** run runs its tests alone: no graded run and no other canary run of the task at
  the same time, in any trial of any job on this host (another attempt's canary run holds other
  canaries, so what it lacks tells too);
- **graded** runs of the task may run at the same time as each other (each holds the same hidden
  tests: asking another tells a run nothing it does not hold);
- a run without the agent's code (the untouched base, an empty patch) takes no turn.

A run takes its :class:`Turn` just before ``tests/test.sh`` (its sandbox opened, the patch
applied) and gives it back once no process of the run is left (its sandbox stopped, or on docker
its container killed and stopped, ``Backend.halt``: nothing of its code runs any more). Within one
process turns are granted in the order asked (a graded run waits behind a canary run that waits);
across processes each turn is also an ``flock`` of ``ORDER_DIR/<sha256 of the task's name>``
(shared for a graded run, exclusive for a canary run; polled every :data:`POLL_SEC`), which ends
when the turn is given back or when its process dies (``kill -9`` included): a crashed holder
blocks no one. A run that holds a turn waits for nothing else, so turns cannot deadlock. The lock
files stay (an empty file per task name): removing one another process may be opening would let
two processes lock two different files.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import os
import stat
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from lancebench.errors import SandboxError

RunKind = Literal["graded", "canary"]
ORDER_DIR = Path("/run/lancebench-run-order")  # a harness that cannot make it: its own under the temp folder
POLL_SEC = 0.05  # how often a turn held in another process is asked for again


@dataclass
class _Queue:
    """The turns of one task in this process (one event loop): how many graded runs hold one,
    whether a canary run holds one, and the runs waiting, first come first."""

    graded: int = 0
    canary: bool = False
    waiting: list[tuple[RunKind, asyncio.Future[None]]] = field(default_factory=list)

    def grant(self) -> None:
        """Give turns to the waiting runs at the head of the line while the rule allows."""
        while self.waiting:
            kind, fut = self.waiting[0]
            if fut.done():  # given up
                self.waiting.pop(0)
                continue
            if self.canary or (kind == "canary" and self.graded):
                return
            self.waiting.pop(0)
            self.canary = self.canary or kind == "canary"
            self.graded += kind == "graded"
            fut.set_result(None)

    def idle(self) -> bool:
        return not (self.graded or self.canary or self.waiting)


_queues: dict[tuple[asyncio.AbstractEventLoop, str], _Queue] = {}


class Turn:
    """One verifier run's turn among its task's runs (the module's rule), keyed by ``task``'s
    name. :meth:`take` waits for it; :meth:`give_back` ends it (safe twice, and after a ``take``
    that was cancelled or failed). ``waited_sec``: how long :meth:`take` waited (seconds)."""

    def __init__(self, task: str):
        self.task = task
        self.waited_sec = 0.0
        self._kind: RunKind | None = None
        self._queue: _Queue | None = None
        self._fut: asyncio.Future[None] | None = None
        self._fd: int | None = None
        self._key: tuple[asyncio.AbstractEventLoop, str] | None = None

    async def take(self, kind: RunKind) -> None:
        """Wait until a run of ``kind`` may run the agent's code. Raises :class:`SandboxError`
        when the order's lock file cannot be made, with its ``control`` set (:func:`_controlled_lock_file`:
        the harness's fault, so the trial is ``invalid``)."""
        start = time.monotonic()
        self._kind, self._key = kind, (asyncio.get_running_loop(), self.task)
        queue = self._queue = _queues.setdefault(self._key, _Queue())
        fut = self._fut = self._key[0].create_future()
        queue.waiting.append((kind, fut))
        queue.grant()
        try:
            await fut  # cancelled: the wait is withdrawn by give_back
            self._fd = _controlled_lock_file(self.task)
            mode = fcntl.LOCK_SH if kind == "graded" else fcntl.LOCK_EX
            while not _try_lock(self._fd, mode):
                await asyncio.sleep(POLL_SEC)
        finally:
            self.waited_sec = time.monotonic() - start

    def give_back(self) -> None:
        """End the turn (or withdraw the wait for it) and let the next runs of the task have theirs."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # ends the flock
        queue, fut, self._queue = self._queue, self._fut, None
        if queue is None or fut is None:
            return
        if fut.done() and not fut.cancelled():  # the turn was given in this process
            queue.canary = queue.canary and self._kind != "canary"
            queue.graded -= self._kind == "graded"
        else:
            fut.cancel()
        queue.grant()
        if queue.idle() and self._key is not None and _queues.get(self._key) is queue:
            del _queues[self._key]


def _try_lock(fd: int, mode: int) -> bool:
    """Take ``flock`` ``mode`` on ``fd`` without waiting; False when another process holds it."""
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def order_dir() -> Path:
    """The folder of the order's lock files: :data:`ORDER_DIR` (root: shared by every harness on
    this host), else ``<temp folder>/lancebench-run-order-<uid>`` (a folder of this user's own).
    Raises :class:`SandboxError` when neither can be made, or the second is not this user's."""
    try:
        ORDER_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
        if os.access(ORDER_DIR, os.W_OK | os.X_OK):
            return ORDER_DIR
    except OSError:
        pass
    own = Path(tempfile.gettempdir()) / f"lancebench-run-order-{os.getuid()}"
    try:
        own.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(own)
    except OSError as exc:
        raise SandboxError(f"cannot make {ORDER_DIR} or {own} (the order of a task's verifier runs): {exc}") from exc
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise SandboxError(f"{own} (the order of a task's verifier runs) is not a folder of this user's: remove it")
    return own


def _controlled_lock_file(task: str) -> int:
    """:func:`_lock_file`; when it raises :class:`SandboxError`, the error carries its control
    (``control``, :mod:`lancebench.runner.control`: the trial is ``invalid`` with it). The order's
    folder is on the host and in no sandbox (the local backend's ``/run`` and temp folder are each
    sandbox's own; no container binds them), so no agent's code can cause the failure; the control
    also makes a lock file of a name no task has in the same folder, to say whether the folder or
    this task's file is at fault."""
    try:
        return _lock_file(task)
    except SandboxError as exc:
        probe = f"probe-{os.getpid()}-{os.urandom(8).hex()}"
        try:
            os.close(_lock_file(probe))
            (order_dir() / hashlib.sha256(probe.encode()).hexdigest()[:32]).unlink(missing_ok=True)
            seen = "a lock file of a name no task has, made there by the control, worked: this task's file is broken"
        except (SandboxError, OSError) as again:
            seen = f"a lock file of a name no task has, made there by the control, fails too: {again}"[:1000]
        exc.control = f"the run order's lock folder is on the host, in no sandbox (no agent code reaches it); {seen}"
        raise


def _lock_file(task: str) -> int:
    """An open file descriptor (close-on-exec: no sandbox process inherits it) of ``task``'s lock
    file in :func:`order_dir`. Raises :class:`SandboxError`."""
    path = order_dir() / hashlib.sha256(task.encode()).hexdigest()[:32]
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise SandboxError(f"cannot open {path} (the order of a task's verifier runs): {exc}") from exc

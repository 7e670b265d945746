"""Host uids of their own for the local sandboxes that run an agent's code (attack pass round 9).

The kernel counts some resources per user, whatever the namespace: inotify instances
(``fs.inotify.max_user_instances``, 128 on most hosts) and watches, queued signals
(``RLIMIT_SIGPENDING``), POSIX message queue bytes, pipe buffer pages. When every local sandbox
ran as host uid 61000, one sandbox holding 128 inotify instances made ``inotify_init`` fail with
EMFILE in every other trial's sandbox, its verifier's included (a file watcher, a dev server).
So each sandbox the backend opens leases a pair of host uids for its life: an even uid for its
commands and the next one for its app server (:meth:`LocalSandbox.exec_with_app`).

A lease is an exclusive ``flock`` on ``LEASE_DIR/<uid>``: it holds across processes on this host
(every harness, Ray workers included), ends when :meth:`UidLease.release` closes it or when the
process dies (``kill -9`` included), and a uid that names a user of this host is never leased.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import random
from pathlib import Path

from lancebench.errors import SandboxError

LEASE_DIR = Path("/run/lancebench-uid-leases")
FIRST_UID = 61100  # the first leased uid (even); 61000 and 61001 stay the unleased defaults
PAIRS = 450  # uid pairs: 61100 .. 61999


class UidLease:
    """A leased pair of host uids: ``uid`` (the sandbox's commands) and ``app_uid`` (``uid + 1``,
    its app server). Held until :meth:`release` (safe to call twice) or the process ends."""

    def __init__(self, uid: int, fd: int):
        self.uid = uid
        self.app_uid = uid + 1
        self._fd: int | None = fd

    def release(self) -> None:
        """Give the pair back (closing the lock file ends the lock)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)


def _is_host_user(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def lease() -> UidLease:
    """Lease a free pair of uids (see the module docstring), trying them from a random start.
    Raises :class:`SandboxError` when the lease folder cannot be made or every pair is taken."""
    try:
        LEASE_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise SandboxError(f"cannot make {LEASE_DIR} (the local sandboxes' uid leases): {exc}") from exc
    start = random.randrange(PAIRS)
    for i in range(PAIRS):
        uid = FIRST_UID + 2 * ((start + i) % PAIRS)
        if _is_host_user(uid) or _is_host_user(uid + 1):
            continue
        try:
            fd = os.open(LEASE_DIR / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise SandboxError(f"cannot lease a sandbox uid in {LEASE_DIR}: {exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return UidLease(uid, fd)
    raise SandboxError(f"every local sandbox uid pair ({FIRST_UID}-{FIRST_UID + 2 * PAIRS - 1}) is in use on this "
                       "host: fewer concurrent trials (-n), or wait for other runs to end")

"""Owner records of local sandboxes, and ending the sandboxes of a harness that was killed.

A local sandbox's commands are bubblewrap processes in sessions of their own, started with
``--die-with-parent``. When the harness dies by ``kill -9`` that is meant to end them, but a
bubblewrap process can outlive it: re-parented to init (or a subreaper), and, as the init of its
pid namespace, deaf to every signal but SIGKILL. As docker containers carry an owner label, each
local sandbox that ran a command has a record, ``$LANCEBENCH_HOME/local-sandboxes/<name>.json``:
``host``, ``pid`` and ``start`` of the harness process (start: clock ticks since boot, so that a
reused pid is not taken for the owner), the sandbox's ``root`` folder (every bubblewrap process of
the sandbox names it on its command line: ``--ro-bind ROOT/etc/...``), whether the sandbox made
that folder (``own_root``) and its ``job`` and ``trial`` labels. The record is written before the
sandbox's first command and removed when the sandbox stops.

:func:`reap_orphans` (run when a local backend starts in a process, and by ``lancebench gc``)
SIGKILLs the bubblewrap processes of every sandbox whose owner no longer runs on this machine,
removes the sandbox's root folder and the record. A record of another host (a shared
``LANCEBENCH_HOME``) is left alone: its owner cannot be checked from here."""

from __future__ import annotations

import functools
import json
import os
import signal
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

from lancebench.caches.cache import sub
from lancebench.sandbox.docker_engine import process_start
from lancebench.sandbox.fstree import remove_tree

KILL_WAIT_SEC = 5.0  # how long reaping waits for killed processes to be gone before removing the root


def records_dir() -> Path:
    """``$LANCEBENCH_HOME/local-sandboxes``: one owner record per local sandbox that ran a command."""
    return sub("local-sandboxes")


@functools.cache
def _start_of(pid: int) -> str:
    """:func:`process_start` of this process (``pid``: its pid, so that a forked child asks
    again), read once."""
    return process_start(pid)


def record(name: str, root: Path, own_root: bool, labels: dict[str, str]) -> Path:
    """Write the owner record of sandbox ``name`` (this process as its owner; see the module
    docstring) and return its path, for :func:`forget`. Raises OSError when
    ``$LANCEBENCH_HOME`` cannot be written."""
    pid = os.getpid()
    data = {"host": socket.gethostname(), "pid": pid, "start": _start_of(pid), "root": str(root),
            "own_root": own_root, "job": labels.get("job", ""), "trial": labels.get("trial", "")}
    path = records_dir() / f"{name}.json"
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)
    return path


def forget(path: Path) -> None:
    """Remove the owner record at ``path`` (what :func:`record` returned; none there is fine)."""
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass


def sandbox_processes(root: str) -> list[int]:
    """Pids of the bubblewrap processes whose command line names ``root`` or a path under it."""
    prefix = root.rstrip("/") + "/"
    pids = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as fh:
                argv = fh.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if os.path.basename(argv[0]) == "bwrap" and any(a == root or a.startswith(prefix) for a in argv[1:]):
            pids.append(int(entry.name))
    return pids


@dataclass
class Reaped:
    """What :func:`reap_orphans` did: ``sandboxes`` (names of the dead harnesses' sandboxes it
    ended), ``killed`` (pids it sent SIGKILL), ``kept`` (names of sandboxes whose owner runs)."""

    sandboxes: list[str] = field(default_factory=list)
    killed: list[int] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def _owner_runs(data: dict) -> bool:
    pid = int(data.get("pid") or 0)
    return bool(pid) and process_start(pid) == data.get("start") != ""


def _end(data: dict) -> list[int]:
    """SIGKILL the sandbox's processes, wait for them, remove its root (when it made it)."""
    root = str(data.get("root") or "")
    if not root.startswith("/"):
        return []
    pids = sandbox_processes(root)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    deadline = time.monotonic() + KILL_WAIT_SEC
    while time.monotonic() < deadline and sandbox_processes(root):
        time.sleep(0.05)
    if data.get("own_root"):
        try:
            remove_tree(Path(root))
        except OSError:
            pass
    return pids


def reap_orphans(job: str | None = None) -> Reaped:
    """End the local sandboxes (of ``job`` only, when given) whose owner harness process no longer
    runs on this machine (see the module docstring). Never raises."""
    done = Reaped()
    try:
        paths = sorted(records_dir().glob("*.json"))
    except OSError:
        return done
    host = socket.gethostname()
    for path in paths:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict) or data.get("host") != host or (job and data.get("job") != job):
            continue
        name = path.name[:-len(".json")]
        if _owner_runs(data):
            done.kept.append(name)
            continue
        done.killed += _end(data)
        done.sandboxes.append(name)
        path.unlink(missing_ok=True)
    return done

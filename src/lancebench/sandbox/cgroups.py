"""cgroup v1 limits for sandboxed processes (memory, pids, cpu), used when the harness may write
its own cgroup hierarchy (as root). Where it cannot, :func:`CgroupSet.create` returns None and the
caller falls back to rlimits (``prlimit``)."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")


def _own_path(controller: str) -> str | None:
    """Our process's cgroup path within the v1 hierarchy of ``controller``."""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, ctrls, path = line.split(":", 2)
            if controller in ctrls.split(","):
                return path
    except OSError:
        return None
    return None


def group_dir(ctrl: str, own: str, name: str) -> Path:
    """The folder of sandbox ``name``'s group in controller ``ctrl``'s hierarchy, whose own group
    (of the harness) is ``own``: beside the harness's processes for cpu, in a ``lancebench``
    folder for the others (see :class:`CgroupSet`)."""
    mine = ROOT / ctrl / own.lstrip("/")
    return mine / f"lancebench-{name}" if ctrl == "cpu" else mine / "lancebench" / name


def _prune(parent: Path, prefix: str) -> int:
    """Remove the empty groups in ``parent`` named ``prefix`` + ``<pid>-...`` whose pid no longer
    runs; returns how many."""
    removed = 0
    if not parent.is_dir():
        return 0
    for d in parent.iterdir():
        try:
            owner = int(d.name[len(prefix):].split("-")[0]) if d.name.startswith(prefix) else None
            if owner is None or os.path.exists(f"/proc/{owner}"):
                continue
            if d.is_dir() and not (d / "cgroup.procs").read_text().strip():
                d.rmdir()
                removed += 1
        except (OSError, ValueError):
            pass
    return removed


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` to a cgroup file in one ``write`` (what the kernel reads as one value)."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


class CgroupSet:
    """One cgroup per controller (memory, pids, cpu) for one sandbox.

    Limits: ``memory_mb`` (MiB, memory.limit_in_bytes), ``pids`` (pids.max), ``cpus`` (CFS quota
    as a share of one 100 ms period per CPU). ``procs()`` lists every process inside;
    ``kill()`` sends SIGKILL to all of them; ``remove()`` deletes the groups.

    Where: ``<own>/lancebench/<name>`` in the memory and pids hierarchies (``<own>``: the harness's
    own group there), but ``<own>/lancebench-<name>`` in the cpu hierarchy (:func:`group_dir`):
    a cpu group's weight (``cpu.shares``, 1024) is shared with its siblings, so under one
    ``lancebench`` folder every sandbox of every harness on the host together weighed one
    process, one level further from the root. Measured on a loaded host (load 18, 2 cores), a
    command in such a group took about 2.2x bare bubblewrap, against about 1.2x in a group beside
    the harness's own processes, where each sandbox weighs one process, as its command would in
    no group at all. The CFS quota (the ``cpus`` limit) is the sandbox's own either way.
    """

    def __init__(self, dirs: dict[str, Path]):
        self.dirs = dirs

    @classmethod
    def create(cls, name: str, *, memory_mb: int, pids: int, cpus: float) -> CgroupSet | None:
        """Create the groups, or return None when cgroup v1 is absent or not writable."""
        if os.geteuid() != 0:
            return None
        dirs: dict[str, Path] = {}
        settings = {
            "memory": {"memory.limit_in_bytes": str(memory_mb * 1024 * 1024)},
            "pids": {"pids.max": str(pids)},
            "cpu": {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": str(max(int(cpus * 100000), 1000))},
        }
        for ctrl, values in settings.items():
            own = _own_path(ctrl)
            base = ROOT / ctrl
            if own is None or not base.is_dir():
                continue
            d = group_dir(ctrl, own, name)
            try:
                d.mkdir(parents=True, exist_ok=True)
                for key, value in values.items():
                    (d / key).write_text(value)
            except OSError:
                try:
                    d.rmdir()
                except OSError:
                    pass
                continue
            dirs[ctrl] = d
        if "pids" not in dirs and "memory" not in dirs:
            cls(dirs).remove()
            return None
        return cls(dirs)

    @staticmethod
    def prune_stale() -> int:
        """Remove empty lancebench cgroups whose owning process (the pid after ``sb-`` in the
        name) is gone: what a killed job (``kill -9``) left. Returns how many were removed."""
        removed = 0
        if os.geteuid() != 0:
            return 0
        for ctrl in ("memory", "pids", "cpu"):
            mine = ROOT / ctrl / (_own_path(ctrl) or "/").lstrip("/")
            # the cpu groups beside the harness's own, and any group of any controller in a
            # lancebench folder (where earlier versions put the cpu groups too)
            places = [(mine / "lancebench", "sb-")] + ([(mine, "lancebench-sb-")] if ctrl == "cpu" else [])
            for parent, prefix in places:
                removed += _prune(parent, prefix)
        return removed

    @property
    def has_memory(self) -> bool:
        return "memory" in self.dirs

    @property
    def has_pids(self) -> bool:
        return "pids" in self.dirs

    def enter(self) -> None:
        """Move the calling process into every group; call it in a single-threaded child between
        fork and exec (its one thread is the whole process).

        Written as ``0`` (the calling thread) to each group's ``tasks`` file: the kernel moves the
        writer's own thread without taking the global lock that a write to ``cgroup.procs`` (or of
        another task's id) takes, whose wait for an RCU grace period cost every command 10-15 ms
        on a quiet machine and 40-66 ms under load (kernel/cgroup/cgroup.c,
        ``cgroup_procs_write_start``: the lock is skipped for a single thread that is ``current``).
        Children forked after exec inherit every group. Falls back to writing the pid to
        ``cgroup.procs`` where ``tasks`` cannot be written. Raises ``OSError`` when neither can."""
        for d in self.dirs.values():
            try:
                _write(d / "tasks", b"0")
            except OSError:
                _write(d / "cgroup.procs", str(os.getpid()).encode())

    def tasks_files(self) -> list[Path]:
        """Each group's ``tasks`` file, where a process enters by writing ``0`` (see :meth:`enter`)."""
        return [d / "tasks" for d in self.dirs.values()]

    def procs(self) -> set[int]:
        """Pids inside. Every process enters every group, so one group's list is enough (pids
        first: it is the cheapest to read)."""
        for ctrl in ("pids", "memory", "cpu"):
            d = self.dirs.get(ctrl)
            if d is not None:
                try:
                    return {int(x) for x in (d / "cgroup.procs").read_text().split()}
                except OSError:
                    continue
        return set()

    async def reap(self, wait_sec: float) -> None:
        """Make sure an ended command left no process in the groups: the kernel tears its pid
        namespace down asynchronously (bubblewrap reports the command's exit before its init
        process is gone, so about half the commands still show it for a millisecond or two), so
        wait up to ``wait_sec`` seconds, polling at first every millisecond and less often as the
        wait grows, then :meth:`kill`."""
        deadline = time.monotonic() + wait_sec
        pause = 0.001
        while self.procs():
            if time.monotonic() >= deadline:
                self.kill()
                return
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.025)

    def kill(self) -> None:
        """SIGKILL every process in the groups, repeating until none is left (bounded)."""
        for _ in range(50):
            procs = self.procs()
            if not procs:
                return
            for pid in procs:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def oom_killed(self) -> bool:
        """True when the memory limit was hit (failcnt > 0)."""
        d = self.dirs.get("memory")
        try:
            return d is not None and int((d / "memory.failcnt").read_text()) > 0
        except (OSError, ValueError):
            return False

    def remove(self) -> None:
        self.kill()
        for d in self.dirs.values():
            try:
                d.rmdir()
            except OSError:
                pass

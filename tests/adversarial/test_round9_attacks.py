"""Attack pass round 9 (docs/security.md, "Attack pass round 9"): the local command launcher
(``sandbox/local_launch.py``: cgroups entered through ``tasks``, then ``sh`` -> ``prlimit`` ->
``setpriv`` -> bubblewrap), the cpu groups beside the harness's (``sandbox/cgroups.py``), and the
settings resolved once (``task/settings.py``, ``grading/verifier.py:VerifierSettings``).

1. ``slirp_outside_the_limits``: a public command's network is served by slirp4netns, which ran
   in the harness's cgroups: a UDP flood to slirp's DNS address from a sandbox limited to 0.2 CPU
   made slirp4netns burn 0.86 CPU-seconds in 6 s beside the sandbox's 1.2 (72% more than its
   quota, and its memory outside the sandbox's limit). Fixed: slirp4netns enters the sandbox's
   cgroups before it execs (``local_net.OutboundNet(enter=...)``); the same flood then leaves it
   0.34 s, the sandbox's and slirp's CPU together within the quota.
2. ``shared_user_counts``: every local sandbox ran as host uid 61000, and the kernel counts some
   resources per user across namespaces: one sandbox holding ``fs.inotify.max_user_instances``
   (128) inotify instances made ``inotify_init`` fail (EMFILE) in every other trial's sandbox, its
   verifier's included (queued signals, message queues and pipe pages are counted the same way).
   Fixed: each sandbox the backend opens leases a pair of host uids of its own
   (``sandbox/uid_lease.py``; the capture and the user tool's snapshot read the workspace as its
   owner).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from lancebench.backends.local import LocalBackend
from lancebench.sandbox.base import Limits, SandboxSpec
from lancebench.sandbox.cgroups import ROOT
from lancebench.sandbox.fstree import remove_tree
from lancebench.sandbox.local import LocalSandbox
from lancebench.sandbox.local_net import slirp_missing
from lancebench.task.load import load_task

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tasks"
# holds every inotify instance its user may have, says so in a file, then waits
HOG = ("import ctypes, os, time\nlibc = ctypes.CDLL(None, use_errno=True)\nn = 0\n"
       "while libc.inotify_init() >= 0: n += 1\nopen('held', 'w').write(str(n))\ntime.sleep(60)\n")
ONE = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
       "print('ok' if libc.inotify_init() >= 0 else os.strerror(ctypes.get_errno()))\n")

NO_BWRAP = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
NOT_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="cgroups and the sandbox uid need root")


def _v1_groups(pid: int) -> dict[str, str]:
    """Controller -> cgroup path of process ``pid``, as the host's ``/proc`` says."""
    groups = {}
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, ctrls, path = line.split(":", 2)
        for c in ctrls.split(","):
            groups[c] = path
    return groups


def _children_named(name: bytes) -> list[int]:
    """Pids of this process's children whose command line starts with ``name``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and cmd.split(b"\0", 1)[0].endswith(name):
            found.append(int(entry))
    return found


@NO_BWRAP
@NOT_ROOT
@pytest.mark.skipif(slirp_missing(), reason="slirp4netns is not installed")
def test_a_public_commands_network_work_counts_against_the_sandboxs_cgroups(shared: Path):
    """slirp4netns, which handles every packet of a public command (round 9: a UDP flood made it
    burn 72% more CPU than the sandbox's quota, in the harness's groups), runs in the sandbox's
    memory, pids and cpu groups."""

    async def go():
        sb = LocalSandbox(SandboxSpec(workdir="/app", workspace=shared / "ws", network=True,
                                      limits=Limits(memory_mb=300, pids=50, cpus=0.5, storage_mb=64)),
                          root=shared / "root")
        await sb.start()
        try:
            command = asyncio.ensure_future(sb.exec("sleep 20", timeout=60))
            slirps: list[int] = []
            for _ in range(400):
                slirps = _children_named(b"slirp4netns")
                if slirps:
                    break
                await asyncio.sleep(0.025)
            seen = {pid: _v1_groups(pid) for pid in slirps}
            assert sb.cgroups is not None
            names = {c: "/" + str(d.relative_to(ROOT / c)) for c, d in sb.cgroups.dirs.items()}
            command.cancel()
            return seen, names
        finally:
            await sb.stop()

    seen, names = asyncio.run(go())
    assert len(seen) == 1 and set(names) == {"memory", "pids", "cpu"}
    (groups,) = seen.values()
    assert {c: groups[c] for c in names} == names


@NO_BWRAP
@NOT_ROOT
def test_one_trials_sandbox_cannot_use_up_what_the_kernel_counts_per_user_for_another(shared: Path, monkeypatch):
    """Two sandboxes the local backend opens (two trials' at once): while one holds every inotify
    instance its host user may have, the other still gets one (round 9: EMFILE, the same uid)."""
    monkeypatch.setenv("LANCEBENCH_HOME", str(shared / "home"))
    task = load_task(FIXTURES / "pick")
    backend = LocalBackend()
    limit = int(Path("/proc/sys/fs/inotify/max_user_instances").read_text())
    if limit > 1000:  # one process of the sandbox would meet its open-file limit first
        pytest.skip(f"fs.inotify.max_user_instances is {limit}: too many to hold here")

    async def go():
        env = await backend.prepare(task)
        a, b = backend.open(task, env, shared / "a"), backend.open(task, env, shared / "b")
        await a.start()
        await b.start()
        try:
            hog = asyncio.ensure_future(a.exec(["python3", "-c", HOG], timeout=60))
            for _ in range(400):
                if (a.workspace / "held").is_file() or hog.done():
                    break
                await asyncio.sleep(0.025)
            held = (a.workspace / "held").read_text() if (a.workspace / "held").is_file() else (await hog).output
            other = await b.exec(["python3", "-c", ONE], timeout=60)
            hog.cancel()
            return held, other.stdout.strip(), (a, b)
        finally:
            await a.stop()
            await b.stop()
            for folder in (shared / "a", shared / "b"):  # their storage quotas' mounts too (they stayed mounted)
                remove_tree(folder)

    held, other, (a, b) = asyncio.run(go())
    assert held == str(limit)
    assert other == "ok"
    # no uid shared between the two sandboxes, nor with either one's app server
    assert len({a.uid, a.app_uid, b.uid, b.app_uid}) == 4


def test_a_uid_pair_is_leased_to_one_sandbox_at_a_time(tmp_path: Path, monkeypatch):
    """Leases exclude each other (also within one process), skip a pair holding a host user's uid
    (``nobody``, 65534), are given back by ``release``, and run out with a clear ``SandboxError``."""
    import pwd

    from lancebench.errors import SandboxError
    from lancebench.sandbox import uid_lease

    nobody = pwd.getpwnam("nobody").pw_uid
    users = {p.pw_uid for p in pwd.getpwall()}
    first = nobody - nobody % 2 - 2  # pairs: (first, first+1), nobody's, (first+4, first+5)
    free = {u for u in (first, first + 4) if u not in users and u + 1 not in users}
    monkeypatch.setattr(uid_lease, "LEASE_DIR", tmp_path / "leases")
    monkeypatch.setattr(uid_lease, "FIRST_UID", first)
    monkeypatch.setattr(uid_lease, "PAIRS", 3)
    held = [uid_lease.lease() for _ in free]
    assert free and {h.uid for h in held} == free and all(h.app_uid == h.uid + 1 for h in held)
    with pytest.raises(SandboxError, match="in use on this host"):
        uid_lease.lease()
    gone = held[0].uid
    held[0].release()
    held[0].release()  # twice is fine
    again = uid_lease.lease()
    assert again.uid == gone
    for h in (again, *held[1:]):
        h.release()



@NO_BWRAP
@NOT_ROOT
def test_a_sandbox_stopped_while_it_leases_keeps_no_uid_pair(tmp_path: Path, monkeypatch):
    """The lease is taken in a worker thread (issue 29: its user database lookups stay out of the
    event loop). A start cancelled while its thread leases is stopped (``Sandbox.__aenter__``)
    before the lease is taken: the pair the thread then takes is given back, so no lease outlives
    ``stop`` (every pair can be leased again)."""
    import threading

    from lancebench.sandbox import local, uid_lease

    users = {p.pw_uid for p in __import__("pwd").getpwall()}
    monkeypatch.setattr(uid_lease, "LEASE_DIR", tmp_path / "leases")
    monkeypatch.setattr(uid_lease, "PAIRS", 2)
    free = [u for u in (uid_lease.FIRST_UID, uid_lease.FIRST_UID + 2) if u not in users and u + 1 not in users]
    go_on, leased = threading.Event(), []

    def slow_lease() -> uid_lease.UidLease:  # the real lease, once the stop has run
        go_on.wait(10)
        got = uid_lease.lease()
        leased.append(got)
        return got

    monkeypatch.setattr(local, "lease", slow_lease)
    sb = LocalSandbox(SandboxSpec(workdir="/app", workspace=tmp_path / "ws"), root=tmp_path / "root", lease_uid=True)

    async def go() -> None:
        async def enter() -> None:
            async with sb:
                pass
        entering = asyncio.ensure_future(enter())
        await asyncio.sleep(0.2)  # its thread waits in the lease
        entering.cancel()
        with pytest.raises(asyncio.CancelledError):
            await entering  # __aenter__ stopped it
        go_on.set()
        for _ in range(200):  # the thread takes its pair now, after the stop (and gives it back)
            if leased and leased[0]._fd is None:
                break
            await asyncio.sleep(0.025)

    asyncio.run(go())
    assert leased and leased[0]._fd is None and sb._lease is None
    again = [uid_lease.lease() for _ in free]  # raises SandboxError if a pair were still held
    assert sorted(h.uid for h in again) == free
    for h in again:
        h.release()

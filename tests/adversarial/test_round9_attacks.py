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
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from lancebench.sandbox.base import Limits, SandboxSpec
from lancebench.sandbox.cgroups import ROOT
from lancebench.sandbox.local import LocalSandbox
from lancebench.sandbox.local_net import slirp_missing

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

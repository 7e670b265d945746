"""How a local command is started (issue 29, item 4): through ``sh`` (the cgroups), ``prlimit`` and
``setpriv`` exec'd in turn before bubblewrap, with no Python between fork and exec, or, where those
tools are missing, through the ``preexec_fn`` that did it before. Either way every process of a
command is in the sandbox's cgroups, as the sandbox's host uid without supplementary groups, under
the task's rlimits; a command whose cgroup cannot be entered does not run; and a command's
bubblewrap info is read by the event loop, so commands finish while the default executor is
busy."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from lancebench.errors import SandboxError
from lancebench.sandbox import local_launch
from lancebench.sandbox.base import Limits, SandboxSpec
from lancebench.sandbox.cgroups import ROOT, CgroupSet
from lancebench.sandbox.local import LocalSandbox
from lancebench.sandbox.uid_lease import lease

pytestmark = [pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed"),
              pytest.mark.skipif(os.geteuid() != 0, reason="cgroups and the sandbox uid need root")]

LIMITS = Limits(memory_mb=300, pids=50, cpu_time_sec=123, storage_mb=77)


@pytest.fixture
def shared() -> Path:
    """A folder the sandbox uid can traverse (pytest's own tmp folders are 0700)."""
    base = Path(tempfile.mkdtemp(prefix="lancebench-launch-", dir="/var/tmp"))
    os.chmod(base, 0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(params=["launcher", "preexec"])
def way(request, monkeypatch) -> str:
    """Both ways of starting a command: the exec'd tools, and the fallback when they are missing."""
    if request.param == "preexec":
        monkeypatch.setattr(local_launch, "_tool", lambda name: None)
    return request.param


def make(shared: Path) -> LocalSandbox:
    return LocalSandbox(SandboxSpec(workdir="/app", workspace=shared / "ws", limits=LIMITS), root=shared / "root")


def host_view(pid: int) -> dict[str, object]:
    """What the host says of process ``pid``: uids, groups, two rlimits, its v1 cgroups."""
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    rows = Path(f"/proc/{pid}/limits").read_text().splitlines()[1:]
    limits = {line[:26].strip(): line[26:].split()[:2] for line in rows}
    groups = {}
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, ctrls, path = line.split(":", 2)
        for c in ctrls.split(","):
            groups[c] = path
    return {"uids": status["Uid"].split(), "groups": status["Groups"].split(),
            "fsize": limits["Max file size"], "cpu": limits["Max cpu time"], "cgroups": groups}


def test_every_process_of_a_command_is_in_the_cgroups_as_the_sandbox_uid_under_the_rlimits(shared, way):
    async def go():
        sb = make(shared)
        await sb.start()
        try:
            await sb.exec("true")
            task = asyncio.ensure_future(sb.exec("sleep 30 & sleep 30 & wait", timeout=60))
            pids: set[int] = set()
            for _ in range(600):  # until bwrap, its init, the shell and both sleeps are there
                pids = sb.cgroups.procs() if sb.cgroups else set()
                if len(pids) >= 5:
                    break
                await asyncio.sleep(0.05)
            views = {pid: host_view(pid) for pid in pids}
            names = {c: "/" + str(d.relative_to(ROOT / c)) for c, d in sb.cgroups.dirs.items()} if sb.cgroups else {}
            task.cancel()
            return views, names, sb.uid
        finally:
            await sb.stop()

    views, names, uid = asyncio.run(go())
    assert len(views) >= 5 and set(names) == {"memory", "pids", "cpu"}
    fsize = str(77 * 1024 * 1024)
    for view in views.values():
        assert view["uids"] == [str(uid)] * 4 and view["groups"] == []
        assert view["fsize"] == [fsize, fsize] and view["cpu"] == ["123", "128"]
        for ctrl, path in names.items():
            assert view["cgroups"][ctrl] == path, (ctrl, view)


def test_a_command_whose_cgroup_cannot_be_entered_does_not_run(shared, way):
    async def go():
        sb = make(shared)
        await sb.start()
        try:
            await sb.exec("true")
            assert sb.cgroups is not None
            sb.cgroups.dirs["pids"].rmdir()  # empty between commands; gone, it cannot be entered
            with pytest.raises(SandboxError) as caught:
                await sb.exec("touch /app/ran")
            return str(caught.value), (sb.workspace / "ran").exists()
        finally:
            await sb.stop()

    message, ran = asyncio.run(go())
    assert not ran
    assert "cgroup" in message or "preexec" in message, message


def test_commands_finish_while_the_default_executor_is_busy(shared):
    """Every worker of the loop's default executor waits (as when as many commands as workers run
    at once): a command still finishes, its bubblewrap info read by the loop (regression: read by
    a worker thread per command, it waited for a free one)."""
    async def go():
        sb = make(shared)
        await sb.start()
        release = threading.Event()
        loop = asyncio.get_running_loop()
        loop.set_default_executor(ThreadPoolExecutor(max_workers=2))
        try:
            await sb.exec("true")  # the first command's set-up uses the executor
            blockers = [loop.run_in_executor(None, release.wait) for _ in range(2)]
            try:
                res = await asyncio.wait_for(sb.exec("echo done"), 120)
            finally:
                release.set()
                await asyncio.gather(*blockers)
            return res
        finally:
            release.set()
            await sb.stop()

    res = asyncio.run(go())
    assert res.ok and res.stdout == "done\n"


def test_the_launcher_line_enters_each_cgroup_then_execs_the_command():
    """The ``sh`` script itself, run with a file standing for each ``tasks`` file: it writes ``0``
    to each, in order, then execs the rest; a file it cannot write stops it with ENTER_FAILED."""
    d = Path(tempfile.mkdtemp())
    try:
        files = [d / "a", d / "b"]
        ok = subprocess.run(["/bin/sh", "-c", local_launch.enter_script(2), "x", *map(str, files), "echo", "ran"],
                            capture_output=True, text=True)
        assert ok.returncode == 0 and ok.stdout == "ran\n"
        assert [f.read_text() for f in files] == ["0\n", "0\n"]
        bad = subprocess.run(["/bin/sh", "-c", local_launch.enter_script(2), "x", str(d / "a"),
                              str(d / "missing" / "tasks"), "echo", "ran"], capture_output=True, text=True)
        assert bad.returncode == local_launch.ENTER_FAILED and bad.stdout == ""
        assert "cannot enter" in bad.stderr
    finally:
        shutil.rmtree(d)


def test_without_a_pids_cgroup_the_process_limit_is_set_after_the_uid_change():
    """Without a pids cgroup the prefix alone (no cgroup, no shell) gives the uid, no
    supplementary group, RLIMIT_NPROC (set after the uid change, as ``_preexec`` does) and the
    other rlimits (set before it, as root), read from the process it starts. The uid is leased, so
    that no other sandbox's processes count against its limit of 64 (a fixed 61000 failed to fork
    beside other test runs)."""
    leased = lease()
    try:
        prefix = local_launch.launch_prefix(tasks_files=[], rlimits={"fsize": (4096, 8192)}, uid=leased.uid,
                                            nproc=64)
        assert prefix is not None
        out = subprocess.run([*prefix, "/bin/sh", "-c", "id -u; id -G; cat /proc/self/limits"],
                             capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}, check=True)
    finally:
        leased.release()
    uid, groups, *rows = out.stdout.splitlines()
    limits = {line[:26].strip(): line[26:].split()[:2] for line in rows[1:]}
    assert (uid, groups) == (str(leased.uid), str(leased.uid))
    assert limits["Max processes"] == ["64", "64"] and limits["Max file size"] == ["4096", "8192"]


def own_group(ctrl: str) -> str:
    """This process's group in ``ctrl``'s v1 hierarchy, read from /proc/self/cgroup."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctrls, path = line.split(":", 2)
        if ctrl in ctrls.split(","):
            return path
    raise AssertionError(f"no {ctrl} hierarchy")


def test_a_sandboxs_cpu_group_is_beside_the_harness_not_in_a_folder_shared_by_every_sandbox(shared):
    """A cpu group's weight is shared with its siblings: in one ``lancebench`` folder every
    sandbox on the host together weighed one process (regression: a command took about 2.2x bare
    bubblewrap under load); beside the harness's processes each weighs one. Memory and pids stay
    in the ``lancebench`` folder (limits only, no weight)."""
    async def go():
        sb = make(shared)
        await sb.start()
        try:
            await sb.exec("true")
            assert sb.cgroups is not None
            return dict(sb.cgroups.dirs), sb.name
        finally:
            await sb.stop()

    dirs, name = asyncio.run(go())
    assert dirs["cpu"] == ROOT / "cpu" / own_group("cpu").lstrip("/") / f"lancebench-{name}"
    for ctrl in ("memory", "pids"):
        assert dirs[ctrl] == ROOT / ctrl / own_group(ctrl).lstrip("/") / "lancebench" / name


def test_gc_removes_the_empty_cpu_groups_of_dead_harnesses_in_both_places():
    """``prune_stale`` removes an empty group whose harness pid is gone, beside the harness (cpu)
    and in the ``lancebench`` folder (where earlier versions put it), and keeps a live harness's."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    cpu = ROOT / "cpu" / own_group("cpu").lstrip("/")
    dead_beside = cpu / f"lancebench-sb-{gone.pid}-r29test"
    dead_folder = cpu / "lancebench" / f"sb-{gone.pid}-r29test"
    alive = cpu / f"lancebench-sb-{os.getpid()}-r29test"
    made = [dead_beside, dead_folder, alive]
    try:
        for d in made:
            d.mkdir(parents=True)
        CgroupSet.prune_stale()
        assert (dead_beside.exists(), dead_folder.exists(), alive.exists()) == (False, False, True)
    finally:
        for d in made:
            if d.exists():
                d.rmdir()


def test_the_shell_sets_the_rlimits_itself_when_each_is_a_whole_number_of_its_unit():
    """With a shell (cgroups to enter), the rlimits are set by its ``ulimit`` (one ``exec`` fewer
    than ``prlimit``): the limits read in the process it execs are the ones asked, in bytes,
    seconds and processes; a limit that is no whole number of ``ulimit``'s unit (512-byte blocks)
    leaves them to ``prlimit``; a limit the shell cannot set stops it before the command runs."""
    asked = {"fsize": (77 * 2**20, 77 * 2**20), "as": (600 * 2**20, 600 * 2**20), "cpu": (123, 128),
             "nproc": (50, 50)}
    steps = local_launch.ulimit_script(asked)
    assert steps is not None and local_launch.ulimit_script({"fsize": (1000, 1000)}) is None
    out = subprocess.run(["/bin/sh", "-c", local_launch.enter_script(0, steps), "x", "cat", "/proc/self/limits"],
                         capture_output=True, text=True, check=True)
    limits = {line[:26].strip(): line[26:].split()[:2] for line in out.stdout.splitlines()[1:]}
    assert limits["Max file size"] == [str(77 * 2**20)] * 2 and limits["Max address space"] == [str(600 * 2**20)] * 2
    assert limits["Max cpu time"] == ["123", "128"] and limits["Max processes"] == ["50", "50"]
    prefix = local_launch.launch_prefix(tasks_files=[Path("/dev/null")], rlimits={"fsize": (1000, 1000)}, uid=None,
                                        nproc=None)
    assert prefix is not None and "prlimit" in " ".join(prefix) and "ulimit" not in " ".join(prefix)
    # not root (nobody) under a hard file-size limit of 1 MiB: raising it to 77 MiB fails, nothing runs
    script = local_launch.enter_script(0, steps)
    denied = subprocess.run(["prlimit", "--fsize=1048576:1048576", "setpriv", "--reuid=65534", "--regid=65534",
                             "--clear-groups", "/bin/sh", "-c", script, "x", "echo", "ran"],
                            capture_output=True, text=True)
    assert denied.returncode == local_launch.ENTER_FAILED and denied.stdout == "", denied
    assert "cannot set the sandbox's fsize limit" in denied.stderr

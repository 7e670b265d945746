"""Attack pass round 16 (docs/security.md, "Attack pass round 16"): how a local sandbox command
starts (``sandbox/local_launch.py``), after the rlimits became set by the launcher shell's
``ulimit`` instead of an exec'd ``prlimit`` (commit 477c1d1), as a hostile agent (its commands run
through ``LocalSandbox.exec``) and hostile task content (its limits) meet it.

1. A limit past what the kernel holds. dash's ``ulimit`` multiplies its argument by the unit
   modulo 2**64 without an error (``ulimit -f 36028797018963968`` is a limit of 0 bytes, and a
   number of more than 20 digits wraps as well): a task's ``storage_mb`` of 2**44 + 1 (16 EiB; the
   legacy size strings, ``storage = "99999999P"``, have no upper bound) gave every command a
   file-size limit of 1 MiB, a ``memory_mb`` of 2**43 + 1 without a memory cgroup an address
   space of 2 MiB; ``prlimit`` refused the same values and the ``preexec_fn`` failed with Python's
   ``OverflowError`` (past 2**63 - 1), so the three ways to start a command disagreed. Each misread
   was tighter than asked (no value under 2**64 exceeds one at or past it), so no way out of a
   limit, but a task's limit silently not its own. Fixed: a limit past 2**63 - 1 is no limit
   (``RLIM_INFINITY``: ``unlimited`` to ``ulimit`` and ``prlimit``), the same in all three ways; a
   value the shell could misread otherwise (negative, past 2**63 - 1) never reaches ``ulimit``.
2. Held: the agent's environment (``BASH_ENV``, ``ENV``, an exported ``ulimit`` function,
   ``SHELLOPTS``, ``PATH`` to its own ``ulimit``/``sh``), its working folder and files named like
   the launcher's (``tasks``, ``lancebench-enter``) do not reach the launcher shell: it gets
   ``PATH`` only and the harness's folder, and its arguments are the cgroup files and
   bubblewrap's line; the command's rlimits and cgroups are the task's.
3. Held: a command cannot raise a hard limit (file size, CPU seconds), nor the soft CPU limit past
   the hard one; the CPU limit kills a busy loop (SIGXCPU) and the file-size limit stops a write
   at ``storage_mb`` (SIGXFSZ), both ways of starting a command.
4. Held: a ``ulimit`` that fails stops the launcher before bubblewrap: ``SandboxError`` naming the
   limit, and nothing of the command ran.
5. Held: after a restart with a new leased uid the launcher is made again (its cache key, the
   cgroups and the uid, compares the ``CgroupSet`` by identity) and commands run as the new uid.
   Open (``local.py``, outside this pass's files): a stopped and started sandbox keeps
   ``_provisioned``, so no cgroup is made again; its commands run in no cgroup, under the rlimits
   only (``RLIMIT_NPROC``, the address space at twice ``memory_mb``, no CPU share). Nothing in the
   harness restarts a ``LocalSandbox`` (each trial opens its own): strict xfail.
6. Held: the docker backend does not use the launcher (no import of ``local_launch``, no shell
   ``ulimit`` or ``prlimit``; its rlimits are the engine's ``--ulimit``): unchanged by 477c1d1 and
   by the fix of 1. (By reading: it passes ``storage_mb`` in bytes to the engine as a JSON
   number, which a value past 2**63 - 1 cannot be; the engine refuses it, no misread.)
7. Held: on a host whose ``sh`` is bash (posix mode), the script sets the same file size,
   address space and CPU seconds; bash's ``-p`` is the pipe size, which cannot be set, so a
   process limit in the shell (only with no uid change, which the harness never asks as root)
   stops the command (``ENTER_FAILED``) rather than setting something else.
8. Held, by reading: nothing runs before the cgroups and limits but the launcher's own shell (as
   root, with no input from the agent); the rlimits apply to ``setpriv``, bubblewrap and all the
   command's processes; a ``tasks`` file that cannot be written stops the command
   (``tests/sandbox/test_local_launch.py``).
"""

from __future__ import annotations

import ast
import asyncio
import os
import resource
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from lancebench.errors import SandboxError
from lancebench.sandbox import local_launch
from lancebench.sandbox.base import Limits, SandboxSpec
from lancebench.sandbox.local import LocalSandbox

pytestmark = [pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed"),
              pytest.mark.skipif(os.geteuid() != 0, reason="cgroups and the sandbox uid need root")]

SRC = Path(local_launch.__file__).resolve().parents[1]
LIMITS_READ = "grep -E 'Max (file size|cpu time|address space)' /proc/self/limits"


@pytest.fixture
def shared() -> Path:
    """A folder the sandbox uid can traverse (pytest's own tmp folders are 0700)."""
    base = Path(tempfile.mkdtemp(prefix="lancebench-r16-", dir="/var/tmp"))
    os.chmod(base, 0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(params=["launcher", "preexec"])
def way(request, monkeypatch) -> str:
    """Both ways of starting a command: the exec'd tools, and the fallback when they are missing."""
    if request.param == "preexec":
        monkeypatch.setattr(local_launch, "_tool", lambda name: None)
    return request.param


def make(shared: Path, limits: Limits, **kw) -> LocalSandbox:
    return LocalSandbox(SandboxSpec(workdir="/app", workspace=shared / "ws", limits=limits), root=shared / "root",
                        **kw)


def run(sb: LocalSandbox, *commands: str, **kw) -> list:
    """Start ``sb``, run each command, stop it; the results."""
    async def go():
        await sb.start()
        try:
            return [await sb.exec(c, timeout=60, **kw) for c in commands]
        finally:
            await sb.stop()
    return asyncio.run(go())


def limits_of(text: str) -> dict[str, list[str]]:
    """``/proc/self/limits`` rows (as ``LIMITS_READ`` prints them) -> [soft, hard]."""
    return {line[:26].strip(): line[26:].split()[:2] for line in text.splitlines() if line.startswith("Max ")}


# 1. a limit past what the kernel holds -----------------------------------------------------------

def test_a_storage_limit_past_the_kernels_is_no_limit_not_a_wrapped_one(shared, way):
    """``storage_mb`` 2**44 + 1: dash's ``ulimit -f`` wrapped it to 1 MiB (a 3 MiB write stopped
    by SIGXFSZ); the ``preexec_fn`` failed on Python's OverflowError. Now no limit both ways."""
    res, = run(make(shared, Limits(storage_mb=2**44 + 1)),
               f"{LIMITS_READ}; head -c 3M /dev/zero >/tmp/f; echo rc=$?; wc -c </tmp/f")
    assert res.ok, res
    assert limits_of(res.stdout)["Max file size"] == ["unlimited", "unlimited"]
    assert "rc=0\n3145728\n" in res.stdout


@pytest.mark.parametrize("shell", [True, False], ids=["ulimit", "prlimit"])
def test_every_limit_past_the_kernels_is_no_limit_in_the_shell_and_in_prlimit(shell):
    """The address space (no memory cgroup), file size and CPU seconds past 2**63 - 1, through the
    shell's ``ulimit`` (a cgroup file to enter) and through ``prlimit`` (none): ``unlimited``,
    never a wrapped value (the address space was 2 MiB: nothing could even be exec'd)."""
    lim = Limits(memory_mb=2**43 + 1, storage_mb=2**44 + 1, cpu_time_sec=2**63 - 3)
    asked = local_launch.rlimits(lim, None)
    assert asked == {"as": (-1, -1), "cpu": (2**63 - 3, -1), "fsize": (-1, -1)}
    prefix = local_launch.launch_prefix(tasks_files=[Path("/dev/null")] if shell else [], rlimits=asked, uid=None,
                                        nproc=None)
    assert prefix is not None and ("ulimit" in " ".join(prefix)) == shell
    out = subprocess.run([*prefix, "cat", "/proc/self/limits"], capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out
    got = limits_of(out.stdout)
    assert got["Max address space"] == got["Max file size"] == ["unlimited", "unlimited"]
    assert got["Max cpu time"] == [str(2**63 - 3), "unlimited"]


def test_a_value_the_shell_could_misread_never_reaches_ulimit():
    """Negative values and values past 2**63 - 1 (but RLIM_INFINITY) leave the limits to
    ``prlimit``, which refuses what it cannot hold; ordinary values stay with the shell."""
    assert local_launch.ulimit_script({"fsize": (2**64, 2**64)}) is None
    assert local_launch.ulimit_script({"cpu": (-5, 0)}) is None
    assert local_launch.ulimit_script({"fsize": (512, 512), "cpu": (7, -1)}) == [
        local_launch.ulimit_script({"fsize": (512, 512)})[0],  # type: ignore[index]
        '{ ulimit -t unlimited && ulimit -S -t 7; } || { echo "lancebench: cannot set the sandbox\'s cpu limit" >&2; '
        f'exit {local_launch.ENTER_FAILED}; }}']
    assert resource.RLIM_INFINITY == local_launch.UNLIMITED


@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="no bash")
def test_the_limits_script_under_bash_as_sh_sets_the_asked_limits_or_stops():
    """On a host whose ``sh`` is bash (posix mode: ``-f`` in 512-byte blocks as in dash), the
    script sets the asked file size, address space and CPU seconds; ``-p`` is bash's pipe size,
    which cannot be set: a process limit stops the script with ENTER_FAILED (nothing runs), never
    a limit set on something else."""
    def under_bash(asked: dict[str, tuple[int, int]]) -> subprocess.CompletedProcess:
        script = local_launch.enter_script(0, local_launch.ulimit_script(asked))
        return subprocess.run(["bash", "-c", 'exec -a sh /bin/bash -c "$@"', "x", script, "sh", "cat",
                               "/proc/self/limits"], capture_output=True, text=True)

    ok = under_bash({"fsize": (77 * 2**20,) * 2, "as": (600 * 2**20,) * 2, "cpu": (123, 128)})
    got = limits_of(ok.stdout)
    assert ok.returncode == 0 and got["Max file size"] == [str(77 * 2**20)] * 2, ok
    assert got["Max address space"] == [str(600 * 2**20)] * 2 and got["Max cpu time"] == ["123", "128"]
    stopped = under_bash({"nproc": (50, 50)})
    assert stopped.returncode == local_launch.ENTER_FAILED and stopped.stdout == "", stopped


# 2. the agent's environment, folder and files ----------------------------------------------------

def test_the_agents_environment_and_folder_do_not_reach_the_launcher_shell(shared):
    """A command given ``BASH_ENV``/``ENV`` naming a script of its own, an exported ``ulimit``
    function, ``SHELLOPTS``, a ``PATH`` to its own ``ulimit``, ``sh``, ``prlimit`` and ``setpriv``
    (by their host paths: the script only works outside the sandbox, where a leak would run it),
    in a folder holding files named ``tasks`` and ``lancebench-enter``, then run again: nothing of
    it ran outside, its limits are the task's and it is in the sandbox's cgroups."""
    lim = Limits(memory_mb=300, pids=50, cpu_time_sec=123, storage_mb=77)
    sb = make(shared, lim)
    host = shared / "ws"
    plant = (f"mkdir -p /app/bin && printf '#!/bin/sh\\necho ran >>{host}/pwned\\n' >/app/evil && chmod +x /app/evil"
             " && for n in ulimit sh prlimit setpriv bwrap; do cp /app/evil /app/bin/$n; done && touch /app/tasks "
             "/app/lancebench-enter")
    env = {"BASH_ENV": f"{host}/evil", "ENV": f"{host}/evil", "BASH_FUNC_ulimit%%": "() { :; }",
           "SHELLOPTS": "xtrace", "PATH": f"{host}/bin:/usr/bin:/bin", "IFS": "0"}
    first, again = run(sb, plant, f"{LIMITS_READ}; cat /proc/self/cgroup", env=env, cwd="/app")
    assert first.ok and (host / "evil").read_text() == f"#!/bin/sh\necho ran >>{host}/pwned\n", first
    assert not (host / "pwned").exists()
    got = limits_of(again.stdout)
    assert got["Max file size"] == [str(77 * 2**20)] * 2 and got["Max cpu time"] == ["123", "128"], again
    assert "pids:" in again.stdout and "memory:" in again.stdout


# 3. raising a limit, and the limits at work ------------------------------------------------------

def test_a_command_cannot_raise_a_hard_limit(shared, way):
    res, = run(make(shared, Limits(cpu_time_sec=30, storage_mb=5)),
               "ulimit -H -f unlimited && echo raised-f; ulimit -H -t unlimited && echo raised-t; "
               "ulimit -S -t 36 && echo raised-soft; ulimit -S -t 35 && echo soft-to-hard; "
               f"python3 -c 'import resource; resource.setrlimit(resource.RLIMIT_FSIZE, (-1, -1))' 2>/dev/null "
               f"&& echo raised-py; {LIMITS_READ}")
    assert "raised" not in res.stdout and "soft-to-hard" in res.stdout, res
    got = limits_of(res.stdout)
    assert got["Max file size"] == [str(5 * 2**20)] * 2 and got["Max cpu time"] == ["35", "35"]


def test_the_cpu_and_file_size_limits_stop_a_command(shared, way):
    spin, write = run(make(shared, Limits(cpu_time_sec=1, storage_mb=8)),
                      "exec bash -c 'while :; do :; done'", "head -c 9M /dev/zero >/tmp/big; echo $?; wc -c </tmp/big")
    assert spin.exit_code == 128 + 24 and spin.duration_sec < 30, spin  # SIGXCPU
    assert write.stdout == f"{128 + 25}\n{8 * 2**20}\n", write  # SIGXFSZ, the file cut at storage_mb


# 4. a ulimit that fails --------------------------------------------------------------------------

def test_a_limit_the_shell_cannot_set_stops_the_command_before_bubblewrap(shared, monkeypatch):
    monkeypatch.setitem(local_launch.ULIMIT_FLAGS, "fsize", ("Z", 512))  # dash: illegal option
    sb = make(shared, Limits(storage_mb=77))

    async def go():
        await sb.start()
        try:
            with pytest.raises(SandboxError) as caught:
                await sb.exec("touch /app/ran")
            return str(caught.value), sb._launcher()
        finally:
            await sb.stop()

    message, launcher = asyncio.run(go())
    assert launcher is not None and "ulimit -Z" in " ".join(launcher)
    assert "cannot set the sandbox's fsize limit" in message
    assert not (shared / "ws" / "ran").exists()


# 5. restarts -------------------------------------------------------------------------------------

def restart(sb: LocalSandbox) -> tuple[int | None, int | None, object, str]:
    """Start ``sb``, run a command, stop and start it again, run a command that stays (found by its
    marker, its host uid read); the two uids, the cgroups after the restart, the uid the second
    command ran as on the host."""
    async def go():
        await sb.start()
        await sb.exec("true")
        first = sb.uid
        await sb.stop()
        await sb.start()
        try:
            task = asyncio.ensure_future(sb.exec("exec sleep 31.6016", timeout=60))
            seen = ""
            for _ in range(600):
                for proc in Path("/proc").iterdir():
                    try:
                        if proc.name.isdigit() and b"31.6016" in (proc / "cmdline").read_bytes() \
                                and b"bwrap" not in (proc / "cmdline").read_bytes():
                            seen = (proc / "status").read_text().split("Uid:")[1].split()[0]
                    except OSError:
                        continue
                if seen:
                    break
                await asyncio.sleep(0.05)
            task.cancel()
            return first, sb.uid, sb.cgroups, seen
        finally:
            await sb.stop()
    return asyncio.run(go())


def test_a_restarted_sandbox_with_a_new_uid_gets_a_launcher_of_that_uid(shared):
    first, second, _, seen = restart(make(shared, Limits(), lease_uid=True))
    assert first != second and seen == str(second)


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="open: a restarted LocalSandbox makes no cgroup again (local.py)")
def test_a_restarted_sandbox_runs_its_commands_in_cgroups_again(shared):
    _, _, cgroups, _ = restart(make(shared, Limits()))
    assert cgroups is not None


# 6. the docker backend ---------------------------------------------------------------------------

def test_the_docker_backend_does_not_use_the_local_launcher():
    for path in (SRC / "sandbox" / "docker.py", SRC / "backends" / "docker.py"):
        text = path.read_text()
        names = {a.name for node in ast.walk(ast.parse(text)) if isinstance(node, ast.ImportFrom | ast.Import)
                 for a in node.names} | {node.module or "" for node in ast.walk(ast.parse(text))
                                         if isinstance(node, ast.ImportFrom)}
        assert not any("local_launch" in n for n in names), path
        assert "local_launch" not in text and "prlimit" not in text and "ulimit -" not in text, path

"""How a local sandbox's command is started without running Python between fork and exec.

A command's bubblewrap must start inside the sandbox's cgroups, under its rlimits and as the
sandbox's host uid. A ``preexec_fn`` doing it costs a full ``fork`` of the harness (its page
tables copied: about 50 ms a command for a harness of 300 MB) and the harness's Python running in
the child. Instead, :func:`launch_prefix` gives a command line put before bubblewrap's, which
``subprocess`` starts with ``vfork`` (no copy) and which ends by ``exec`` in the same process:

1. ``sh -c`` (as root, environment ``PATH`` only) writes ``0`` (itself) to each cgroup's
   ``tasks`` file (:meth:`lancebench.sandbox.cgroups.CgroupSet.enter` says why ``tasks`` and ``0``),
   stopping with exit code :data:`ENTER_FAILED` when one cannot be written;
2. the rlimits, as root, as ``LocalSandbox._preexec`` does: set by that shell's ``ulimit`` when
   there is a shell and each limit is a whole number of its unit (:func:`ulimit_script`; one
   ``exec`` fewer, about 1.5 ms a command of the 5 ms a command cost beyond bare bubblewrap,
   issue 29), else by ``prlimit`` (util-linux);
3. ``setpriv --reuid --regid --clear-groups`` (util-linux) becomes the sandbox's host uid (real,
   effective and saved; no supplementary group; a non-root uid keeps no capability);
4. a second ``prlimit`` sets ``RLIMIT_NPROC`` after the uid change, when there is no pids cgroup
   (as ``_preexec`` sets it after ``setuid``);

then ``bwrap``. Each step execs the next, so the command's pid, session and ``--die-with-parent``
stay what they were. Where ``prlimit`` (or, when needed, ``sh`` or ``setpriv``) is missing, None:
the caller keeps its ``preexec_fn``.
"""

from __future__ import annotations

import functools
import resource
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from lancebench.sandbox.base import Limits

if TYPE_CHECKING:
    from lancebench.sandbox.cgroups import CgroupSet

ENTER_FAILED = 125  # the exit code of a command whose cgroups could not be entered


@functools.cache
def _tool(name: str) -> str | None:
    """The absolute path of the program ``name`` in the system's folders, or None."""
    return shutil.which(name, path="/usr/bin:/bin:/usr/sbin:/sbin")


# prlimit's name of a limit -> (the flag of POSIX sh's ``ulimit`` (dash, bash), its unit in the
# limit's own: bytes for fsize and as, seconds, processes)
ULIMIT_FLAGS = {"fsize": ("f", 512), "as": ("v", 1024), "cpu": ("t", 1), "nproc": ("p", 1)}

# The largest limit kept as asked; a larger one is no limit (RLIM_INFINITY). The kernel holds a
# limit in 64 bits, Python's ``setrlimit`` takes at most 2**63 - 1, ``prlimit`` refuses 2**64 and
# more, and dash's ``ulimit`` multiplies by its unit modulo 2**64 without a word: a ``storage_mb``
# of 2**44 + 1 (16 EiB, a legacy size string can say more) became a file-size limit of 1 MiB
# (attack pass round 16). 2**63 bytes, seconds or processes is no limit in effect already.
MOST = 2**63 - 1
UNLIMITED = resource.RLIM_INFINITY


def _capped(value: int) -> int:
    """``value`` as a limit: itself up to :data:`MOST`, else :data:`UNLIMITED`."""
    return UNLIMITED if value > MOST else value


def _word(value: int, unit: int = 1) -> str:
    """How ``ulimit`` and ``prlimit`` are given a limit of ``value``, counted in units of ``unit``."""
    return "unlimited" if value == UNLIMITED else str(value // unit)


def ulimit_script(rlimits: dict[str, tuple[int, int]]) -> list[str] | None:
    """``ulimit`` commands setting each of ``rlimits`` (prlimit's name -> (soft, hard)) in a
    shell running as root: both limits at once (root may raise the hard one), then the soft one
    lowered where it differs; a limit that cannot be set stops the shell with
    :data:`ENTER_FAILED`. None when a limit has no ``ulimit`` flag or is not a whole number of its
    unit (512-byte blocks for ``fsize``, KiB for ``as``) or lies outside 0 … :data:`MOST` (not
    :data:`UNLIMITED`): then ``prlimit`` sets them (or refuses)."""
    steps = []
    for name, (soft, hard) in rlimits.items():
        flag, unit = ULIMIT_FLAGS.get(name, ("", 0))
        if not flag or any(v != UNLIMITED and not (0 <= v <= MOST and v % unit == 0) for v in (soft, hard)):
            return None
        cmd = f"ulimit -{flag} {_word(hard, unit)}" + (f" && ulimit -S -{flag} {_word(soft, unit)}"
                                                       if soft != hard else "")
        steps.append(f'{{ {cmd}; }} || {{ echo "lancebench: cannot set the sandbox\'s {name} limit" >&2; '
                     f'exit {ENTER_FAILED}; }}')
    return steps


def enter_script(n: int, limits: list[str] | None = None) -> str:
    """The ``sh -c`` script entering ``n`` cgroups, then running ``limits`` (shell commands:
    :func:`ulimit_script`): ``$1`` … ``$n`` are the ``tasks`` files, the rest the command to exec."""
    steps = [f'echo 0 >"${i}" || {{ echo "lancebench: cannot enter the sandbox\'s cgroup ${i}" >&2; '
             f'exit {ENTER_FAILED}; }}' for i in range(1, n + 1)]
    return "; ".join([*steps, *(limits or []), f'shift {n}', 'exec "$@"'])


def launch_prefix(*, tasks_files: list[Path], rlimits: dict[str, tuple[int, int]], uid: int | None,
                  nproc: int | None) -> list[str] | None:
    """The command line to put before bubblewrap's (see the module docstring).

    ``tasks_files``: the ``tasks`` file of each cgroup to enter (none: no shell); ``rlimits``:
    ``prlimit`` option name (``fsize``, ``cpu``, ``as``) -> (soft, hard), set before the uid
    changes; ``uid``: the host uid to become (None: stay); ``nproc``: RLIMIT_NPROC set after the
    uid change (None: none). Returns None when a tool it needs is missing."""
    prlimit = _tool("prlimit")
    setpriv = _tool("setpriv") if uid is not None else None
    sh = _tool("sh") if tasks_files else None
    if prlimit is None or (uid is not None and setpriv is None) or (tasks_files and sh is None):
        return None
    argv: list[str] = []
    before_uid = {**rlimits, **({"nproc": (nproc, nproc)} if uid is None and nproc is not None else {})}
    in_shell = ulimit_script(before_uid) if tasks_files else None
    if tasks_files and sh is not None:
        argv += [sh, "-c", enter_script(len(tasks_files), in_shell), "lancebench-enter", *map(str, tasks_files)]
    if in_shell is None and before_uid:
        argv += [prlimit, *(f"--{name}={_word(soft)}:{_word(hard)}" for name, (soft, hard) in before_uid.items()), "--"]
    if uid is not None and setpriv is not None:
        argv += [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
        if nproc is not None:
            argv += [prlimit, f"--nproc={_word(nproc)}:{_word(nproc)}", "--"]
    return argv


def rlimits(lim: Limits, cgroups: CgroupSet | None) -> dict[str, tuple[int, int]]:
    """The rlimits every command of a sandbox with limits ``lim`` and ``cgroups`` gets before its
    uid changes, by ``prlimit`` name (``as``, ``cpu``, ``fsize``) -> (soft, hard): the address
    space (twice ``memory_mb``: it runs larger than resident memory) when no memory cgroup bounds
    it, CPU seconds when the task sets them, and ``storage_mb`` as the largest file; a limit
    past :data:`MOST` is :data:`UNLIMITED` (what ``setrlimit`` takes for none)."""
    out: dict[str, tuple[int, int]] = {}
    if not (cgroups and cgroups.has_memory):
        cap = _capped(lim.memory_mb * 1024 * 1024 * 2)
        out["as"] = (cap, cap)
    if lim.cpu_time_sec:
        out["cpu"] = (_capped(lim.cpu_time_sec), _capped(lim.cpu_time_sec + 5))
    fsize = _capped(lim.storage_mb * 1024 * 1024)
    out["fsize"] = (fsize, fsize)
    return out


def nproc(lim: Limits, cgroups: CgroupSet | None) -> int | None:
    """RLIMIT_NPROC, set after the uid change, when no pids cgroup bounds the processes."""
    return None if cgroups and cgroups.has_pids else _capped(lim.pids)


def sandbox_prefix(tasks_files: list[Path], lim: Limits, cgroups: CgroupSet | None,
                   uid: int | None) -> list[str] | None:
    """:func:`launch_prefix` for the commands of a local sandbox with limits ``lim``, ``cgroups``
    (their ``tasks_files``) and host ``uid``: its :func:`rlimits`, and its :func:`nproc` limit."""
    return launch_prefix(tasks_files=tasks_files, rlimits=rlimits(lim, cgroups), uid=uid, nproc=nproc(lim, cgroups))

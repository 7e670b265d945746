"""The Sandbox protocol every backend implements (``local`` on bubblewrap, ``docker``), and the
value types it uses. A sandbox is an isolated place where commands run; all paths given to it are
paths *inside* the sandbox."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, Self, runtime_checkable

from lancebench.errors import SandboxError


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to every command of a sandbox.

    ``memory_mb`` (MiB, cgroup where available, else address-space rlimit), ``pids`` (processes),
    ``cpus`` (CPU share), ``cpu_time_sec`` (CPU seconds per process, None: none),
    ``output_bytes`` (bytes kept per stream per command: head and tail halves), ``storage_mb``.
    """

    memory_mb: int = 2048
    pids: int = 1024
    cpus: float = 1.0
    cpu_time_sec: int | None = None
    output_bytes: int = 1_000_000
    storage_mb: int = 10240


class CapturedPatch(str):
    """A captured patch: its text (``git diff --binary``, decoded UTF-8 with surrogateescape) and
    ``paths``, the changed repository paths exactly as git's NUL-separated output gives them
    (``git diff --no-renames --name-only -z``), in the patch's order; None when not known."""

    paths: tuple[str, ...] | None

    def __new__(cls, text: str, paths: list[str] | tuple[str, ...] | None = None) -> CapturedPatch:
        obj = super().__new__(cls, text)
        obj.paths = tuple(paths) if paths is not None else None
        return obj


@dataclass(frozen=True)
class Mount:
    """A host folder visible in the sandbox at ``target``; ``writable`` False binds it read-only."""

    source: Path
    target: str
    writable: bool = False


@dataclass(frozen=True)
class SandboxSpec:
    """What a sandbox holds.

    - ``workdir``: the working directory inside (the repository), backed by ``workspace`` on the host
      for ``local`` (for ``docker`` the image's copy is used and ``workspace`` may be None).
    - ``mounts``: further folders (tools read-only, the verifier's log folder writable, ...).
    - ``env``: environment of every command (the host's is never inherited).
    - ``network``: False for none; True with ``allow_hosts`` None for the whole network; True with
      ``allow_hosts`` a tuple (host names, ``*.suffix``, IPs, CIDRs) for those hosts only (empty:
      none). Only the docker backend enforces a tuple; the local one refuses it.
    - ``image``: a docker image (docker backend) or None.
    - ``labels``: job/trial labels (docker labels, local process names).
    """

    workdir: str = "/app"
    workspace: Path | None = None
    mounts: tuple[Mount, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    network: bool = False
    allow_hosts: tuple[str, ...] | None = None
    limits: Limits = field(default_factory=Limits)
    image: str | None = None
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AppProcess:
    """The code under test that a command needs running beside it (a browser task's app server),
    run by :meth:`Sandbox.exec_with_app` under a uid of its own, so that it cannot touch the
    command (the test runner): no ``ptrace``, no ``/proc/<pid>/mem``, no signals, no write access
    to the runner's folders.

    - ``command``: a shell command (``bash -c``), started from the workdir;
    - ``env``: its environment (on top of the sandbox's);
    - ``hidden``: mount targets it must not see (``/tests``, ``/logs/verifier``, ...): the local
      backend leaves them out of its sandbox; docker, one container, relies on their owner and
      mode (the caller gives them to the runner's uid, :func:`lancebench.sandbox.fstree.seal_tree`).
    """

    command: str
    env: dict[str, str] = field(default_factory=dict)
    hidden: tuple[str, ...] = ()


@dataclass
class ExecResult:
    """The outcome of one command.

    ``exit_code`` is None when the command was killed by the harness (timeout) or the sandbox
    broke; ``timed_out`` says it hit its wall-time limit; ``stdout``/``stderr`` are decoded text
    capped at the sandbox's ``output_bytes`` (head and tail kept, the cut stated inline);
    ``truncated_bytes`` is how many bytes were cut in all; ``duration_sec`` is wall seconds.
    """

    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    duration_sec: float = 0.0
    truncated_bytes: int = 0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    @property
    def output(self) -> str:
        """stdout and stderr joined, for display to an agent."""
        if not self.stderr:
            return self.stdout
        return self.stdout + ("\n" if self.stdout and not self.stdout.endswith("\n") else "") + self.stderr


@runtime_checkable
class Sandbox(Protocol):
    """An isolated place where commands run.

    Lifecycle: ``async with backend.open(...) as sandbox:`` (started on entry, stopped on exit,
    whatever ended the block), any number of ``exec``/``put``/``get`` inside; or by hand,
    ``await start()`` ... ``await stop()``. ``stop`` ends every process the sandbox started
    (children and daemons included) and is safe to call twice. Backend failures raise
    :class:`lancebench.errors.SandboxError`; a command that fails is *not* an error (see
    ``ExecResult``). The built-in sandboxes subclass this protocol for :meth:`__aenter__` and
    :meth:`__aexit__`; a plug-in backend's sandbox gets them mixed in when it is opened
    (:func:`lancebench.backends.registry.backend_class`).
    """

    spec: SandboxSpec

    async def start(self) -> None: ...

    async def exec(self, command: str | list[str], *, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout: float | None = None, stdin: bytes | None = None, user: str | None = None) -> ExecResult:
        """Run ``command`` (a string runs under ``bash -c``); ``timeout`` in seconds kills the whole
        process tree; ``user`` ``root`` asks for uid 0 where the backend allows it."""
        ...

    async def exec_with_app(self, command: str | list[str], app: AppProcess, *, cwd: str | None = None,
                            env: dict[str, str] | None = None, timeout: float | None = None,
                            user: str | None = None) -> tuple[ExecResult, str]:
        """Run ``command`` as :meth:`exec` does while ``app`` runs beside it under another uid
        (see :class:`AppProcess`); the app is ended when the command ends. Returns (the command's
        result, the app's output: stdout then stderr, capped). Raises :class:`SandboxError` when
        the backend fails."""
        ...

    async def host_uid(self, user: str | None = None) -> int | None:
        """The host uid that owns what a command run as ``user`` (None: the default user) writes;
        None: the harness's own uid. Call once started. Raises :class:`SandboxError` when
        ``user`` cannot be resolved."""
        ...

    async def put(self, src: Path, dest: str) -> None:
        """Copy a host file or folder to ``dest`` inside the sandbox (parents created)."""
        ...

    async def get(self, src: str, dest: Path, *, max_bytes: int | None = None) -> None:
        """Copy a file or folder at ``src`` inside the sandbox to host path ``dest``; with
        ``max_bytes``, raise :class:`~lancebench.errors.SandboxError` rather than copy more than
        that many bytes of file contents (a folder may be copied in part; see the backend)."""
        ...

    async def stop(self) -> None: ...

    async def __aenter__(self) -> Self:
        """Start the sandbox and return it. When starting fails, what was started is stopped (a
        :class:`SandboxError` of that stop is dropped) and the start's error is raised."""
        try:
            await self.start()
        except BaseException:
            with contextlib.suppress(SandboxError):
                await self.stop()
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        """Stop the sandbox (an error of the block is never replaced, unless stopping raises)."""
        await self.stop()

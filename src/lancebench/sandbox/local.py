"""The ``local`` backend: every command runs in a fresh bubblewrap sandbox over the same host
folders, so files persist between commands while processes do not.

Isolation (per command): new user (no nested ones), pid, network, ipc, uts and cgroup namespaces (a
command with the network gets outbound access only, through slirp4netns: :mod:`.local_net`); the host's
``/usr`` read-only and a minimal ``/etc``; a writable workspace at the workdir; a private ``/tmp``
and ``$HOME``; a cleared environment; all capabilities dropped; ``--die-with-parent``. When the
harness runs as root, commands also run as an unprivileged host uid (one leased per sandbox the
backend opens, :mod:`.uid_lease`; else ``LANCEBENCH_SANDBOX_UID``, default 61000) and inside
per-sandbox cgroups (memory, pids, cpu); otherwise rlimits apply.
Each command's bubblewrap is started with ``vfork`` through ``sh``, ``prlimit`` and ``setpriv``
exec'd in turn (cgroups, rlimits, uid: :mod:`.local_launch`), never with a copy of the harness;
where those tools are missing, a ``preexec_fn`` does the same.
When a command ends, its pid namespace ends with it: background processes never outlive the
command that started them. A timeout kills the whole tree.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path, PurePosixPath
from typing import cast

from lancebench.errors import SandboxError
from lancebench.sandbox import local_owner
from lancebench.sandbox.base import AppProcess, ExecResult, Mount, Sandbox, SandboxSpec
from lancebench.sandbox.cgroups import CgroupSet
from lancebench.sandbox.fstree import (
    CopyBounds,
    chown_tree,
    copy_file,
    copy_tree,
    make_readable,
    remove_tree,
    write_notes,
)
from lancebench.sandbox.local_files import HOME, INSIDE_UID, WRITABLE_ELSEWHERE, Deferred, populate, provide_folders
from lancebench.sandbox.local_launch import nproc, rlimits, sandbox_prefix
from lancebench.sandbox.local_net import MISSING, OutboundNet, slirp_missing
from lancebench.sandbox.output import CappedBuffer, drain, feed
from lancebench.sandbox.uid_lease import UidLease, lease

DEFAULT_PATH = "/env/venv/bin:/env/bin:/usr/local/bin:/usr/bin:/bin"
# Parts of the host's /etc that programs need to work (read-only); nothing else of /etc is visible.
# Debian's JDKs read their conf/ (java.security, ...) through /etc/java-<N>-openjdk.
ETC_BINDS = ("alternatives", "fonts", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "mime.types",
             "ssl", "ca-certificates", "chromium", "chromium.d", "gai.conf",
             "java-11-openjdk", "java-17-openjdk", "java-21-openjdk")
CLONE_NEWNET = 0x40000000
RLIMITS = {"as": resource.RLIMIT_AS, "cpu": resource.RLIMIT_CPU, "fsize": resource.RLIMIT_FSIZE}
_UNSET = object()
REAP_WAIT_SEC = 1.0  # how long an ended command's processes may take to be gone before they are killed (CgroupSet.reap)
_LIBC = ctypes.CDLL(None, use_errno=True)  # setns (os.setns needs Python 3.12), loaded before any fork


def sandbox_host_uid() -> int | None:
    """The host uid sandboxed commands run as: LANCEBENCH_SANDBOX_UID or 61000 when we are root,
    None (our own uid) otherwise."""
    if os.geteuid() != 0:
        return None
    return int(os.environ.get("LANCEBENCH_SANDBOX_UID", "61000"))


def app_host_uid() -> int | None:
    """The host uid a browser task's app server runs as (:meth:`LocalSandbox.exec_with_app`):
    LANCEBENCH_APP_UID or 61001 when we are root, None (no separate uid) otherwise."""
    if os.geteuid() != 0:
        return None
    return int(os.environ.get("LANCEBENCH_APP_UID", "61001"))


@functools.cache
def _bwrap_missing() -> bool:
    return shutil.which("bwrap") is None


def _within(child: PurePosixPath, parent: str) -> bool:
    return child == PurePosixPath(parent) or PurePosixPath(parent) in child.parents


class LocalSandbox(Sandbox):
    """A bubblewrap sandbox (see the module docstring).

    ``spec.workspace`` is the host folder shown at ``spec.workdir`` (required). ``root`` is a host
    folder for the sandbox's own ``/tmp``, ``$HOME``, ``/etc`` and files put outside any mount; a
    temporary one is made (and removed at ``stop``) when omitted. ``deferred``: what the backend
    leaves to the first need of it (:mod:`lancebench.sandbox.local_files`): the copy of the
    repository, the storage quota. ``start`` makes only folders; the first command gives the
    sandbox's folders to the sandbox user and mounts the quota, so a sandbox that never runs a
    command costs no filesystem and no ``chown``.
    Host uids (as root): ``uid`` given (another sandbox's, over the same workspace: the capture),
    else with ``lease_uid`` a pair of uids of its own leased from :meth:`start` to :meth:`stop`
    (:mod:`lancebench.sandbox.uid_lease`: what the backend opens for an agent's code, so that no
    sandbox shares the kernel's per-user counts with another trial's), else :func:`sandbox_host_uid`
    and :func:`app_host_uid`.
    Raises :class:`SandboxError` when bubblewrap is missing or the workspace is unset.
    """

    def __init__(self, spec: SandboxSpec, *, root: Path | None = None, name: str | None = None,
                 deferred: Deferred | None = None, uid: int | None | object = _UNSET, lease_uid: bool = False):
        if spec.workspace is None:
            raise SandboxError("the local backend needs SandboxSpec.workspace (a host folder for the workdir)")
        if spec.network and spec.allow_hosts is not None:
            raise SandboxError("the local backend cannot enforce a network allowlist (network_mode = \"allowlist\"); "
                               "run the task with --backend docker")
        self.spec = spec
        self.workspace: Path = spec.workspace  # the host folder of the workdir
        self.name = name or f"sb-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self._own_root = root is None
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix="lancebench-sb-"))
        if self._own_root:
            os.chmod(self.root, 0o755)
        self.uid: int | None = sandbox_host_uid() if uid is _UNSET else cast(int | None, uid)
        self.app_uid = app_host_uid()  # the host uid of its app server (exec_with_app)
        self._lease_uid = lease_uid and uid is _UNSET and self.uid is not None
        self._lease: UidLease | None = None
        self._lease_lock = threading.Lock()  # the lease is taken in a worker thread (_open_files)
        self._stopping = False
        self.extra: dict[str, Path] = {}  # inside top-level path -> host folder, from put()
        self.cgroups: CgroupSet | None = None
        self.started = False
        self._procs: set[asyncio.subprocess.Process] = set()
        self.deferred = deferred or Deferred()
        self._populated = self.deferred.pristine is None
        self._written = False  # something was put before the first command
        self._provisioned = False  # the first command's set-up (quota, owners) is done
        self._provision_lock = asyncio.Lock()
        self._owner_record: Path | None = None  # local_owner's record, written at provisioning
        self._launch_for: object = _UNSET  # the cgroups and uid self._launch was made for
        self._launch: list[str] | None = None
        self._fixed_args: list[str] | None = None  # bubblewrap's arguments that never change once provisioned

    # lifecycle -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Make the workspace's folder and lease the sandbox's uids (:meth:`_open_files`, in a
        worker thread); the rest (the sandbox's other folders, cgroups, quota, owners) waits for
        the first command (:meth:`provision`). Raises :class:`SandboxError` when bubblewrap is
        missing, no uid pair is free, or the sandbox was stopped while it started."""
        if _bwrap_missing():
            raise SandboxError("bubblewrap (bwrap) is not installed: run `apt-get install bubblewrap`")
        if self.spec.network and slirp_missing():
            raise SandboxError(MISSING)
        with self._lease_lock:
            self._stopping = False
        await asyncio.to_thread(self._open_files)
        if self._lease_uid:
            if self._lease is None:
                raise SandboxError(f"sandbox {self.name} was stopped while it started")
            self.uid, self.app_uid = self._lease.uid, self._lease.app_uid
        self.started = True

    def _open_files(self) -> None:
        """(In a worker thread: the lease's user database lookups read files too.) Make the
        workspace's folder and lease the sandbox's uids (:mod:`lancebench.sandbox.uid_lease`);
        a pair leased once the sandbox is stopping (its start was cancelled) or while it holds
        one already is given back at once, so no lease outlives :meth:`stop`."""
        self.workspace.mkdir(parents=True, exist_ok=True)
        if not self._lease_uid or self._lease is not None:
            return
        taken = lease()
        with self._lease_lock:
            if self._stopping or self._lease is not None:
                taken.release()
            else:
                self._lease = taken

    async def provision(self) -> None:
        """Make the sandbox ready for commands, once (in a worker thread): the storage quota
        mounted and what was written moved onto it, the repository copied in, every writable
        folder given to the sandbox user. Raises :class:`SandboxError` when a folder cannot be
        reached or given to the sandbox user."""
        async with self._provision_lock:
            if not self._provisioned:
                await asyncio.to_thread(self._provision_files)
                self._provisioned = True

    def _provision_files(self) -> None:
        with contextlib.suppress(OSError):  # no record: only a later gc cannot find this sandbox's orphans
            self._owner_record = local_owner.record(self.name, self.root, self._own_root, self.spec.labels)
        provide_folders(self.root, self.workspace, self.spec.mounts, self.deferred, uid=self.uid,
                        pristine=None if self._populated else self.deferred.pristine, written=self._written)
        self._populated = True
        lim = self.spec.limits
        self.cgroups = CgroupSet.create(self.name, memory_mb=lim.memory_mb, pids=lim.pids, cpus=lim.cpus)
        # the launcher for every command from now on (see _launcher), made here, where the cgroups are
        tasks = self.cgroups.tasks_files() if self.cgroups else []
        self._launch = sandbox_prefix(tasks, lim, self.cgroups, self.uid)
        self._launch_for = (self.cgroups, self.uid)

    def _populate(self) -> None:
        """Copy the pristine repository into the workspace, once (see :func:`local_files.populate`)."""
        if not self._populated and self.deferred.pristine is not None:
            populate(self.deferred.pristine, self.workspace, written=self._written)
        self._populated = True

    @property
    def provisioned(self) -> bool:
        """True once the first command's set-up ran (:meth:`provision`): from then on, sandboxed
        code may have written the sandbox's folders."""
        return self._provisioned

    async def populated(self) -> Path:
        """The workspace's host folder, holding the repository (copied first if it was deferred)."""
        if not self._populated:
            await asyncio.to_thread(self._populate)
        return self.workspace

    async def settled(self) -> Path:
        """The workspace's host folder, ready to be read by the harness (the capture): the
        repository copied first if it was deferred; every process of the sandbox killed (as
        root); then, once no process can change it (or when not root), the owner given read
        permission on everything (:func:`lancebench.sandbox.fstree.make_readable`: a file an
        agent made unreadable cannot break the capture). A live workspace (a never-started
        sandbox: the user tool's snapshot of a running agent) is never changed by root: an agent
        could swap a folder for a link to a host file mid-walk; a sandbox where no command ran
        holds only what the harness wrote."""
        await self.populated()
        if self.cgroups:
            await asyncio.to_thread(self.cgroups.kill)
        if (self.cgroups or self.uid is None) and (self._provisioned or self.deferred.pristine is None):
            await asyncio.to_thread(make_readable, self.workspace)
        return self.workspace

    async def stop(self) -> None:
        """Kill every process of the sandbox, remove its cgroups and (if it made it) its root, then
        forget its owner record (:mod:`lancebench.sandbox.local_owner`) and release its uids."""
        for proc in list(self._procs):
            _killpg(proc.pid)
        if self.cgroups:
            await asyncio.to_thread(self.cgroups.remove)
            self.cgroups = None
        for proc in list(self._procs):
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                pass
        self._procs.clear()
        if self._own_root:
            await asyncio.to_thread(remove_tree, self.root)
        if self._owner_record is not None:
            local_owner.forget(self._owner_record)
            self._owner_record = None
        with self._lease_lock:  # every process of the sandbox is gone: its uids may serve another
            self._stopping = True
            if self._lease is not None:
                self._lease.release()
                self._lease = None
        self.started = False

    # bubblewrap ------------------------------------------------------------------------------
    def _mounts(self) -> list[Mount]:
        """Every host folder bound into the sandbox, in bind order."""
        mounts = [Mount(self.workspace, self.spec.workdir, True),
                  Mount(self.root / "tmp", "/tmp", True), Mount(self.root / "home", HOME, True)]
        mounts += [Mount(self.root / sub, target, True) for target, sub in WRITABLE_ELSEWHERE.items()]
        mounts += list(self.spec.mounts)
        mounts += [Mount(src, target, True) for target, src in sorted(self.extra.items())]
        return mounts

    def _app_mounts(self, hidden: tuple[str, ...]) -> list[Mount]:
        """The host folders of an app server's sandbox (:meth:`exec_with_app`): the workspace and
        the spec's mounts read-only, except the ``hidden`` ones; its own ``/tmp``, ``$HOME`` and
        the other writable folders under ``root/app`` (on the same storage_mb filesystem)."""
        own = self.root / "app"
        mounts = [Mount(self.workspace, self.spec.workdir, False),
                  Mount(own / "tmp", "/tmp", True), Mount(own / "home", HOME, True)]
        mounts += [Mount(own / sub, target, True) for target, sub in WRITABLE_ELSEWHERE.items()]
        mounts += [Mount(m.source, m.target, False) for m in self.spec.mounts
                   if not any(_within(PurePosixPath(m.target), h) for h in hidden)]
        return mounts

    def _bwrap_argv(self, cwd: str, env: dict[str, str], info_fd: int | None = None,
                    mounts: list[Mount] | None = None, share_net: bool = False,
                    net: OutboundNet | None = None) -> list[str]:
        """bubblewrap's command line for one command: ``mounts`` (default :meth:`_mounts`), the
        network namespace shared with the caller's when ``share_net`` (an app server, which joins
        its command's), else a new one; ``net`` makes bubblewrap wait until its network is up."""
        # --disable-userns: no nested user namespace (where a process would hold capabilities again)
        argv = ["bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
                "--cap-drop", "ALL",
                "--uid", str(INSIDE_UID), "--gid", str(INSIDE_UID), "--hostname", "lancebench"]
        if share_net:
            argv.append("--share-net")
        if net is not None:
            argv += net.bwrap_args()
        argv += self._fixed()
        for m in self._mounts() if mounts is None else mounts:
            argv += ["--bind" if m.writable else "--ro-bind", str(m.source), m.target]
        # the root is a tmpfs without a size (host memory): read-only, so everything writable is a
        # bound folder of self.root, on the storage_mb filesystem when there is one (sandbox.quota)
        argv += ["--remount-ro", "/", "--clearenv"]
        for key, value in env.items():
            argv += ["--setenv", key, value]
        if info_fd is not None:
            argv += ["--info-fd", str(info_fd)]
        argv += ["--chdir", cwd, "--"]
        return argv

    def _fixed(self) -> list[str]:
        """bubblewrap's arguments for ``/usr``, the top-level links, ``/proc``, ``/dev`` and
        ``/etc``: read from the host and the sandbox's ``etc`` folder once the sandbox is
        provisioned (its ``etc`` is written then and never again), before that at every call."""
        if self._fixed_args is not None:
            return self._fixed_args
        argv = ["--ro-bind", "/usr", "/usr"]
        for link, target in (("/bin", "usr/bin"), ("/sbin", "usr/sbin"), ("/lib", "usr/lib"), ("/lib64", "usr/lib64")):
            if os.path.exists(link):
                argv += ["--symlink", target, link]
        # the host's I/O counters per block device: a loop device keeps its counts after a storage
        # quota is released, so a run could leave a number there for a later one (attack pass round 14)
        argv += ["--proc", "/proc", "--ro-bind", "/dev/null", "/proc/diskstats", "--dev", "/dev"]
        etc = self.root / "etc"
        for name in sorted(os.listdir(etc)):
            argv += ["--ro-bind", str(etc / name), f"/etc/{name}"]
        for name in ETC_BINDS:
            if os.path.exists(f"/etc/{name}"):
                argv += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
        if self._provisioned:
            self._fixed_args = argv
        return argv

    def base_env(self) -> dict[str, str]:
        """The environment every command starts from: a clean one, plus ``spec.env``."""
        env = {"PATH": DEFAULT_PATH, "HOME": HOME, "USER": "agent", "LOGNAME": "agent", "LANG": "C.UTF-8",
               "LC_ALL": "C.UTF-8", "TMPDIR": "/tmp", "TERM": "dumb", "PYTHONDONTWRITEBYTECODE": "1",
               "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": "*"}
        env.update(self.spec.env)
        return env

    def _preexec(self, uid: int | None = None, netns_fd: int | None = None) -> None:
        """Runs in the child between fork and exec: cgroups, rlimits, the network namespace
        ``netns_fd`` when given (an app server joining its runner's), then the unprivileged uid
        (``uid``, default the sandbox's)."""
        if self.cgroups:
            self.cgroups.enter()
        for name, pair in rlimits(self.spec.limits, self.cgroups).items():
            resource.setrlimit(RLIMITS[name], pair)
        if netns_fd is not None and _LIBC.setns(netns_fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns into the runner's network namespace failed")
        uid = self.uid if uid is None else uid
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
        most = nproc(self.spec.limits, self.cgroups)
        if most is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (most, most))

    def _launcher(self) -> list[str] | None:
        """The command line put before a command's bubblewrap (:func:`local_launch.sandbox_prefix`:
        cgroups, rlimits and uid without Python between fork and exec), made once per sandbox's
        cgroups and uid (at provisioning, :meth:`_provision_files`; again here after a restart);
        None where its tools are missing (then :meth:`_preexec` does the same)."""
        if self._launch_for != (self.cgroups, self.uid):
            tasks = self.cgroups.tasks_files() if self.cgroups else []
            self._launch = sandbox_prefix(tasks, self.spec.limits, self.cgroups, self.uid)
            self._launch_for = (self.cgroups, self.uid)
        return self._launch

    # Sandbox protocol ------------------------------------------------------------------------
    async def host_uid(self, user: str | None = None) -> int | None:
        """The host uid commands run as, whatever ``user`` (None: the harness's own)."""
        return self.uid

    async def exec(self, command: str | list[str], *, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout: float | None = None, stdin: bytes | None = None, user: str | None = None) -> ExecResult:
        """Run a command (see :class:`lancebench.sandbox.base.Sandbox`). ``user`` is ignored: the
        local backend never grants root. Raises :class:`SandboxError` if bubblewrap cannot start."""
        res, _ = await self._run(command, cwd=cwd, env=env, timeout=timeout, stdin=stdin, app=None)
        return res

    async def exec_with_app(self, command: str | list[str], app: AppProcess, *, cwd: str | None = None,
                            env: dict[str, str] | None = None, timeout: float | None = None,
                            user: str | None = None) -> tuple[ExecResult, str]:
        """Run ``command`` while ``app`` runs beside it (see :class:`lancebench.sandbox.base.AppProcess`).

        As root, the app runs in a bubblewrap sandbox of its own, as host uid :attr:`app_uid`
        (not the sandbox's), in the command's network namespace (it serves the command on
        127.0.0.1) and in its cgroups, but with its own pid, mount and user namespaces: it cannot
        see the command's processes, and sees the workspace and the mounts read-only, ``app.hidden``
        not at all. Without root there is no second uid: the app then runs inside the command's
        own sandbox, as its user (the known limit in docs/security.md). ``user`` is ignored, as in
        :meth:`exec`. Raises :class:`SandboxError`."""
        if self.app_uid is None:
            wrapped = ["bash", "-c", '(eval "$LANCEBENCH_APP_COMMAND") >/tmp/lancebench-app.log 2>&1 & "$@"', "app",
                       *(["bash", "-c", command] if isinstance(command, str) else command)]
            return await self._run(wrapped, cwd=cwd, env={**(env or {}), **app.env,
                                                          "LANCEBENCH_APP_COMMAND": app.command},
                                   timeout=timeout, stdin=None, app=None)
        return await self._run(command, cwd=cwd, env=env, timeout=timeout, stdin=None, app=app)

    async def _run(self, command: str | list[str], *, cwd: str | None, env: dict[str, str] | None,
                   timeout: float | None, stdin: bytes | None, app: AppProcess | None) -> tuple[ExecResult, str]:
        """:meth:`exec`, with ``app`` started beside the command once its sandbox exists."""
        if not self.started:
            raise SandboxError("LocalSandbox.exec called before start()")
        await self.provision()
        argv_cmd = ["bash", "-c", command] if isinstance(command, str) else list(command)
        full_env = self.base_env()
        full_env.update(env or {})
        t0 = time.monotonic()
        out, err = CappedBuffer(self.spec.limits.output_bytes), CappedBuffer(self.spec.limits.output_bytes)
        net = OutboundNet(self.uid, self.cgroups.enter if self.cgroups else None) if self.spec.network else None
        launcher = self._launcher()
        proc, info = await self._spawn(functools.partial(self._bwrap_argv, net=net), cwd or self.spec.workdir,
                                       full_env, argv_cmd, stdin, self._preexec if launcher is None else None, net,
                                       prefix=launcher or [])
        if net is not None:
            await self._connect(proc, info, net)
        timed_out = False
        readers = asyncio.gather(drain(proc.stdout, out), drain(proc.stderr, err), feed(proc, stdin))
        companion = asyncio.ensure_future(self._companion(app, info, cwd)) if app else None
        try:
            await asyncio.wait_for(asyncio.shield(readers), timeout)
            await proc.wait()
        except TimeoutError:
            timed_out = True
            self._kill_tree(proc)
            await proc.wait()
            try:
                await asyncio.wait_for(readers, 5)
            except TimeoutError:
                readers.cancel()
        except asyncio.CancelledError:
            self._kill_tree(proc)
            readers.cancel()
            readers.add_done_callback(lambda f: f.cancelled() or f.exception())
            raise
        finally:
            self._procs.discard(proc)
            app_output = "" if companion is None else await self._end_companion(companion)
            if net is not None:
                await net.close()
        stdout_text, stderr_text = out.text(), err.text()
        if self.cgroups is not None and not self._procs:  # no other command of this sandbox runs
            await self.cgroups.reap(REAP_WAIT_SEC)
        code = proc.returncode
        if b"child-pid" not in await info and not timed_out:
            raise SandboxError(f"bubblewrap could not set up the sandbox: {stderr_text.strip()[:500]}")
        return ExecResult(exit_code=None if timed_out else code, stdout=stdout_text, stderr=stderr_text,
                          timed_out=timed_out, duration_sec=time.monotonic() - t0,
                          truncated_bytes=out.cut + err.cut), app_output

    async def _spawn(self, make_argv, cwd: str, env: dict[str, str], argv_cmd: list[str], stdin: bytes | None,
                     preexec, net: OutboundNet | None = None, *, prefix: list[str] | None = None
                     ) -> tuple[asyncio.subprocess.Process, asyncio.Future[bytes]]:
        """Start bubblewrap (``prefix`` + ``make_argv(cwd, env, info_fd=...)`` + ``argv_cmd``) with
        ``preexec`` (None: none, so ``subprocess`` uses ``vfork``) and ``net``'s block pipe, when
        given; returns the process and a future of what bubblewrap
        wrote to its info fd (``{"child-pid": N}`` once the sandbox is set up; read to its end, which
        comes when bubblewrap closes it or exits)."""
        info_r, info_w = os.pipe()
        argv = (prefix or []) + make_argv(cwd, env, info_fd=info_w) + argv_cmd
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True,
                preexec_fn=preexec, env={"PATH": "/usr/bin:/bin"},
                pass_fds=(info_w,) if net is None else (info_w, net.block_r))
        except (OSError, ValueError, subprocess.SubprocessError) as exc:  # SubprocessError: preexec failed
            os.close(info_r)
            if net is not None:
                await net.close()
            raise SandboxError(f"could not start bubblewrap: {exc}") from exc
        finally:
            os.close(info_w)
            if net is not None:
                net.after_spawn()
        self._procs.add(proc)
        return proc, _read_to_end(info_r)

    async def _connect(self, proc: asyncio.subprocess.Process, info: asyncio.Future[bytes], net: OutboundNet) -> None:
        """Give the command of ``proc`` (bubblewrap, waiting on ``net``'s block pipe) its network
        (:meth:`OutboundNet.attach`); when that fails, kill the command and raise
        :class:`SandboxError` (or re-raise a cancellation)."""
        try:
            await net.attach(await info)
        except BaseException:
            self._kill_tree(proc)
            self._procs.discard(proc)
            await proc.wait()
            await net.close()
            raise

    async def _companion(self, app: AppProcess, info: asyncio.Future[bytes], cwd: str | None) -> str:
        """Run ``app`` (see :meth:`exec_with_app`) once the command's sandbox exists, until cancelled;
        returns its output."""
        match = re.search(rb'"child-pid"\s*:\s*(\d+)', await info)
        if match is None:
            return ""
        uid = self.app_uid
        own = self.root / "app"
        for sub in ("tmp", "home", *WRITABLE_ELSEWHERE.values()):
            (own / sub).mkdir(parents=True, exist_ok=True)
        chown_tree(own, uid)
        netns = os.open(f"/proc/{int(match.group(1))}/ns/net", os.O_RDONLY)
        out, err = CappedBuffer(self.spec.limits.output_bytes), CappedBuffer(self.spec.limits.output_bytes)
        proc = None
        try:
            argv = functools.partial(self._bwrap_argv, mounts=self._app_mounts(app.hidden), share_net=True)
            proc, app_info = await self._spawn(
                argv, cwd or self.spec.workdir, {**self.base_env(), **app.env}, ["bash", "-c", app.command], None,
                functools.partial(self._preexec, uid=uid, netns_fd=netns))
            app_info.cancel()
            await asyncio.gather(drain(proc.stdout, out), drain(proc.stderr, err), proc.wait())
        except asyncio.CancelledError:
            pass
        finally:
            os.close(netns)
            if proc is not None:
                _killpg(proc.pid)
                self._procs.discard(proc)
        return out.text() + err.text()

    @staticmethod
    async def _end_companion(companion: asyncio.Future[str]) -> str:
        """End an app server started by :meth:`_companion` and return its output."""
        companion.cancel()
        try:
            return await companion
        except asyncio.CancelledError:
            return ""

    def _kill_tree(self, proc: asyncio.subprocess.Process) -> None:
        _killpg(proc.pid)
        if self.cgroups:
            self.cgroups.kill()

    def host_path(self, inside: str, *, for_write: bool = False) -> Path:
        """The host path behind an absolute path inside the sandbox.

        Paths outside every mount map to the sandbox's ``extra`` folder (for ``put``, a new bind
        is added for their top-level folder). Raises :class:`SandboxError` for a path that leaves
        its mount through ``..`` or a symlink (a sandboxed process must not make the harness
        read or write host files)."""
        p = PurePosixPath(os.path.normpath(inside))
        if not p.is_absolute():
            p = PurePosixPath(self.spec.workdir) / p
        for m in sorted(self._mounts(), key=lambda m: len(m.target), reverse=True):
            if _within(p, m.target):
                if for_write and not m.writable:
                    raise SandboxError(f"{inside} is read-only in the sandbox")
                return _safe_join(m.source, p.relative_to(m.target))
        if not for_write:
            raise SandboxError(f"{inside} does not exist in the sandbox")
        top = PurePosixPath("/", p.parts[1])
        src = self.root / "extra" / p.parts[1]
        src.mkdir(parents=True, exist_ok=True)
        if self._provisioned:
            chown_tree(src, self.uid)
        self.extra[str(top)] = src
        return _safe_join(src, p.relative_to(top))

    async def put(self, src: Path, dest: str) -> None:
        """Copy host ``src`` (file or folder) to ``dest`` inside; owned by the sandbox user (given
        at once after the first command, else by that command's set-up)."""
        await asyncio.to_thread(self._put, Path(src), dest)

    def _put(self, src: Path, dest: str) -> None:
        self._written = True
        target = self.host_path(dest, for_write=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, target, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(src, target)
        if not self._provisioned:
            return
        chown_tree(target, self.uid)
        parent = target.parent
        while self.uid is not None and parent != self.root and self.root in parent.parents:
            os.lchown(parent, self.uid, self.uid)
            parent = parent.parent

    async def get(self, src: str, dest: Path, *, max_bytes: int | None = None) -> None:
        """Copy ``src`` inside to host ``dest``. Symbolic links inside a folder are left out (never followed);
        special files (FIFOs, sockets, devices), which could block the harness, are skipped; a
        folder is copied within :class:`CopyBounds` (``max_bytes`` of file contents when given;
        what is past them is left out and listed in ``<dest>.copy-notes.txt``). Raises
        :class:`SandboxError` when ``src`` is missing, a symlink or a special file, or is a file
        larger than ``max_bytes``."""
        await asyncio.to_thread(self._get, src, dest, max_bytes)

    def _get(self, src: str, dest: Path, max_bytes: int | None) -> None:
        source = self.host_path(src)
        st = _lstat(source)  # one lstat: a link is neither a folder nor a regular file
        if not self._populated and (st is None or not stat.S_ISREG(st.st_mode)):
            self._populate()  # a file put before the copy is the copy's too; anything else needs it
            source = self.host_path(src)
            st = _lstat(source)
        if st is None or not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
            raise SandboxError(f"{src} is missing, a symlink or not a regular file in the sandbox")
        dest.parent.mkdir(parents=True, exist_ok=True)
        try:
            if stat.S_ISDIR(st.st_mode):
                bounds = CopyBounds() if max_bytes is None else CopyBounds(max_bytes=max_bytes)
                notes = copy_tree(source, dest, bounds)
                write_notes(dest, notes)
            else:
                if max_bytes is not None and st.st_size > max_bytes:
                    raise SandboxError(f"{src} is larger than {max_bytes} bytes")
                copy_file(source, dest, limit=max_bytes)
        except OSError as exc:
            raise SandboxError(f"could not copy {src} out of the sandbox: {exc}") from exc


def _lstat(path: Path) -> os.stat_result | None:
    """``path``'s own status (a link's, never its target's); None when it is missing or unreadable."""
    try:
        return os.lstat(path)
    except OSError:
        return None


def _safe_join(base: Path, rel: PurePosixPath) -> Path:
    """``base / rel`` after checking that no component of ``rel`` is a symlink and none is ``..``."""
    cur = base
    for part in rel.parts:
        if part in ("..", ""):
            raise SandboxError(f"path {rel} leaves its folder")
        cur = cur / part
        if cur.is_symlink():
            raise SandboxError(f"path {rel} goes through a symlink ({part}); refusing to follow it")
    return cur


def _read_to_end(fd: int) -> asyncio.Future[bytes]:
    """A future of everything read from ``fd`` (a pipe's read end, which this takes over) up to its
    end, read by the running event loop as it arrives: no thread waits on it, so any number of
    commands may run at once whatever the default executor's size. The fd is read to its end and
    closed even when the future is cancelled (a writer must never find the pipe closed)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[bytes] = loop.create_future()
    data = bytearray()
    os.set_blocking(fd, False)

    def readable() -> None:
        try:
            chunk = os.read(fd, 65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if chunk:
            data.extend(chunk)
            return
        loop.remove_reader(fd)
        os.close(fd)
        if not future.done():
            future.set_result(bytes(data))

    loop.add_reader(fd, readable)
    return future


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass

"""The ``docker`` backend: one container per sandbox, from the task's environment image.

A container holds the workdir (the image's own copy of the repository), the spec's mounts and
nothing else of the host. It runs with network ``none`` (the default bridge only when
``spec.network``; with ``spec.allow_hosts`` as well, only those hosts are reachable, see
:mod:`lancebench.sandbox.docker_network`), the capabilities of :data:`CAPABILITIES` only (Harbor's
containers' set minus what isolation needs), ``no-new-privileges``, a pids
limit, a memory limit without swap, a CPU quota, ``storage_mb`` (the sum of everything it writes,
on a quota filesystem of its own: :mod:`lancebench.sandbox.docker_quota`; and each file, the
``fsize`` rlimit) and ``cpu_time_sec`` as RLIMIT_CPU. Its main process is ``docker-init`` keeping
``sleep`` alive; every command is a ``docker exec``.

As in the local backend, background processes never outlive the command that started them, and a
timeout ends the whole tree *inside* the container (see :mod:`lancebench.sandbox.docker_shell`);
when a tree cannot be ended from inside (a fork bomb holding every pid), the container is
restarted, which keeps its files and ends every process. Output is capped per stream (head and
tail). ``put``/``get`` copy tar streams. Containers carry the labels ``lancebench.managed``,
``lancebench.job`` and ``lancebench.trial``; they are removed by ``stop()``, at interpreter exit
(Ctrl-C included), and by :func:`gc` after a crash.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import re
import tarfile
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from lancebench.errors import SandboxError
from lancebench.sandbox import docker_engine as engine
from lancebench.sandbox.base import AppProcess, ExecResult, Sandbox, SandboxSpec
from lancebench.sandbox.docker_engine import LABEL_ENVIRONMENT, LABEL_JOB, LABEL_MANAGED, LABEL_TRIAL, engine_problem
from lancebench.sandbox.docker_image import ensure_image
from lancebench.sandbox.docker_network import ContainerFilter
from lancebench.sandbox.docker_public import isolate, public_network
from lancebench.sandbox.docker_quota import ContainerQuota, prune_stale, quota_of, release_container, say_once
from lancebench.sandbox.docker_shell import KILLER, WRAPPER
from lancebench.sandbox.docker_stream import ExecStream, exit_code
from lancebench.sandbox.fstree import copy_tree, remove_tree, write_notes
from lancebench.sandbox.output import CappedBuffer

__all__ = ["DockerSandbox", "ensure_image", "gc", "GcResult", "engine_problem"]

#: Environment every command starts from, on top of the image's own ENV (PATH, ...) and below
#: ``spec.env`` (the host's environment is never inherited).
BASE_ENV = {"LANG": "C.UTF-8", "TERM": "dumb", "PYTHONDONTWRITEBYTECODE": "1",
            "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": "*"}
KEEPER = ["sleep", "2147483647"]
# The capabilities a container keeps (docs/security.md, "Capabilities"): Docker's default set, which
# Harbor's containers run with, minus NET_RAW (packet sockets go around the allowlist's nftables
# rules and can forge a source address for the DNS filter's per-container check), MKNOD (a device
# node made in a writable bind mount would be a device file on the host), SETFCAP and SETPCAP (file
# and process capabilities: nothing a task needs). They hold for uid 0 only: a command run as
# another uid (the agent's user, the app server's 61001) has none. NET_ADMIN, SYS_ADMIN,
# SYS_PTRACE, SYS_MODULE, DAC_READ_SEARCH and the rest of the kernel's list are never added.
CAPABILITIES = ("AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "NET_BIND_SERVICE",
                "SETGID", "SETUID", "SYS_CHROOT")
_GO_MODE_DIR = 1 << 31
_GO_MODE_SYMLINK = 1 << 27
_KILL_GRACE_SEC = 5.0
_TAR_OVERHEAD = 1024 * 1024  # tar headers and padding beyond the files' bytes, for get(max_bytes=)

_live: dict[str, DockerSandbox] = {}
_live_lock = threading.Lock()


_ncpu: list[int] = []


def app_uid() -> int:
    """The uid (and gid) a browser task's app server runs as in a container
    (:meth:`DockerSandbox.exec_with_app`): ``LANCEBENCH_APP_UID``, default 61001."""
    return int(os.environ.get("LANCEBENCH_APP_UID", "61001"))


def _engine_cpus() -> int:
    """CPUs of the engine's machine (a quota above it is refused by the engine)."""
    if not _ncpu:
        _ncpu.append(int(engine.client().info().get("NCPU") or os.cpu_count() or 1))
    return _ncpu[0]


def _labels(spec: SandboxSpec) -> dict[str, str]:
    """``spec.labels`` under the ``lancebench.`` prefix (``job`` becomes ``lancebench.job``)."""
    out = engine.managed_labels()
    for key, value in spec.labels.items():
        out[key if key.startswith("lancebench.") else f"lancebench.{key}"] = str(value)
    return out


def _container_name(labels: dict[str, str]) -> str:
    parts = [labels.get(LABEL_JOB, ""), labels.get(LABEL_TRIAL, "")]
    stem = re.sub(r"[^a-zA-Z0-9_.-]+", "-", "-".join(p for p in parts if p))[:80].strip("-.")
    return f"lancebench-{stem + '-' if stem else ''}{uuid.uuid4().hex[:8]}"


# The host's I/O counters per block device, hidden from every container: a loop device keeps its
# counts after a storage quota is released (and a halted container's while it is removed), so a
# run could leave a number there for a later one, the graded run for its canary run (attack pass
# round 14). (target, source, type); runc allows a bind over /proc/diskstats, as lxcfs does.
COUNTERS_MASKED = (("/proc/diskstats", "/dev/null", "bind"), ("/sys/devices/virtual/block", None, "tmpfs"))


class DockerSandbox(Sandbox):
    """A container running ``spec.image`` (see the module docstring).

    ``spec.image`` is required (an image tag, e.g. from :func:`ensure_image`); ``spec.workspace``
    is not used (the image holds the workdir). ``user`` in :meth:`exec` is honoured (``root`` runs
    as uid 0 with :data:`CAPABILITIES`); the default is the image's ``USER``.

    Storage (:mod:`lancebench.sandbox.docker_quota`): with ``quota_folder`` (a fresh folder the
    caller removes with :func:`lancebench.sandbox.fstree.remove_tree`), the quota is mounted there
    and covers the spec's writable mounts too, until their folders are removed the same way: at
    once when the spec has a writable mount (the caller may write into it before the start), else
    at :meth:`start`, in its worker thread (the agent's container: no ``mkfs`` and loop mount on
    the caller's event loop, and none for a sandbox never started); without it, the quota is
    mounted at :meth:`start` under :func:`~lancebench.sandbox.docker_quota.quota_root` and bounds
    the container's own files only. ``quota`` False: none (containers that run only the harness's own commands, e.g. the
    capture's). Raises :class:`SandboxError` when no engine answers, the image is missing or the
    engine fails.
    """

    def __init__(self, spec: SandboxSpec, *, name: str | None = None, quota: bool = True,
                 quota_folder: Path | None = None):
        if not spec.image:
            raise SandboxError("the docker backend needs SandboxSpec.image (build one with "
                               "lancebench.sandbox.docker.ensure_image(task))")
        self.spec = spec
        self.labels = _labels(spec)
        self.name = name or _container_name(self.labels)
        self.container_id: str | None = None
        self.image_id: str | None = None  # the id of spec.image when the container was made (start)
        self._uid_gid: tuple[int, int] = (0, 0)
        self._restarts = 0
        self._halted = False  # seen stopped by halt(): its removal needs no kill
        self._aio_client: Any = None  # aiodocker.Docker of the exec streams, bound to _aio_loop
        self._aio_loop: asyncio.AbstractEventLoop | None = None
        self._filter: ContainerFilter | None = None
        self._lifted = False  # an allowlist lifted for a step with the whole network (see apply_network)
        self._want_quota = quota
        self.quota: ContainerQuota | None = None
        # the container's upper overlay folder as this machine sees it (its quota's copy of the
        # layer, which the engine mounted: set by start), for the capture's look at what changed
        self.host_upper: Path | None = None
        self._quota_folder = quota_folder if quota else None  # where start() mounts it (None: quota_root)
        if quota and quota_folder is not None and any(m.writable for m in spec.mounts):
            self.quota = ContainerQuota.open(self.name, spec.limits.storage_mb, quota_folder)
            self._want_quota = False  # opened (or said why not)
            if self.quota is not None:
                try:
                    self.quota.cover(spec.mounts)
                except OSError as exc:
                    say_once(f"a writable folder could not be put on the quota: {exc}")

    # lifecycle -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Create and start the container. Raises :class:`SandboxError` (image missing, engine error)."""
        await asyncio.to_thread(self._start_sync)

    def _start_sync(self) -> None:
        docker = engine._import_docker()
        cli = engine.client()
        spec, lim = self.spec, self.spec.limits
        try:
            image = cli.images.get(spec.image)
        except docker.errors.ImageNotFound as exc:
            raise SandboxError(f"docker image {spec.image} is not present; build it with ensure_image(task) "
                               "or `docker pull`/`docker load` it") from exc
        except docker.errors.APIError as exc:
            raise SandboxError(f"docker could not inspect image {spec.image}: {exc}") from exc
        self.image_id = image.id
        image_env = image.attrs.get("Config", {}).get("Env") or []
        env = dict(BASE_ENV)
        image_keys = {e.split("=", 1)[0] for e in image_env}
        for key in list(env):
            if key in image_keys:
                del env[key]
        env.update(spec.env)
        ulimits = [docker.types.Ulimit(name="fsize", soft=lim.storage_mb * 1024 * 1024,
                                       hard=lim.storage_mb * 1024 * 1024)]
        if lim.cpu_time_sec:
            ulimits.append(docker.types.Ulimit(name="cpu", soft=lim.cpu_time_sec, hard=lim.cpu_time_sec + 5))
        mounts = [docker.types.Mount(target=m.target, source=str(Path(m.source).resolve()), type="bind",
                                     read_only=not m.writable) for m in spec.mounts]
        for m in spec.mounts:
            if m.writable:
                Path(m.source).mkdir(parents=True, exist_ok=True)
        mounts += self._open_quota(docker)
        mounts += [docker.types.Mount(target=target, source=source, type=kind, read_only=True)
                   for target, source, kind in COUNTERS_MASKED]
        try:
            container = cli.containers.create(
                spec.image, entrypoint=KEEPER[:1], command=KEEPER[1:], name=self.name, hostname="lancebench",
                working_dir=spec.workdir, environment=env, labels=self.labels, init=True,
                network_mode=self._network_mode(),
                cap_drop=["ALL"], cap_add=list(CAPABILITIES), security_opt=["no-new-privileges"],
                mem_limit=lim.memory_mb * 1024 * 1024, memswap_limit=lim.memory_mb * 1024 * 1024,
                nano_cpus=int(min(lim.cpus, _engine_cpus()) * 1e9),
                pids_limit=lim.pids + 4,  # + docker-init, keeper, wrapper, killer
                # /dev/shm (without a quota): Docker's 64 MB default crashes Chromium on real apps;
                # its pages count toward the memory limit anyway, so half of it costs no extra
                # memory; never more than storage_mb. With a quota it is a folder on the quota.
                shm_size=f"{min(max(64, lim.memory_mb // 2), lim.storage_mb)}m",
                ulimits=ulimits, mounts=mounts, log_config={"type": "none"}, stdin_open=False, tty=False)
        except docker.errors.APIError as exc:
            self._remove_sync()  # releases the quota
            raise SandboxError(f"docker could not create a container from {spec.image}: {exc}") from exc
        self.container_id = container.id
        with _live_lock:
            _live[container.id] = self
        try:
            self._attach_quota(container.attrs)
            container.start()
            container.reload()
        except docker.errors.APIError as exc:
            self._remove_sync()
            raise SandboxError(f"docker could not start container {self.name} ({spec.image}): {exc}") from exc
        if container.status != "running":
            self._remove_sync()
            raise SandboxError(f"container {self.name} ({spec.image}) stopped at once (status {container.status}); "
                               f"does the image have `sleep`?")
        if self.quota is not None and self.quota.layer is not None:
            if self.quota.started():
                self.host_upper = self.quota.folder / "layer" / "diff"
            else:
                say_once("the engine does not see this machine's mounts (another mount namespace)")
        if spec.network and spec.allow_hosts is not None:
            try:
                self._filter = ContainerFilter(spec.allow_hosts)
                self.apply_network()
            except (SandboxError, ValueError) as exc:
                self._remove_sync()
                raise SandboxError(f"container {self.name}: {exc}") from exc
        self._uid_gid = self._resolve_user(image.attrs.get("Config", {}).get("User") or "")

    def _network_mode(self) -> str:
        """The container's network: none without ``spec.network``; the default bridge for an
        allowlist (its rules installed after the start); else the whole network, on
        :func:`lancebench.sandbox.docker_public.public_network` (no container reaches another)."""
        if not self.spec.network:
            return "none"
        return "bridge" if self.spec.allow_hosts is not None else public_network()

    def apply_network(self) -> None:
        """(Re)install the allowlist in the running container's network namespace (after every
        start: a restarted container gets a fresh namespace), or, once lifted for a step with the
        whole network, the rules that keep the other containers of the bridge out of reach
        (:func:`lancebench.sandbox.docker_public.isolate`); nothing for a container without
        either. Raises :class:`SandboxError` (the container must then not be used: it may have
        more network)."""
        if self._filter is not None:
            self._filter.apply(*self._netns()[:3])
        elif self._lifted:
            netns, address, gateway, prefix = self._netns()
            isolate(netns, address, prefix, gateway)

    def _netns(self) -> tuple[str, str, str, int]:
        """(network namespace file, bridge address, gateway, prefix length) of the running container."""
        net = engine.client().api.inspect_container(self._require()).get("NetworkSettings") or {}
        if not net.get("SandboxKey") or not net.get("IPAddress") or not net.get("Gateway"):
            raise SandboxError(f"container {self.name} has no network namespace or bridge address to filter")
        return net["SandboxKey"], net["IPAddress"], net["Gateway"], int(net.get("IPPrefixLen") or 16)

    async def set_allow_hosts(self, allow_hosts: tuple[str, ...] | None) -> None:
        """Change the network of a started container with a network (a multi-step task's next
        step): ``allow_hosts`` None for the whole network, a tuple for only those hosts (empty:
        none). Raises :class:`SandboxError` for a container started without a network."""
        if not self.spec.network:
            if allow_hosts == ():
                return
            raise SandboxError(f"container {self.name} was started without a network; it cannot get one")
        if self._filter is not None:
            self._filter.release()
        self._filter = ContainerFilter(allow_hosts) if allow_hosts is not None else None
        self._lifted = self._filter is None  # the whole network, but no other container of the bridge
        await asyncio.to_thread(self.apply_network)

    def _open_quota(self, docker: Any) -> list[Any]:
        """Mount the container's storage quota (``self.quota``) unless it is mounted already;
        returns the extra mounts (``/dev/shm`` on the quota), none without a quota."""
        if self._want_quota and self.quota is None:
            self.quota = ContainerQuota.open(self.name, self.spec.limits.storage_mb, self._quota_folder)
        if self.quota is None:
            return []
        return [docker.types.Mount(target="/dev/shm", source=str(self.quota.shm), type="bind")]

    def _attach_quota(self, attrs: dict[str, Any]) -> None:
        """Cover the created container's layer folder with its quota (before it starts)."""
        if self.quota is None:
            return
        try:
            self.quota.attach(attrs)
        except OSError as exc:
            say_once(f"the container's layer folder could not be put on the quota: {exc}")

    def _resolve_user(self, user: str) -> tuple[int, int]:
        """The uid/gid files copied in are given: the image's USER, resolved inside."""
        if user in ("", "root", "0", "0:0"):
            return 0, 0
        if re.fullmatch(r"\d+(:\d+)?", user):
            uid, _, gid = user.partition(":")
            return int(uid), int(gid or uid)
        res = self._simple_exec(["sh", "-c", "id -u; id -g"])
        try:
            uid_n, gid_n = (int(x) for x in res.split())
        except ValueError as exc:
            raise SandboxError(f"could not resolve the image user {user!r} in {self.name}: {res!r}") from exc
        return uid_n, gid_n

    def _simple_exec(self, argv: list[str], user: str | None = None) -> str:
        """Run ``argv`` in the container (blocking) and return its stdout; raises SandboxError."""
        docker = engine._import_docker()
        api = engine.client().api
        try:
            eid = api.exec_create(self.container_id, argv, stdout=True, stderr=True, user=user or "")["Id"]
            out = api.exec_start(eid, demux=True)
            code = api.exec_inspect(eid).get("ExitCode")
        except docker.errors.APIError as exc:
            raise SandboxError(f"docker exec {argv[0]} failed in {self.name}: {exc}") from exc
        stdout = (out[0] or b"").decode(errors="replace") if isinstance(out, tuple) else ""
        if code != 0:
            stderr = (out[1] or b"").decode(errors="replace") if isinstance(out, tuple) else ""
            raise SandboxError(f"`{' '.join(argv)}` failed in {self.name} (exit {code}): {stderr.strip()[:500]}")
        return stdout

    async def stop(self) -> None:
        """Remove the container (every process ends with it) and its anonymous volumes; idempotent."""
        client, self._aio_client = self._aio_client, None
        if self._filter is not None:
            self._filter.release()
        if client is not None and self._aio_loop is asyncio.get_running_loop():
            await client.close()
        await asyncio.to_thread(self._remove_sync)

    async def halt(self) -> bool:
        """Kill the container and wait until it has stopped: every process ends (its pid
        namespace with its init), its files stay until :meth:`stop` removes it. True once it is
        stopped; False when the engine could not say so (then only :meth:`stop` tells). Never
        raises."""
        return await asyncio.to_thread(self._halt_sync)

    def _halt_sync(self) -> bool:
        cid = self.container_id
        if cid is None:
            return False
        try:
            api = engine.client().api
            try:
                api.kill(cid)
            except engine._import_docker().errors.APIError as exc:
                if "is not running" not in str(exc):
                    return False
            api.wait(cid, timeout=60)
            self._halted = not (api.inspect_container(cid).get("State") or {}).get("Running", True)
            return self._halted
        except Exception:  # noqa: BLE001 - the engine's answer decides nothing here: stop() ends it
            return False

    def _remove_sync(self) -> None:
        cid = self.container_id
        quota, self.quota = self.quota, None
        if cid is None:
            if quota is not None:  # mounted by __init__, never started
                quota.release()
            return
        release_container(cid, quota, ended=self._halted)  # the quota is released even when the engine refuses
        self.container_id = None
        with _live_lock:
            _live.pop(cid, None)

    def _require(self) -> str:
        if self.container_id is None:
            raise SandboxError(f"DockerSandbox {self.name} used before start() or after stop()")
        return self.container_id

    # exec ------------------------------------------------------------------------------------
    async def exec(self, command: str | list[str], *, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout: float | None = None, stdin: bytes | None = None, user: str | None = None) -> ExecResult:
        """Run a command (see :class:`lancebench.sandbox.base.Sandbox`): a string runs under
        ``bash -c`` (``sh -c`` in images without bash). ``timeout`` (seconds) ends the command's
        whole tree inside the container; the result then has ``timed_out`` and no exit code.
        Raises :class:`SandboxError` when the engine fails (not when the command does)."""
        out = CappedBuffer(self.spec.limits.output_bytes)
        err = CappedBuffer(self.spec.limits.output_bytes)
        return await self._exec(command, cwd=cwd, env=env, timeout=timeout, stdin=stdin, user=user, out=out, err=err)

    async def exec_with_app(self, command: str | list[str], app: AppProcess, *, cwd: str | None = None,
                            env: dict[str, str] | None = None, timeout: float | None = None,
                            user: str | None = None) -> tuple[ExecResult, str]:
        """Run ``command`` while ``app`` runs beside it in the same container (see
        :class:`lancebench.sandbox.base.AppProcess`), as uid:gid :data:`APP_UID` (``LANCEBENCH_APP_UID``),
        never the image's user nor root: a uid other than 0 holds no capability, so it cannot
        ``ptrace`` or signal the command's processes, nor write what they own. ``app.hidden`` is
        left to the folders' owner and mode (one container: the caller seals them). ``HOME`` is
        ``/tmp``. The app is ended when the command ends. Raises :class:`SandboxError`."""
        out = CappedBuffer(self.spec.limits.output_bytes)
        err = CappedBuffer(self.spec.limits.output_bytes)
        uid = app_uid()
        companion = asyncio.ensure_future(self._exec(
            ["bash", "-c", app.command], cwd=cwd, env={"HOME": "/tmp", **app.env}, timeout=None, stdin=None,
            user=f"{uid}:{uid}", out=out, err=err))
        try:
            res = await self.exec(command, cwd=cwd, env=env, timeout=timeout, user=user)
        finally:
            companion.cancel()
            try:
                await companion
            except (asyncio.CancelledError, SandboxError):
                pass
        return res, out.text() + err.text()

    async def host_uid(self, user: str | None = None) -> int | None:
        """The uid a command run as ``user`` runs as (None: the image's ``USER``, resolved by
        :meth:`start`; a name is resolved inside with ``id -u``; no user namespace: the same uid
        on the host). Raises :class:`SandboxError` when ``user`` is unknown in the image."""
        if user is None:
            return self._uid_gid[0]
        if user == "root" or re.fullmatch(r"\d+(:\d+)?", user):
            return 0 if user == "root" else int(user.partition(":")[0])
        out = await asyncio.to_thread(self._simple_exec, ["id", "-u", user], "0")
        try:
            return int(out.strip())
        except ValueError as exc:
            raise SandboxError(f"could not resolve user {user!r} in {self.name}: {out!r}") from exc

    async def _exec(self, command: str | list[str], *, cwd: str | None, env: dict[str, str] | None,
                    timeout: float | None, stdin: bytes | None, user: str | None, out: CappedBuffer,
                    err: CappedBuffer) -> ExecResult:
        """:meth:`exec`, writing the output to ``out`` and ``err`` (kept when cancelled)."""
        cid = self._require()
        argv = ["bash", "-c", command] if isinstance(command, str) else [str(a) for a in command]
        if not argv:
            raise SandboxError("exec needs a command")
        docker_user = "0" if user == "root" else (user or "")
        t0 = time.monotonic()
        stream = ExecStream(out, err)
        exe = await stream.open(self._aio(), cid, ["/bin/sh", "-c", WRAPPER, "lancebench-exec", *argv],
                                stdin=stdin is not None, environment=dict(env or {}),
                                workdir=cwd or self.spec.workdir, user=docker_user, where=self.name)
        pump = asyncio.ensure_future(stream.pump(stdin))
        timed_out = False
        try:
            await asyncio.wait_for(asyncio.shield(pump), timeout)
        except TimeoutError:
            timed_out = True
            await self._end_tree(stream, pump, docker_user)
        except asyncio.CancelledError:
            await asyncio.shield(self._end_tree(stream, pump, docker_user))
            raise
        finally:
            if not pump.done():
                pump.cancel()
            await stream.close()
        if pump.done() and not pump.cancelled() and pump.exception() is not None:
            broke = pump.exception()
            raise SandboxError(f"the exec stream of {self.name} broke: {broke}") from broke
        if stream.pid is None and not timed_out:  # the wrapper never ran: bad cwd or user, broken image
            detail = (out.text() + err.text()).strip()[:1000]
            raise SandboxError(f"docker could not start the command in {self.name} (cwd {cwd or self.spec.workdir}, "
                               f"user {docker_user or 'default'}): {detail}")
        code = None if timed_out else await exit_code(exe)
        return ExecResult(exit_code=code, stdout=out.text(), stderr=err.text(), timed_out=timed_out,
                          duration_sec=time.monotonic() - t0, truncated_bytes=out.cut + err.cut)

    def _aio(self) -> Any:
        """This sandbox's aiodocker client on the running event loop (made at first use, closed by
        :meth:`stop`; a sandbox used from another loop gets a new one)."""
        loop = asyncio.get_running_loop()
        if self._aio_client is None or self._aio_loop is not loop:
            self._aio_client, self._aio_loop = engine.async_client(), loop
        return self._aio_client

    async def _end_tree(self, stream: ExecStream, pump: asyncio.Future, user: str) -> None:
        """End the command's tree from inside; restart the container when that is not possible."""
        ok = False
        if stream.pid is None:  # the wrapper has not printed its pid yet
            try:
                await asyncio.wait_for(asyncio.shield(stream.pid_seen.wait()), 2)
            except TimeoutError:
                pass
        if stream.pid is not None:
            ok = await asyncio.to_thread(self._kill_sync, stream.pid, user)
        if ok:
            try:
                await asyncio.wait_for(asyncio.shield(pump), _KILL_GRACE_SEC)
                return
            except TimeoutError:
                pass
        await asyncio.to_thread(self._restart_sync)
        try:
            await asyncio.wait_for(asyncio.shield(pump), _KILL_GRACE_SEC)
        except TimeoutError:
            pump.cancel()

    def _kill_sync(self, pid: int, user: str) -> bool:
        """Run the killer (as the command's user); False when it could not run (pids exhausted)."""
        docker = engine._import_docker()
        api = engine.client().api
        for attempt in range(3):
            try:
                eid = api.exec_create(self.container_id, ["/bin/sh", "-c", KILLER, "lancebench-kill", str(pid)],
                                      stdout=True, stderr=True, user=user)["Id"]
                api.exec_start(eid, demux=True)
                if api.exec_inspect(eid).get("ExitCode") == 0:
                    return True
            except docker.errors.APIError:
                pass
            time.sleep(0.1 * (attempt + 1))
        return False

    def _restart_sync(self) -> None:
        """Kill every process (the container restarts with its files kept)."""
        docker = engine._import_docker()
        api = engine.client().api
        self._restarts += 1
        self._halted = False
        try:
            api.kill(self.container_id)
        except docker.errors.APIError:
            pass
        try:
            api.wait(self.container_id, timeout=30)
            api.start(self.container_id)
        except (docker.errors.APIError, OSError) as exc:
            raise SandboxError(f"container {self.name} could not be restarted after a runaway command: {exc}") from exc
        self.apply_network()  # a fresh network namespace: the allowlist again before any command

    # files -----------------------------------------------------------------------------------
    def _abs(self, path: str) -> PurePosixPath:
        p = PurePosixPath(os.path.normpath(path))
        return p if p.is_absolute() else PurePosixPath(self.spec.workdir) / p

    async def put(self, src: Path, dest: str) -> None:
        """Copy host ``src`` (file or folder, symlinks kept as links) to ``dest`` inside, merging
        into an existing folder; parents are created; files belong to the image's user.
        Raises :class:`SandboxError` (missing source, read-only destination, engine error)."""
        self._require()
        src = Path(src)
        if not src.exists() and not src.is_symlink():
            raise SandboxError(f"put: {src} does not exist on the host")
        target = self._abs(dest)
        if str(target) == "/":
            raise SandboxError("put: the destination cannot be /")
        await asyncio.to_thread(self._put_sync, src, target)

    def _put_sync(self, src: Path, target: PurePosixPath) -> None:
        """Copy ``src`` to ``target`` as one archive; when ``target``'s parent is missing, the
        archive goes to the nearest folder above that exists, its missing folders (mode 0755,
        the image's user's, as ``mkdir -p`` as that user makes them) in the archive too: one
        engine call per missing level, no command run in the container."""
        docker = engine._import_docker()
        api = engine.client().api
        uid, gid = self._uid_gid

        def own(info: tarfile.TarInfo) -> tarfile.TarInfo:
            info.uid, info.gid, info.uname, info.gname = uid, gid, "", ""
            return info

        where, missing = target.parent, PurePosixPath()
        while True:
            with tempfile.SpooledTemporaryFile(max_size=16 * 1024 * 1024) as buf:
                with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
                    for level in reversed([missing, *missing.parents][:-1]):  # the missing folders, outermost first
                        info = tarfile.TarInfo(level.as_posix())
                        info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, int(time.time())
                        tar.addfile(own(info))
                    tar.add(str(src), arcname=(missing / target.name).as_posix(), recursive=True, filter=own)
                buf.seek(0)
                try:
                    api.put_archive(self.container_id, str(where), buf)
                    return
                except docker.errors.NotFound:
                    if where == where.parent:
                        raise SandboxError(f"put: could not create {target.parent} in {self.name}") from None
                    where, missing = where.parent, PurePosixPath(where.name) / missing
                except docker.errors.APIError as exc:
                    raise SandboxError(f"put: docker could not copy {src} to {target} in {self.name}: {exc}") from exc

    async def get(self, src: str, dest: Path, *, max_bytes: int | None = None) -> None:
        """Copy ``src`` inside (file or folder) to host ``dest`` (a folder merges into an existing
        one); symbolic links inside are left out (never followed); files belong to the harness user.
        The target of a writable mount is copied from its host folder (the same files, one engine
        call fewer). Raises :class:`SandboxError` when ``src`` is missing or is itself a symlink, or
        when its tar stream passes ``max_bytes`` (nothing is copied then; the stream is not read
        further)."""
        self._require()
        await asyncio.to_thread(self._get_sync, self._abs(src), Path(dest), max_bytes)

    def _mounted(self, src: PurePosixPath) -> Path | None:
        """The host folder of the writable mount whose target is ``src`` (None: there is none).
        The container sees that folder itself, so its files are read there, not through the engine."""
        for m in self.spec.mounts:
            source = Path(m.source).resolve()
            if m.writable and PurePosixPath(m.target) == src and source.is_dir():
                return source
        return None

    def _get_sync(self, src: PurePosixPath, dest: Path, max_bytes: int | None = None) -> None:
        docker = engine._import_docker()
        api = engine.client().api
        mounted = self._mounted(src) if max_bytes is None else None
        if mounted is not None:  # what the engine's archive gives, without the archive: links and special files out
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                write_notes(dest, copy_tree(mounted, dest))
            except OSError as exc:
                raise SandboxError(f"get: could not copy {src} out of {self.name}: {exc}") from exc
            return
        try:
            chunks, stat = api.get_archive(self.container_id, str(src))
        except docker.errors.NotFound:
            raise SandboxError(f"{src} is missing or a symlink in the sandbox") from None
        except docker.errors.APIError as exc:
            raise SandboxError(f"get: docker could not copy {src} out of {self.name}: {exc}") from exc
        if stat.get("mode", 0) & _GO_MODE_SYMLINK:
            raise SandboxError(f"{src} is missing or a symlink in the sandbox")
        dest.parent.mkdir(parents=True, exist_ok=True)
        uid, gid = os.getuid(), os.getgid()

        def safe(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo:
            member = tarfile.tar_filter(member, path)  # no absolute paths, nothing outside ``path``
            return member.replace(uid=uid, gid=gid, uname="", gname="", deep=False)

        tmp = tempfile.mkdtemp(dir=dest.parent, prefix=".lb-get-")
        try:
            with tempfile.TemporaryFile() as buf:
                try:
                    for chunk in chunks:
                        buf.write(chunk)
                        if max_bytes is not None and buf.tell() > max_bytes + _TAR_OVERHEAD:
                            getattr(chunks, "close", lambda: None)()
                            raise SandboxError(f"{src} is larger than {max_bytes} bytes")
                except docker.errors.APIError as exc:
                    raise SandboxError(f"get: the copy of {src} out of {self.name} broke: {exc}") from exc
                buf.seek(0)
                try:
                    with tarfile.open(fileobj=buf, mode="r|") as tar:
                        tar.extractall(tmp, filter=safe)
                except (tarfile.TarError, OSError) as exc:
                    raise SandboxError(f"get: could not unpack {src} from {self.name}: {exc}") from exc
            got = Path(tmp) / src.name
            if got.is_dir() and not got.is_symlink():
                notes = copy_tree(got, dest)  # bounded: the folder may hold whatever the sandbox wrote
                write_notes(dest, notes)
            else:
                if dest.is_dir() and not dest.is_symlink():
                    remove_tree(dest)
                os.replace(got, dest)
        finally:
            remove_tree(Path(tmp))


# leftovers -----------------------------------------------------------------------------------
@dataclass
class GcResult:
    """What :func:`gc` removed (container names, image tags or ids) and the containers it kept
    because the harness process that made them still runs."""

    containers: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def gc(job: str | None = None, *, images: bool = False) -> GcResult:
    """Remove containers lancebench left behind (label ``lancebench.managed``), only those of
    ``job`` when given, each with its storage quota; first, of any job, the containers and quotas
    of harness processes that died (:func:`lancebench.sandbox.docker_quota.prune_stale`). A
    container whose harness process still runs on this machine (label ``lancebench.owner``, see
    :func:`lancebench.sandbox.docker_engine.owner_alive`) is kept: gc beside a running job leaves
    that job alone. With ``images`` also the cached environment images (all of them, or those
    built during ``job``). Raises :class:`SandboxError` when no engine answers."""
    docker = engine._import_docker()
    cli = engine.client()
    filters = [LABEL_MANAGED] + ([f"{LABEL_JOB}={job}"] if job else [])
    result = GcResult(containers=prune_stale())  # containers (and quotas) of dead harness processes
    try:
        for c in cli.api.containers(all=True, filters={"label": filters}):
            name = (c.get("Names") or [c["Id"][:12]])[0].lstrip("/")
            if engine.owner_alive((c.get("Labels") or {}).get(engine.LABEL_OWNER)):
                result.kept.append(name)
                continue
            release_container(c["Id"], quota_of(name))
            result.containers.append(name)
        if images:
            img_filters = [LABEL_ENVIRONMENT] + ([f"{LABEL_JOB}={job}"] if job else [])
            for img in cli.api.images(filters={"label": img_filters}):
                try:
                    cli.api.remove_image(img["Id"], force=True)
                    result.images.extend(img.get("RepoTags") or [img["Id"][:19]])
                except docker.errors.NotFound:
                    pass
    except docker.errors.APIError as exc:
        raise SandboxError(f"docker gc failed: {exc}") from exc
    return result


@atexit.register
def _remove_live_containers() -> None:
    """At interpreter exit (including after Ctrl-C), remove containers not stopped yet."""
    with _live_lock:
        boxes = list(_live.values())
    for box in boxes:
        try:
            box._remove_sync()
        except SandboxError:
            pass

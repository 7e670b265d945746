"""The ``docker`` backend for the trial flow (``--backend docker``): environments are images,
sandboxes are :class:`lancebench.sandbox.docker.DockerSandbox` containers.

- ``prepare(task)``: :func:`ensure_image` (cached by content digest; build log in
  ``$LANCEBENCH_HOME/docker-builds/<digest>.log``), then the base commit of the repository at the
  workdir, read in a throw-away container (none for ``choice`` tasks, which need no repository).
  An image whose workdir is not a git repository gets a derived image (``<tag>-base``) where what
  is there is committed as the base, with a fixed author and date so every build of it gives the
  same commit. An image without ``git`` keeps its base on the host
  (:mod:`lancebench.backends.docker_hosttools`). The answer is recorded per image id and workdir
  (``$LANCEBENCH_HOME/docker-base``), so later processes start no probe container while the
  derived image or pristine copy it names is still there.
- ``open(...)``: a fresh container from that image (the image's own copy of the repository), with
  the phase's network: none, the default bridge, or the bridge limited to an allowlist
  (:mod:`lancebench.sandbox.docker_network`).
- ``capture(...)``: the agent container is killed (every process ends, files stay) and the patch
  is the diff of its workdir against the image's pristine ``.git``: the agent's own ``.git`` is
  never trusted. Where the image's ``.git`` has a host copy (made once per image by ``prepare``:
  :func:`~lancebench.backends.docker_hosttools.host_base_of`; bubblewrap needed), the workdir is
  exported to the host and diffed there in a bubblewrap sandbox, with no container; otherwise it
  is copied as a tar stream into a *fresh* container of the same image and diffed there. A failed
  capture is blamed by a control, the same capture of a created, never started container of the
  image (:func:`lancebench.backends.capture.controlled`); only when the control of the capture on
  this machine fails too do the trial's captures move to containers. A workdir the agent left as
  the image holds it (:func:`_untouched`: nothing of it in the container's upper overlay folder,
  read on this machine by name only, and no link of the image's layers at or above it) is
  captured to the empty patch without an export or git, once a full capture of an untouched
  workdir of the same image id, workdir and base commit gave the empty patch
  (:func:`_untouched_record`).

The workdir is ``[lancebench] workdir`` when task.toml sets it, else the image's ``WORKDIR``,
else ``/app``. A CA bundle for builds comes from ``BackendOptions.ca_bundle`` (``--ca-bundle``;
``DockerBackend(ca_bundle=...)`` for short), else ``$LANCEBENCH_CA_BUNDLE``, else
``$SSL_CERT_FILE`` / ``$PIP_CERT`` (see :mod:`lancebench.sandbox.docker_image`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import logging
import os
import shutil
import stat
import tarfile
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path, PurePosixPath
from typing import cast

from lancebench.backends.capture import CaptureLimit, controlled, run_capture
from lancebench.backends.docker_hosttools import apply_on_host, capture_on_host, host_base_of, pristine_of
from lancebench.backends.options import BackendOptions
from lancebench.caches.cache import sub
from lancebench.errors import EnvironmentBuildError, SandboxError, WorkspaceError
from lancebench.grading.pyguard import FIND_SITE_FOLDERS, PTH_NAME, PTH_TEXT
from lancebench.grading.verifier import APPLY_TIMEOUT_SEC
from lancebench.results.store import atomic_write
from lancebench.sandbox import docker_engine as engine
from lancebench.sandbox.backend import Backend, Capabilities, PreparedEnvironment, network_fields, task_limits
from lancebench.sandbox.base import CapturedPatch, Mount, SandboxSpec
from lancebench.sandbox.docker import BASE_ENV, KEEPER, DockerSandbox
from lancebench.sandbox.docker_engine import LABEL_MANAGED
from lancebench.sandbox.docker_image import _image_lock, ensure_image
from lancebench.sandbox.docker_network import enforce_problem
from lancebench.sandbox.docker_quota import prune_stale
from lancebench.task.model import Task
from lancebench.task.settings import NO_NETWORK, NetworkPolicy

CAPTURE_ROOT = "/lancebench-capture"
_BASE_COMMIT_ENV = {"GIT_AUTHOR_NAME": "lancebench", "GIT_AUTHOR_EMAIL": "lancebench@localhost",
                    "GIT_COMMITTER_NAME": "lancebench", "GIT_COMMITTER_EMAIL": "lancebench@localhost",
                    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"}

_prepared: dict[tuple[str, str], tuple[str, str, str,
                                       Path | None]] = {}  # (image id, workdir) -> (image, workdir, commit)
_prepared_lock = threading.Lock()
_site_folders: dict[tuple[str, str | None], list[str]] = {}  # (image id, user) -> site folders (guard_python)


@dataclass(frozen=True)
class DockerEnvironment:
    """``PreparedEnvironment.handle`` of the docker backend: the image and its build log."""

    image: str
    build_log: Path | None = None
    pristine: Path | None = None  # the image has no git: base, capture and apply run on the host
    host_base: Path | None = None  # the image's repository copied to the host: the capture runs there


def _builds_dir() -> Path:
    return sub("docker-builds")


def _image_path(image: str) -> str | None:
    """The image's own ``PATH`` (from its config), so that the harness can prepend to it (the
    user tool's folder) instead of replacing it with a guess."""
    for item in engine.client().images.get(image).attrs.get("Config", {}).get("Env") or []:
        if item.startswith("PATH="):
            return item[5:]
    return None


class DockerBackend(Backend):
    """The ``docker`` backend (see the module docstring). ``options``: the CA bundle builds trust
    (``ca_bundle``, when given, replaces ``options.ca_bundle``: a path, or False for none).
    Raises :class:`SandboxError` when no engine answers, :class:`EnvironmentBuildError` when an
    environment cannot be built."""

    name = "docker"

    def __init__(self, options: BackendOptions | None = None, *, ca_bundle: str | os.PathLike | bool | None = None):
        self.options = options or BackendOptions()
        if ca_bundle is not None:
            self.options = replace(self.options, ca_bundle=Path(ca_bundle) if isinstance(ca_bundle, (str, os.PathLike))
                                   else ca_bundle)
        self.ca_bundle = self.options.ca_bundle_file()
        self._job: str | None = None
        self._host_capture_failed: str | None = None  # why captures no longer run on this machine
        prune_stale()  # storage quotas (and containers) left by a harness that was killed

    @classmethod
    def capabilities(cls) -> Capabilities:
        """Builds from ``environment/Dockerfile`` or ``docker_image``; filters the network
        (:mod:`lancebench.sandbox.docker_network`) when this machine allows it
        (:func:`~lancebench.sandbox.docker_network.enforce_problem`, read at each call)."""
        why = enforce_problem()
        return Capabilities(builds="docker", network_filter=None if why is None else (
            f"its network allowlist cannot be enforced here: {why}",
            "run lancebench as root on the engine's machine, or set network_mode to public or no-network"))

    async def prepare(self, task: Task) -> PreparedEnvironment:
        t0 = time.monotonic()
        engine.preload_async_client()  # ready by the agent's first command
        if task.lb.local is not None and task.lb.local.checkout is not None:
            raise EnvironmentBuildError(f"{task.paths.task_toml}: [lancebench.local.checkout] "
                                        "(a snapshot of a repository on "
                                        "this machine, e.g. from --repo-path) is built by the local backend only; "
                                        "run with --backend local")
        log = _builds_dir() / f"{task.environment_digest()[:24]}.log"
        tag = await asyncio.to_thread(ensure_image, task, ca_bundle=self.ca_bundle, log_path=log)
        image, workdir, commit, pristine = await asyncio.to_thread(_base_of, task, tag)
        path = await asyncio.to_thread(_image_path, image)
        host_base = None
        if task.kind == "code" and pristine is None and commit and shutil.which("bwrap"):
            host_base = await asyncio.to_thread(_host_base, image, workdir, commit)
        return PreparedEnvironment(base_commit=commit, workdir=workdir, variables={"PATH": path} if path else {},
                                   handle=DockerEnvironment(image=image, build_log=log, pristine=pristine,
                                                            host_base=host_base),
                                   build_sec=time.monotonic() - t0)

    def open(self, task: Task, env: PreparedEnvironment, scratch: Path, *, mounts: tuple[Mount, ...] = (),
             network: NetworkPolicy = NO_NETWORK, labels: dict[str, str] | None = None) -> DockerSandbox:
        handle = cast(DockerEnvironment, env.handle)
        labels = dict(labels or {})
        if labels.get("lancebench.job") or labels.get("job"):
            self._job = labels.get("lancebench.job") or labels.get("job")
        elif self._job:  # grading sandboxes opened without labels still belong to the trial's job (for gc)
            labels["lancebench.job"] = self._job
        spec = SandboxSpec(workdir=env.workdir, env=dict(env.variables), mounts=tuple(mounts),
                           **network_fields(network), limits=task_limits(task), image=handle.image, labels=labels)
        # storage_mb bounds the sum of what it writes, its writable mounts included, on a quota
        # filesystem in scratch (sandbox.docker_quota): the caller removes scratch and the mounts'
        # folders with remove_tree, as for the local backend
        return DockerSandbox(spec, quota_folder=scratch / "quota")

    async def capture(self, task: Task, env: PreparedEnvironment, sandbox, scratch: Path) -> CapturedPatch:
        """End every process of ``sandbox``, then diff its workdir against the pristine base, on
        this machine or in a fresh container (see the module docstring). Returns the patch text.
        A failure is blamed by a control (:func:`lancebench.backends.capture.controlled`: the same
        capture of the pristine base). Raises :class:`SandboxError` (the control failed too: its
        ``control`` set; or the agent's container could not be ended), and
        :class:`WorkspaceError` when the workspace cannot be captured, including when the agent
        filled its storage quota so that the engine cannot mount the container to read it."""
        if not isinstance(sandbox, DockerSandbox) or sandbox.container_id is None:
            raise SandboxError("docker capture needs the started DockerSandbox of the agent phase")
        with _quota_filled_by(sandbox, task, "read its workspace"):
            return await self._capture(task, env, sandbox, sandbox.container_id, scratch)

    async def _capture(self, task: Task, env: PreparedEnvironment, sandbox: DockerSandbox, cid: str,
                       scratch: Path) -> CapturedPatch:
        """The capture of container ``cid`` on this machine (:meth:`_on_host`) or in a container
        (:meth:`_in_container`), each blamed by its control (:meth:`_blamed`). When the control of
        the capture on this machine fails too for an image with git, the captures run in
        containers from then on."""
        scratch.mkdir(parents=True, exist_ok=True)
        handle = cast(DockerEnvironment, env.handle)
        labels = {**{k: v for k, v in sandbox.labels.items() if k != LABEL_MANAGED}, "lancebench.phase": "capture"}
        if handle.pristine is not None or (handle.host_base is not None and self._host_capture_failed is None):
            await asyncio.to_thread(_kill_container, cid)
            record = _untouched_record(sandbox.image_id, env) if sandbox.image_id else None
            untouched = record is not None and await asyncio.to_thread(_untouched, sandbox, cid, env.workdir)
            if untouched and cast(Path, record).is_file():  # the image's workdir as it is: its capture is known
                return CapturedPatch("", [])
            try:
                patch = await self._blamed(partial(self._on_host, task, env), task, env, sandbox, labels, cid,
                                           scratch, "on this machine")
                if untouched and not patch:  # an untouched workdir of this image captures to nothing
                    await asyncio.to_thread(atomic_write, cast(Path, record), "")
                return patch
            except SandboxError as exc:
                if handle.pristine is not None or exc.control is None:
                    raise
                self._host_capture_failed = f"{exc}; {exc.control}"  # shown by the control: containers from now on
                logging.getLogger("lancebench").warning("docker: the capture on this machine failed, on the pristine "
                                                        "base too (%s; %s); the captures run in a container instead",
                                                        exc, exc.control)
        return await self._blamed(partial(self._in_container, task, env, labels), task, env, sandbox, labels, cid,
                                  scratch, "in a capture container")

    @staticmethod
    async def _blamed(capture: Callable[[str, Path], Awaitable[CapturedPatch]], task: Task, env: PreparedEnvironment,
                      sandbox: DockerSandbox, labels: dict[str, str], cid: str, scratch: Path,
                      where: str) -> CapturedPatch:
        """``capture(cid, scratch)`` of the agent's container, blamed by its control
        (:func:`lancebench.backends.capture.controlled`): ``capture`` of a created, never started
        container of the image (:func:`_on_pristine`) in ``scratch/control``; ``where`` says how
        it ran, for the record."""
        image = cast(DockerEnvironment, env.handle).image
        return await controlled(partial(_agents, sandbox, task, capture, cid, scratch),
                                partial(_on_pristine, image, labels, capture, scratch / "control"),
                                f"a created, never started container of {image}, {where}")

    @staticmethod
    async def _on_host(task: Task, env: PreparedEnvironment, source: str, scratch: Path) -> CapturedPatch:
        """The capture of the workdir of container ``source`` (ended) on this machine, against the
        image's pristine copy or its ``.git`` copied to the host
        (:func:`~lancebench.backends.docker_hosttools.capture_on_host`); for an image with git the
        export is bounded by the image's size plus ``storage_mb`` and 64 MiB."""
        handle = cast(DockerEnvironment, env.handle)
        repo = cast(Path, handle.pristine or handle.host_base)
        bound = None if handle.pristine is not None else await asyncio.to_thread(_image_size, handle.image) + (
            task.config.environment.storage_mb + 64) * 2**20
        return await capture_on_host(task, env.workdir, env.base_commit, repo, source, scratch, max_bytes=bound)

    async def _in_container(self, task: Task, env: PreparedEnvironment, labels: dict[str, str], cid: str,
                            scratch: Path) -> CapturedPatch:
        """Copy the workdir of container ``cid`` (ended first) into a fresh container of the image
        and capture it there against the image's own ``.git``."""
        handle = cast(DockerEnvironment, env.handle)
        scratch.mkdir(parents=True, exist_ok=True)
        spec = SandboxSpec(workdir=env.workdir, image=handle.image, limits=task_limits(task), labels=labels)
        box = DockerSandbox(spec, quota=False)  # only the harness's copy and git run there
        killed, started = await asyncio.gather(asyncio.to_thread(_kill_container, cid), box.start(),
                                               return_exceptions=True)
        for outcome in (killed, started):
            if isinstance(outcome, BaseException):
                await box.stop()
                raise outcome
        try:
            res = await box.exec(f"mkdir -p -m 1777 {CAPTURE_ROOT} /lancebench && "
                                 f"ln -sfn {env.workdir}/.git /lancebench/base.git", user="root")
            if not res.ok:
                raise SandboxError(f"capture setup failed in {box.name}: {res.output[-1000:]}")
            bound = await asyncio.to_thread(_capture_bound, handle.image, task)
            await asyncio.to_thread(_copy_tree, cid, env.workdir, box._require(), CAPTURE_ROOT, scratch, bound)
            tree = f"{CAPTURE_ROOT}/{Path(env.workdir).name}"
            return await run_capture(box, tree, task, env, scratch)
        finally:
            await box.stop()

    async def resume(self, sandbox) -> None:
        """Start the agent's container again after a capture ended it (a multi-step task's next
        step runs in the same container; its files stay, ``/tmp`` and processes do not)."""
        cid = sandbox.container_id
        try:
            with _quota_filled_by(sandbox, None, "start it again for the next step"):
                await asyncio.to_thread(engine.client().api.start, cid)
        except engine._import_docker().errors.APIError as exc:
            raise SandboxError(f"could not start the agent container again for the next step: {exc}") from exc
        await asyncio.to_thread(sandbox.apply_network)  # a fresh network namespace: its allowlist again

    async def halt(self, sandbox) -> bool:
        """Kill the started grading container ``sandbox`` and wait until it has stopped
        (:meth:`DockerSandbox.halt`): no code of it runs from then on, while its removal (layer
        unmount, ``docker rm``, storage quota) is left to ``stop``. Never raises."""
        return isinstance(sandbox, DockerSandbox) and await sandbox.halt()

    async def set_network(self, sandbox, policy: NetworkPolicy) -> None:
        """Give the running agent container ``policy``'s network (a step's): its allowlist
        (:mod:`lancebench.sandbox.docker_network`), or the whole network for ``public``."""
        await sandbox.set_allow_hosts(None if policy.public else tuple(policy.hosts))

    async def guard_mounts(self, task: Task, env: PreparedEnvironment, *,
                           user: str | None = None) -> tuple[Mount, ...]:
        """The guard's ``.pth`` (one host file, :func:`_guard_file`) bound read-only into each
        site folder of the environment's image that ``user`` sees, when those folders are known
        (found by :meth:`guard_python` in an earlier container of the same image id): no copy
        through the engine after the start, and a file the code under test can neither replace
        nor remove (a mount point). None known yet: no mounts (:meth:`guard_python` writes the
        files)."""
        image_id = await asyncio.to_thread(_image_id, cast(DockerEnvironment, env.handle).image)
        folders = _site_folders.get((image_id, user))
        if folders is None:
            folders = await asyncio.to_thread(_recorded_sites, image_id, user)
        if not folders:
            return ()
        _site_folders[(image_id, user)] = folders
        source = await asyncio.to_thread(_guard_file)
        return tuple(Mount(source, _pth_target(folder), False) for folder in folders)

    async def guard_python(self, task: Task, env: PreparedEnvironment, sandbox, *,
                           user: str | None = None) -> list[str]:
        """Write the verifier's Python guard (``grading.pyguard.PTH_NAME``) into every site folder
        that ``user`` (who runs ``tests/test.sh``; None: the image's user) sees in the grading
        container (``find`` as that user), before the patch is applied. The files are written by
        the engine, owned by root, mode 0444. Returns the folders written (none when the image
        has no ``find``). The folders are found once per image id and user (in the first fresh
        container of the image: every later one starts from the same files), and kept for later
        processes by :func:`_site_record`."""
        key = (sandbox.image_id, user)
        folders = _site_folders.get(key) if sandbox.image_id else None
        if folders is None and sandbox.image_id:
            folders = await asyncio.to_thread(_recorded_sites, sandbox.image_id, user)
        if folders is None:
            res = await sandbox.exec(["sh", "-c", FIND_SITE_FOLDERS], timeout=300, user=user)
            folders = sorted({p for p in res.stdout.split("\0") if p.startswith("/") and "\n" not in p})
            if res.ok and sandbox.image_id:
                await asyncio.to_thread(atomic_write, _site_record(sandbox.image_id, user), json.dumps(folders))
        if sandbox.image_id:
            _site_folders[key] = folders
        mounted = {m.target for m in sandbox.spec.mounts}  # guard_mounts' files: there already
        missing = [folder for folder in folders if _pth_target(folder) not in mounted]
        if missing:
            await asyncio.to_thread(_put_pth, sandbox._require(), missing)
        return folders

    async def apply_patch(self, task: Task, env: PreparedEnvironment, sandbox, patch: str,
                          scratch: Path) -> tuple[bool, str] | None:
        """Apply ``patch`` into a started grading sandbox. An image with git: ``git apply`` at the
        workdir as the image's user, the patch given on its standard input (one exec, no copy of a
        file first), with :func:`lancebench.grading.verifier.apply_in_sandbox`'s flags, timeout and
        log (``exit CODE`` and the output). An image without git: on the host
        (:func:`~lancebench.backends.docker_hosttools.apply_on_host`). Returns (applied, log);
        raises :class:`SandboxError` when the engine fails."""
        handle = cast(DockerEnvironment, env.handle)
        if handle.pristine is None:
            res = await sandbox.exec(["git", "apply", "--binary", "--whitespace=nowarn", "-"], cwd=env.workdir,
                                     timeout=APPLY_TIMEOUT_SEC, stdin=patch.encode("utf-8", "surrogateescape"))
            return res.ok, f"exit {res.exit_code}\n{res.output}"
        return await apply_on_host(task, env.workdir, handle.pristine, sandbox, patch, scratch)


@contextlib.contextmanager
def _quota_filled_by(sandbox, task: Task | None, what: str) -> Iterator[None]:
    """Turn an engine failure on the agent's container into :class:`WorkspaceError` (the agent's
    doing: ``unresolved``, never ``invalid``) when the container filled its storage quota
    (:meth:`ContainerQuota.full`), which makes the engine fail to mount it with "no space left
    on device" (found by the attack pass after issue 14: such trials were ``invalid``). A
    :class:`SandboxError` whose control failed too (a capture's) stays as it is: the machine."""
    try:
        yield
    except Exception as exc:
        quota = getattr(sandbox, "quota", None)
        if ("no space left on device" in str(exc).lower() and not isinstance(exc, WorkspaceError)
                and getattr(exc, "control", None) is None
                and quota is not None and quota.full()):
            size = f" ({task.config.environment.storage_mb} MiB)" if task is not None else ""
            raise WorkspaceError(f"the agent filled its storage quota{size} (bytes or files), so the engine "
                                 f"could not {what}: {str(exc)[-300:]}") from exc
        raise


async def _agents(sandbox, task: Task, capture: Callable[[str, Path], Awaitable[CapturedPatch]], cid: str,
                  scratch: Path) -> CapturedPatch:
    """``capture(cid, scratch)`` of the agent's container ``sandbox`` (id ``cid``), a failure of the
    engine on its full storage quota read as the agent's (:func:`_quota_filled_by`), before the
    capture's control."""
    with _quota_filled_by(sandbox, task, "read its workspace"):
        return await capture(cid, scratch)


def _untouched_record(image_id: str, env: PreparedEnvironment) -> Path:
    """The mark that a capture of an untouched workdir (:func:`_untouched`) of image ``image_id``
    at ``env``'s workdir and base commit gave an empty patch, written by such a capture:
    ``$LANCEBENCH_HOME/docker-base/<image id>-<workdir hash>-<commit>.untouched``. Later
    captures of an untouched workdir of the image give the empty patch without running."""
    digest = hashlib.sha256(env.workdir.encode()).hexdigest()[:12]
    return sub("docker-base") / f"{image_id.split(':')[-1][:32]}-{digest}-{env.base_commit[:16]}.untouched"


_OVERLAY_HARMLESS = {"trusted.overlay.origin", "trusted.overlay.impure"}


def _untouched(sandbox: DockerSandbox, cid: str, workdir: str) -> bool:
    """Whether the ended container ``cid`` (``sandbox``) left ``workdir`` as its image holds it,
    read from the container's upper overlay folder on this machine (``sandbox.host_upper``, the
    engine's, checked by identity): no entry there for the workdir, and every folder above it
    absent or a plain folder hiding nothing of the image's (no link, whiteout, opaque or
    redirected folder); no mount of the container at, above or below the workdir (a
    volume's or a bind's files are not in the layer); and neither the workdir nor a folder above
    it a link in one of the image's layers (its files would change in the upper folder under the
    link's target: attack pass round 12). False when it cannot be told (blocking).
    Only names are looked at (``lstat``, a folder's extended attribute names): no file of the
    agent's is read, no link followed."""
    upper, work = sandbox.host_upper, PurePosixPath(workdir)
    if upper is None or not work.is_absolute() or len(work.parts) < 2:
        return False
    try:
        info = engine.client().api.inspect_container(cid)
        layers = (info.get("GraphDriver") or {}).get("Data") or {}
        if not os.path.samefile(layers.get("UpperDir") or "", upper):
            return False
    except (OSError, engine._import_docker().errors.APIError):
        return False
    above = [PurePosixPath(*work.parts[1:n]) for n in range(2, len(work.parts) + 1)]  # shallowest first
    if any(os.path.islink(Path(lower, folder)) for lower in (layers.get("LowerDir") or "").split(":") if lower
           for folder in above):
        return False
    for mount in info.get("Mounts") or []:
        dest = PurePosixPath(mount.get("Destination") or "/")
        if dest == work or dest in work.parents or work in dest.parents:
            return False
    path = upper
    for depth, part in enumerate(work.parts[1:], start=2):
        path = path / part
        try:
            mode = os.lstat(path).st_mode
            names = os.listxattr(path, follow_symlinks=False) if stat.S_ISDIR(mode) else []
        except FileNotFoundError:
            return True  # nothing at or below this folder changed
        except OSError:
            return False
        if depth == len(work.parts) or not stat.S_ISDIR(mode):
            return False  # the workdir itself changed, or a folder above it was replaced
        if any(n.startswith(("trusted.overlay.", "user.overlay.")) and n not in _OVERLAY_HARMLESS for n in names):
            return False
    return False


def _site_record(image_id: str, user: str | None) -> Path:
    """Where :meth:`DockerBackend.guard_python`'s site folders of an image id and a user are kept
    between processes: ``$LANCEBENCH_HOME/docker-base/<image id>-sites-<user hash>.json`` (an
    image id is the digest of the image's content: the answer never changes)."""
    digest = hashlib.sha256(repr(user).encode()).hexdigest()[:12]
    return sub("docker-base") / f"{image_id.split(':')[-1][:32]}-sites-{digest}.json"


def _recorded_sites(image_id: str, user: str | None) -> list[str] | None:
    """The site folders :func:`_site_record` holds, or None (none recorded, or not a list of
    absolute paths: found again)."""
    try:
        saved = json.loads(_site_record(image_id, user).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(saved, list) or not all(isinstance(p, str) and p.startswith("/") and "\n" not in p
                                              for p in saved):
        return None
    return saved


def _pth_target(folder: str) -> str:
    """Where the guard's ``.pth`` goes in site folder ``folder``."""
    return f"{folder.rstrip('/')}/{PTH_NAME}"


def _image_id(image: str) -> str:
    """The id of ``image`` (the digest of its content)."""
    return str(engine.client().api.inspect_image(image)["Id"])


def _guard_file() -> Path:
    """The host file holding the guard's ``.pth`` text (:data:`lancebench.grading.pyguard.PTH_TEXT`),
    mode 0444, named by its digest: ``$LANCEBENCH_HOME/docker-base/guard-<sha256>.pth``; written
    once (atomically) for every grading container to bind read-only."""
    data = PTH_TEXT.encode()
    path = sub("docker-base") / f"guard-{hashlib.sha256(data).hexdigest()[:16]}.pth"
    try:
        if path.read_bytes() == data:
            return path
    except OSError:
        pass
    atomic_write(path, PTH_TEXT)
    os.chmod(path, 0o444)
    return path


def _put_pth(cid: str, folders: list[str]) -> None:
    """Write the guard's ``.pth`` into each of ``folders`` of container ``cid`` (one archive)."""
    data = PTH_TEXT.encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for folder in folders:
            info = tarfile.TarInfo(f"{folder.strip('/')}/{PTH_NAME}")
            info.size, info.mode, info.mtime = len(data), 0o444, int(time.time())
            tar.addfile(info, io.BytesIO(data))
    try:
        engine.client().api.put_archive(cid, "/", buf.getvalue())
    except engine._import_docker().errors.APIError as exc:
        raise SandboxError(f"could not write the verifier's Python guard into the grading container: {exc}") from exc


def _kill_container(cid: str) -> None:
    docker = engine._import_docker()
    try:
        engine.client().api.kill(cid)
        engine.client().api.wait(cid, timeout=60)
    except docker.errors.APIError as exc:
        if "is not running" not in str(exc):
            raise SandboxError(f"could not end the agent container's processes: {exc}") from exc


def _image_size(image: str) -> int:
    """The image's size in bytes (``docker inspect``'s ``Size``: the files of all its layers)."""
    return int(engine.client().api.inspect_image(image).get("Size") or 0)


async def _on_pristine(image: str, labels: dict[str, str], capture: Callable[[str, Path], Awaitable[CapturedPatch]],
                       scratch: Path) -> CapturedPatch:
    """``capture(cid, scratch)`` of a created, never started container of ``image`` (its workdir is the
    pristine base): a capture's control. The container is removed after. Raises
    :class:`SandboxError` when the engine cannot create it."""
    api = engine.client().api
    try:
        cid = (await asyncio.to_thread(api.create_container, image, command=["true"], labels=engine.managed_labels(
            **{**labels, "lancebench.phase": "capture-control"})))["Id"]
    except engine._import_docker().errors.APIError as exc:
        raise SandboxError(f"docker could not create a container of {image} for the capture's control: {exc}") from exc
    try:
        return await capture(cid, scratch)
    finally:
        await asyncio.to_thread(engine.remove_container, cid)


def _capture_bound(image: str, task: Task) -> int:
    """Bytes the archive of the agent's workdir may hold (:func:`_copy_tree`): twice the image's
    size (its files, with room for the archive's headers) plus what the agent may write
    (``storage_mb``) and 64 MiB. The storage quota bounds the blocks the agent writes, not the
    sizes a sparse file claims, which an archive spells out in full."""
    return 2 * _image_size(image) + (task.config.environment.storage_mb + 64) * 1024 * 1024


_host_bases: dict[tuple[str, str, str], Path | None] = {}


def _host_base(image: str, workdir: str, commit: str) -> Path | None:
    """:func:`~lancebench.backends.docker_hosttools.host_base_of` for ``image``, once per process
    (blocking); None (the capture runs in a container) when it cannot be made, the engine's or
    this machine's failure included (warned). Never raises."""
    key = (image, workdir, commit)
    with _prepared_lock:
        if key in _host_bases:
            return _host_bases[key]
    try:
        with _image_lock(f"host-base:{image}:{workdir}"):
            found = host_base_of(image, workdir, commit, sub("docker-host-base"))
    except (SandboxError, OSError, engine._import_docker().errors.APIError) as exc:  # the capture container will do
        logging.getLogger("lancebench").warning("docker: no host copy of %s's repository (%s); its captures run "
                                                "in a container", image, exc)
        found = None
    with _prepared_lock:
        _host_bases[key] = found
    return found


def _copy_tree(src_cid: str, src: str, dst_cid: str, dst_dir: str, scratch: Path, max_bytes: int) -> None:
    """Copy folder ``src`` of one container into ``dst_dir`` of another (tar, spooled in ``scratch``).
    Raises :class:`WorkspaceError` when the archive grows past ``max_bytes`` (found by the attack
    pass after issue 14: 40 sparse files of 60 MB each, no block written, made 2.4 GB of archive
    spooled on the host and unpacked again in the capture container: 5 GB of the host's disk
    for one trial, without bound), :class:`SandboxError` when the engine fails."""
    docker = engine._import_docker()
    api = engine.client().api
    try:
        chunks, _ = api.get_archive(src_cid, src)
        with tempfile.TemporaryFile(dir=scratch) as buf:
            total = 0
            for chunk in chunks:
                total += len(chunk)
                if total > max_bytes:
                    engine.drop_stream(chunks)
                    raise CaptureLimit(f"{src} holds more than {max_bytes // (1024 * 1024)} MiB of files as an "
                                         "archive (sparse files count in full); it was not captured")
                buf.write(chunk)
            buf.seek(0)
            api.put_archive(dst_cid, dst_dir, buf)
    except docker.errors.APIError as exc:
        raise SandboxError(f"could not copy {src} of the agent container for the capture: {exc}") from exc


class _NoGit(Exception):
    """The image has no git: its repository is handled on the host (docker_hosttools)."""


def _base_of(task: Task, tag: str) -> tuple[str, str, str, Path | None]:
    """(image, workdir, base commit, pristine folder or None) for ``tag`` (blocking). Makes a
    derived image ``<tag>-base`` when the workdir is not a git repository, or holds files the
    sandbox user does not own (a user without capabilities could not change them): there the
    repository is committed and given to the image's user. An image without git keeps its
    workdir as it is; its pristine copy and base commit live on the host
    (:func:`~lancebench.backends.docker_hosttools.pristine_of`)."""
    docker = engine._import_docker()
    cli = engine.client()
    info = cli.api.inspect_image(tag)
    workdir = task.lb.workdir if "workdir" in task.lb.model_fields_set else (info["Config"].get("WorkingDir") or "/app")
    if task.kind == "choice":  # no patch is taken: no repository (nor git) is needed
        return tag, workdir, "", None
    key = (info["Id"], workdir)
    with _prepared_lock:
        if key in _prepared:
            return _prepared[key]
    with _image_lock(f"base:{tag}:{workdir}"):
        record = _base_record(info["Id"], workdir)
        recorded = _recorded_base(cli, record, workdir)
        if recorded is not None:
            with _prepared_lock:
                _prepared[key] = recorded
            return recorded
        derived = f"{tag}-base" if ":" in tag.rsplit("/", 1)[-1] else f"{tag}:base"
        try:
            cli.api.inspect_image(derived)
            head, foreign = _probe(cli, derived, workdir, fix=None)
            if not head or foreign:
                raise EnvironmentBuildError(f"derived image {derived} is not usable (remove it and retry)")
            result: tuple[str, str, str, Path | None] = (derived, workdir, head, None)
        except docker.errors.ImageNotFound:
            try:
                head, foreign = _probe(cli, tag, workdir, fix=None)
            except _NoGit:
                from lancebench.caches.cache import sub
                folder, commit = pristine_of(tag, workdir, sub("docker-pristine"))
                result = (tag, workdir, commit, folder)
            else:
                if head and not foreign:
                    result = (tag, workdir, head, None)
                else:
                    head, _ = _probe(cli, tag, workdir, fix=derived, init=not head)
                    result = (derived, workdir, head, None)
        _record_base(cli, record, result)
        with _prepared_lock:
            _prepared[key] = result
        return result


def _base_record(image_id: str, workdir: str) -> Path:
    """Where :func:`_base_of`'s answer for an image id and workdir is kept between processes:
    ``$LANCEBENCH_HOME/docker-base/<image id>-<workdir hash>.json``. An image id is the digest of
    the image's content, so the answer never changes; only what it names may be removed since."""
    name = f"{image_id.split(':')[-1][:32]}-{hashlib.sha256(workdir.encode()).hexdigest()[:12]}.json"
    return sub("docker-base") / name


def _recorded_base(cli, record: Path, workdir: str) -> tuple[str, str, str, Path | None] | None:
    """The answer an earlier process recorded in ``record`` when what it names is still there (the
    derived image with the same id, or the pristine folder with the same commit); else None (the
    image is probed again)."""
    try:
        saved = json.loads(record.read_text())
        image, head, image_id = saved["image"], saved["head"], saved["image_id"]
        pristine = Path(saved["pristine"]) if saved.get("pristine") else None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if pristine is not None:
        try:
            same = (pristine / "commit").read_text().strip() == head and (pristine / "base.git").is_dir()
        except OSError:
            return None
        return (image, workdir, head, pristine) if same else None
    try:
        current = cli.api.inspect_image(image)["Id"]
    except engine._import_docker().errors.APIError:  # ImageNotFound included: removed by gc --images
        return None
    return (image, workdir, head, None) if current == image_id else None


def _record_base(cli, record: Path, result: tuple[str, str, str, Path | None]) -> None:
    """Keep :func:`_base_of`'s ``result`` in ``record`` for later processes (see :func:`_base_record`)."""
    image, _, head, pristine = result
    saved = {"image": image, "image_id": cli.api.inspect_image(image)["Id"], "head": head,
             "pristine": str(pristine) if pristine else None}
    atomic_write(record, json.dumps(saved))


def _probe(cli, image: str, workdir: str, *, fix: str | None, init: bool = False) -> tuple[str, bool]:
    """In a throw-away container of ``image``: (HEAD commit at ``workdir`` or "", whether some file
    there is not owned by the image's user). With ``fix`` (a tag): commit the tree first when
    ``init``, give it to the image's user, and save the container as ``fix``."""
    docker = engine._import_docker()
    api = cli.api
    config = api.inspect_image(image)["Config"]
    user = config.get("User") or "0"
    env = {**BASE_ENV, **(_BASE_COMMIT_ENV if fix else {})}
    host_config = api.create_host_config(network_mode="none", cap_drop=["ALL"], security_opt=["no-new-privileges"],
                                         init=True, cap_add=["CHOWN", "DAC_OVERRIDE", "FOWNER"] if fix else None)
    container = api.create_container(image, entrypoint=KEEPER[:1], command=KEEPER[1:], host_config=host_config,
                                     labels=engine.managed_labels(**{"lancebench.phase": "prepare"}))
    cid = container["Id"]
    u, _, g = user.partition(":")
    script = (f"command -v git >/dev/null || {{ echo 'git is not installed in the image' >&2; exit 90; }}\n"
              f"cd '{workdir}' 2>/dev/null || "
              f"{{ echo 'workdir {workdir} does not exist in the image' >&2; exit 91; }}\n"
              f"U=$(id -u '{u}' 2>/dev/null || echo '{u}'); G=$(id -g '{g or u}' 2>/dev/null || echo '{g or u}')\n")
    if fix:
        if init:
            script += "git init -q . && git add -A . && git commit -q --allow-empty -m 'lancebench base'\n"
        script += 'chown -R "$U:$G" . || exit 92\n'
    script += ('echo "head=$(git rev-parse --verify -q HEAD 2>/dev/null)"\n'
               'echo "foreign=$(find . -xdev \\( ! -user "$U" -o ! -group "$G" \\) -print 2>/dev/null | head -n 1)"\n')
    try:
        api.start(cid)
        eid = api.exec_create(cid, ["sh", "-c", script], stdout=True, stderr=True, user="0", environment=env)["Id"]
        out, err = api.exec_start(eid, demux=True)
        code = api.exec_inspect(eid).get("ExitCode")
        stdout, stderr = (out or b"").decode(errors="replace"), (err or b"").decode(errors="replace").strip()
        if code == 90:
            raise _NoGit(image)
        if code != 0:
            raise EnvironmentBuildError(f"image {image}: could not read the repository at {workdir} "
                                        f"(exit {code}): {stderr[-1500:]}; the docker backend needs git and the "
                                        f"repository in the image (set [lancebench] workdir if it lives elsewhere)")
        fields = dict(line.split("=", 1) for line in stdout.splitlines() if "=" in line)
        head, foreign = fields.get("head", "").strip(), bool(fields.get("foreign", "").strip())
        if fix:
            if not head or foreign:
                raise EnvironmentBuildError(f"image {image}: could not prepare the repository at {workdir}: "
                                            f"{stderr[-1500:]}")
            api.stop(cid, timeout=1)
            conf = dict(config)  # the image's own config, not the probe's
            conf["Labels"] = {"lancebench.caches": f"derived from {image}", **(conf.get("Labels") or {}),
                              LABEL_MANAGED: "true"}
            repo, _, tag = fix.rpartition(":")
            api.commit(cid, repository=repo, tag=tag, conf=conf)
        return head, foreign
    except docker.errors.APIError as exc:
        raise SandboxError(f"docker failed while reading the base commit of {image}: {exc}") from exc
    finally:
        try:
            api.remove_container(cid, force=True, v=True)
        except docker.errors.APIError:
            pass

"""A storage quota for docker containers: ``storage_mb`` bounds the sum of everything a container
writes, not only each file.

overlay2 on ext4 has no per-container size (``--storage-opt size`` needs xfs with project
quotas), so, as in the local backend (:mod:`lancebench.sandbox.quota`), the quota is a
filesystem of its own: a sparse ext4 image of exactly ``storage_mb`` MiB on a loop device, mounted
before the container is created, at the sandbox's scratch folder when the backend gives one
(``<scratch>/quota``), else at ``$LANCEBENCH_HOME/docker-quota/<container name>/``. It holds:

- ``layer/``: a copy of the container's layer folder (the parent of ``GraphDriver.Data.UpperDir``
  and ``WorkDir``: ``diff/``, ``work/``, ``link``, ``lower``), bound over the original after
  ``docker create`` and before ``docker start``, so that the overlay's upper and work folders
  (which overlayfs wants under one mount) and therefore every write to the container's root
  filesystem (workdir, ``/tmp``, ``$HOME``, ``/var/tmp``, ``/etc``, ...) land on the quota;
- ``shm/``: the container's ``/dev/shm`` (a bind mount instead of Docker's tmpfs);
- ``mounts/<n>/``: each writable host folder lancebench binds into the container (the verifier's
  log folder, the user tool's request folder) is covered by a bind of such a folder
  (:mod:`lancebench.sandbox.quota`) from before the container starts until the host folder is
  removed with :func:`lancebench.sandbox.fstree.remove_tree`; the harness reads and writes it by
  its usual path meanwhile (the report witness's FIFO is made on the quota).

Release (:func:`release_container`): the container is killed (the engine unmounts its overlay),
the layer bind is unmounted (otherwise ``docker rm`` fails with EBUSY), the container is removed
and the quota's own mount point unmounted; the image was unlinked once mounted, and the loop
device clears itself when the last mount (a cover) goes. A record ``<name>.json`` in
``$LANCEBENCH_HOME/docker-quota/`` names each quota's owner process: when that process died
(kill -9), :func:`prune_stale` (run when a docker backend starts, and by ``lancebench gc``) ends
the container and unmounts everything the record names.

No quota (the reason is said once per process, as a warning of the ``lancebench`` logger) when the
harness is not root, the engine is remote or not overlay2, or its folders are not this machine's:
then ``storage_mb`` bounds each file only (the ``fsize`` rlimit). Not covered even then: Docker's
own ``/dev`` tmpfs (64 MiB, writable by a root image user only, counted as memory) and the files
``/etc/hosts``, ``/etc/hostname``, ``/etc/resolv.conf`` (engine files, writable by a root image user
only, each bounded by the per-file limit); see docs/security.md.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lancebench.caches.cache import sub
from lancebench.sandbox import docker_engine as engine
from lancebench.sandbox.base import Mount
from lancebench.sandbox.fstree import remove_tree, unmount_below
from lancebench.sandbox.quota import cover, coverable, mount_quota, run_tool

log = logging.getLogger("lancebench")
_FULL_UNITS = 16  # blocks or inodes: fewer free than this and the quota counts as full
_said: set[str] = set()
_support: list[str | None] = []


def say_once(reason: str) -> None:
    """Warn (logger ``lancebench``) that ``storage_mb`` bounds each file only, once per reason."""
    if reason not in _said:
        _said.add(reason)
        log.warning("docker: no storage quota (%s); storage_mb bounds each file only (docs/security.md)", reason)


def quota_root() -> Path:
    """``$LANCEBENCH_HOME/docker-quota``: the quotas' mount points and their records."""
    return sub("docker-quota")


def unsupported() -> str | None:
    """Why this process cannot give containers a quota (None when it can): not root, a remote
    engine, a storage driver other than overlay2, or an engine whose folders are not here.
    Computed once per process."""
    if not _support:
        _support.append(_why_unsupported())
    return _support[0]


def _why_unsupported() -> str | None:
    if os.geteuid() != 0:
        return "the harness is not root"
    kind, where = engine.endpoint()
    if kind == "tcp" and isinstance(where, tuple) and where[0] not in ("localhost", "127.0.0.1", "::1"):
        return f"the engine at {where[0]} is remote"
    info = engine.client().info()
    if info.get("Driver") != "overlay2":
        return f"the engine's storage driver is {info.get('Driver')}, not overlay2"
    if not os.path.isdir(os.path.join(info.get("DockerRootDir") or "/nonexistent", "overlay2")):
        return "the engine's folders are not on this machine"
    return None


@dataclass
class ContainerQuota:
    """The quota filesystem of the container named ``name``, mounted at ``folder``. ``layer``: the
    container's layer folder once covered; ``covers``: host folders covered by a folder of the quota."""

    name: str
    folder: Path
    layer: Path | None = None
    covers: list[Path] = field(default_factory=list)

    @property
    def shm(self) -> Path:
        """The host folder bound at the container's ``/dev/shm``."""
        return self.folder / "shm"

    @classmethod
    def open(cls, name: str, size_mb: int, folder: Path | None = None) -> ContainerQuota | None:
        """Mount a fresh ``size_mb`` MiB quota for container ``name`` at ``folder`` (must not exist
        or be empty; default ``quota_root()/name``); None (reason said once) when no quota can be
        had. Never raises."""
        try:
            reason = unsupported()
        except Exception as exc:  # noqa: BLE001 - the engine's answer is only advice here
            reason = f"the engine could not be asked ({exc})"
        if reason:
            say_once(reason)
            return None
        quota = cls(name, folder or quota_root() / name)
        try:
            quota._record()
            reason = mount_quota(quota.folder, size_mb)
            if reason is None:
                quota.shm.mkdir(mode=0o1777)
                os.chmod(quota.shm, 0o1777)
                return quota
        except OSError as exc:
            reason = f"the quota could not be made ({exc})"
        say_once(reason.split("; storage_mb bounds")[0])
        quota.release()
        return None

    def cover(self, mounts: tuple[Mount, ...]) -> None:
        """Cover the host folder of each writable mount with a folder of the quota
        (:mod:`lancebench.sandbox.quota`; the cover stays until the caller removes the host
        folder with ``remove_tree``). Raises ``OSError`` when a bind fails."""
        for source in coverable(mounts):
            copy = self.folder / "mounts" / str(len(self.covers))
            self.covers.append(source)
            self._record()
            notes = cover(source, copy)
            if notes:
                log.warning("docker quota: %s not all copied: %s", source, "; ".join(notes[:3]))

    def attach(self, inspect: dict[str, Any]) -> None:
        """Cover the created (not yet started) container's layer folder, given its ``docker
        inspect`` data. Raises ``OSError`` when that is not possible."""
        data = (inspect.get("GraphDriver") or {}).get("Data") or {}
        upper, work = data.get("UpperDir"), data.get("WorkDir")
        if not upper or not work or os.path.dirname(upper) != os.path.dirname(work):
            raise OSError("the container's overlay folders are not where overlay2 keeps them")
        layer = Path(os.path.dirname(upper))
        copy = self.folder / "layer"
        run_tool(["cp", "-a", "--", f"{layer}/.", f"{copy}/"], mkdir=copy)
        self.layer = layer
        self._record()
        run_tool(["mount", "--bind", str(copy), str(layer)])

    def started(self) -> bool:
        """Whether the engine mounted the started container's root over the quota (it shares this
        machine's mount namespace); when not, nothing is bounded but each file."""
        return self.layer is not None and os.path.ismount(self.layer / "merged")

    def full(self) -> bool:
        """Whether the quota has (almost) no free block or no free inode left for the container:
        then the engine itself cannot mount the container's root again (overlayfs makes its work
        folder there), so reading or restarting it fails with "no space left on device", which is
        the container's doing. False when the quota cannot be read. Never raises."""
        try:
            st = os.statvfs(self.folder)
        except OSError:
            return False
        return st.f_bavail < _FULL_UNITS or st.f_favail < _FULL_UNITS

    def detach(self) -> None:
        """Unmount the layer bind (the container must have stopped), so that ``docker rm`` can
        remove the layer folder. Never raises."""
        if self.layer is not None:
            unmount_below(self.layer)
            self.layer = None

    def release(self, *, covers: bool = False) -> None:
        """Unmount the quota (the container must be gone) and remove its record; its folder too
        when it is under :func:`quota_root`. The covers stay (their folders' removal unmounts
        them; the filesystem lives until then) unless ``covers``. Never raises."""
        self.detach()
        for source in self.covers if covers else []:
            unmount_below(source)
        unmount_below(self.folder)
        if self.folder.parent == quota_root():
            remove_tree(self.folder)
        try:
            _record_path(self.name).unlink(missing_ok=True)
        except OSError:
            pass

    def _record(self) -> None:
        data = {"pid": os.getpid(), "start": engine.process_start(os.getpid()), "folder": str(self.folder),
                "layer": str(self.layer or ""), "covers": [str(s) for s in self.covers]}
        path = _record_path(self.name)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, path)


def _record_path(name: str) -> Path:
    return quota_root() / f"{name}.json"


def _end_container(name: str) -> None:
    """Kill container ``name`` and wait for it to stop (the engine unmounts its root). Never raises."""
    try:
        api = engine.client().api
        api.kill(name)
        api.wait(name, timeout=60)
    except Exception:  # noqa: BLE001 - gone or not running: nothing to end
        pass


def release_container(ref: str, quota: ContainerQuota | None, *, covers: bool = False, ended: bool = False) -> None:
    """Remove container ``ref`` (name or id) with its ``quota`` (None: it has none): the container
    is killed (unless ``ended``: it was seen stopped already), the layer bind unmounted, the
    container removed, the quota released (with its covers when ``covers``: a harness that died
    leaves nobody to remove their folders). Raises :class:`lancebench.errors.SandboxError` only
    when the engine refuses the removal (the quota is released all the same)."""
    if quota is not None and not ended:
        _end_container(ref)
    if quota is not None:
        quota.detach()
    try:
        engine.remove_container(ref)
    finally:
        if quota is not None:
            quota.release(covers=covers)


def quota_of(name: str) -> ContainerQuota | None:
    """The quota of container ``name`` as its record describes it (None: no record)."""
    try:
        data = json.loads(_record_path(name).read_text())
    except (OSError, ValueError):
        return None
    layer = Path(data["layer"]) if data.get("layer") else None
    return ContainerQuota(name, Path(data.get("folder") or quota_root() / name), layer,
                          [Path(s) for s in data.get("covers") or []])


def prune_stale() -> list[str]:
    """Release the quotas (and remove the containers) whose owner process has ended (kill -9 of a
    harness). Returns the container names. Never raises."""
    done: list[str] = []
    try:
        if os.geteuid() != 0 or not quota_root().is_dir():
            return done
        for path in sorted(quota_root().glob("*.json")):
            try:
                data = json.loads(path.read_text())
            except (OSError, ValueError):
                data = {}
            pid = int(data.get("pid") or 0)
            if pid and engine.process_start(pid) == data.get("start"):
                continue  # its owner still runs
            name = path.name[:-len(".json")]
            try:
                release_container(name, quota_of(name), covers=True)
            except Exception:  # noqa: BLE001 - the engine may be gone; the mounts are released anyway
                pass
            done.append(name)
    except OSError:
        pass
    return done

"""Task images without git or Python (most Harbor tasks: Terminal-Bench style images install only
what the task needs): the base repository, the capture and the patch application run on the host.

- :func:`pristine_of`: the image's workdir is exported (a tar stream of a created, never started
  container) into ``$LANCEBENCH_HOME/docker-pristine/<image id>-<workdir hash>/tree`` and committed,
  with a fixed author and date, into a bare repository beside it, by the host's git. Cached.
- :func:`host_base_of`: for an image *with* git, a host copy of its ``.git`` (at most 64 MiB),
  so that its captures run here too, without a capture container (issue 29). Cached.
- :func:`capture_on_host`: the agent container's workdir (the container is stopped) is exported
  the same way into scratch space, and :data:`lancebench.sandbox.backend.CAPTURE` diffs it against
  the pristine repository inside a bubblewrap sandbox with the host's git (the files are the
  agent's: they are never read by a tool outside a sandbox).
- :func:`apply_on_host`: ``git apply`` runs in a bubblewrap sandbox over a copy of the pristine
  tree; the files that differ are copied into the grading container and the removed ones are
  deleted there with ``rm`` (the one tool the image must have, beside the shell that runs
  ``tests/test.sh``).
"""

from __future__ import annotations

import errno
import filecmp
import hashlib
import os
import posixpath
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

from lancebench.backends.capture import CaptureLimit, run_capture
from lancebench.errors import EnvironmentBuildError, SandboxError, WorkspaceError
from lancebench.sandbox import docker_engine as engine
from lancebench.sandbox.backend import PreparedEnvironment, task_limits
from lancebench.sandbox.base import CapturedPatch, Mount, SandboxSpec
from lancebench.sandbox.fstree import make_readable, remove_tree
from lancebench.sandbox.local import LocalSandbox
from lancebench.task.model import Task

_FIXED = {"GIT_AUTHOR_NAME": "lancebench", "GIT_AUTHOR_EMAIL": "lancebench@localhost",
          "GIT_COMMITTER_NAME": "lancebench", "GIT_COMMITTER_EMAIL": "lancebench@localhost",
          "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"}


def _export(cid: str, src: str, dest: Path, max_bytes: int) -> None:
    """Unpack folder ``src`` of container ``cid`` into ``dest`` (created; its contents are those
    of ``src``). No member is written outside ``dest`` or through a link (:class:`_Written`; the
    modes tarfile's ``tar`` filter keeps: no setuid, setgid, sticky or group/other write bits);
    a hard link to a symbolic link is unpacked as that link (its owner, mode and time are never
    set through it); device files and FIFOs are skipped. Raises :class:`CaptureLimit` when the files
    exceed ``max_bytes`` or a hard link leaves ``src``, :class:`SandboxError` when the engine fails
    or the disk under ``dest`` is full, :class:`WorkspaceError` when the files cannot be unpacked
    (which a capture blames with a control: :func:`lancebench.backends.capture.controlled`)."""
    docker = engine._import_docker()
    total = 0
    prefix = PurePosixPath(src).name

    skipped: set[str] = set()
    written = _Written()

    def keep(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
        nonlocal total
        rel, link = _relative(member.name, prefix), _relative(member.linkname, prefix) if member.islnk() else ""
        if member.isdev() or member.isfifo() or rel is None or link is None or (member.islnk() and link in skipped):
            skipped.add(rel or "")
            return None
        total += member.size
        if total > max_bytes:
            raise CaptureLimit(f"{src} holds more than {max_bytes // (1024 * 1024)} MiB of files")
        # renamed first, so that the check (nothing through a link, nothing outside) is of the path
        # written; a hard link names its target the same way (attack pass round 8)
        if member.islnk() and written.through_link(link):  # link() follows no last link
            raise CaptureLimit(f"{src}: hard link {rel} names {link}, outside the workdir")
        if member.islnk() and written.links.get(link):  # a hard link to a symbolic link is that link: made
            # as one, never by link() (tarfile would chown, chmod and utime the path, following the link
            # to a file of this machine, or fail to find a target the link does not reach: round 12)
            member = member.replace(linkname=written.links[link], deep=False)
            member.type = tarfile.SYMTYPE
        if rel != "." and (written.links.get(rel) or written.through_link(rel)):
            raise tarfile.OutsideDestinationError(member, os.path.join(path, rel))
        written.links[rel] = member.linkname if member.issym() else ""
        return member.replace(name=rel, linkname=link if member.islnk() else member.linkname, uid=os.getuid(),
                              gid=os.getgid(), uname="", gname="", mode=member.mode & 0o755, deep=False)

    dest.mkdir(parents=True, exist_ok=True)
    try:
        chunks, _ = engine.client().api.get_archive(cid, src)
        with tempfile.TemporaryFile(dir=dest.parent) as buf:  # the trial's scratch, not the host's /tmp
            spooled, bound = 0, 2 * max_bytes + (64 << 20)  # room for the archive's headers
            for chunk in chunks:
                spooled += len(chunk)
                if spooled > bound:  # sparse files count in full: stop before the host's disk fills
                    engine.drop_stream(chunks)
                    raise CaptureLimit(f"{src} holds more than {bound // (1024 * 1024)} MiB of files as an archive "
                                         "(sparse files count in full); it was not captured")
                buf.write(chunk)
            buf.seek(0)
            with tarfile.open(fileobj=buf, mode="r|") as tar:
                tar.extractall(dest, filter=keep)
    except docker.errors.APIError as exc:
        raise SandboxError(f"docker could not export {src}: {exc}") from exc
    except (tarfile.TarError, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):  # blamed by the capture's control
            raise SandboxError(f"{src} could not be unpacked: the disk under {dest} is full: {exc}") from exc
        raise WorkspaceError(f"{src} could not be unpacked on the host: {exc}") from exc


class _Written:
    """The paths an archive has written so far under a new, empty folder, each with the target of
    the symbolic link it is ("" when it is none), so that a member is checked without reading the
    disk: nothing is written to or through a link the archive made (nothing else there is one).
    tarfile's own filters resolve each member's path on the disk instead, a cost quadratic in a
    tree's depth: 147 s against 3.4 s for a workspace 1,500 folders deep (found by the CI trims,
    2026-12-02)."""

    def __init__(self) -> None:
        self.links: dict[str, str] = {".": ""}  # relative path -> its link's target, "" for none

    def through_link(self, rel: str) -> bool:
        """Whether a folder above ``rel`` (relative, normalised) is a link the archive made; the
        folders tarfile will make for it are recorded. Costs the new folders, not the depth."""
        parent, new = posixpath.dirname(rel) or ".", []
        while parent not in self.links:
            new.append(parent)
            parent = posixpath.dirname(parent) or "."
        if self.links[parent]:
            return True
        self.links.update(dict.fromkeys(new, ""))
        return False


def _relative(name: str, prefix: str) -> str | None:
    """``name`` (an archive member's path or hard link target) relative to the archive's top
    folder ``prefix`` ("." for the folder itself), or None when it is not under it."""
    parts = PurePosixPath(name).parts
    if not parts or parts[0] != prefix or ".." in parts:
        return None
    return PurePosixPath(*parts[1:]).as_posix() if len(parts) > 1 else "."


def _git(args: list[str], git_dir: Path, work_tree: Path | None) -> str:
    env = {**_FIXED, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_CONFIG_NOSYSTEM": "1",
           "HOME": str(git_dir.parent)}
    if work_tree is not None:
        env |= {"GIT_DIR": str(git_dir), "GIT_WORK_TREE": str(work_tree)}
    proc = subprocess.run(["git", "-c", "core.hooksPath=/dev/null", "-c", "core.autocrlf=false", *args],
                          env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise EnvironmentBuildError(f"git {' '.join(args)} failed on the exported image tree: {proc.stderr[-1000:]}")
    return proc.stdout.strip()


def pristine_of(image: str, workdir: str, root: Path) -> tuple[Path, str]:
    """(folder holding ``tree/`` and ``base.git``, base commit) of ``image``'s ``workdir``, made
    once under ``root`` (see the module docstring). Raises :class:`EnvironmentBuildError`."""
    api = engine.client().api
    image_id = api.inspect_image(image)["Id"].split(":")[-1][:24]
    folder = root / f"{image_id}-{hashlib.sha256(workdir.encode()).hexdigest()[:12]}"
    done = folder / "commit"
    if done.is_file():
        return folder, done.read_text().strip()
    tmp = Path(tempfile.mkdtemp(dir=root, prefix=".tmp-"))
    cid = api.create_container(image, command=["true"], labels=engine.managed_labels(
                                                                  **{"lancebench.phase": "prepare"}))["Id"]
    try:
        try:
            _export(cid, workdir, tmp / "tree", max_bytes=1 << 40)
        except (SandboxError, WorkspaceError) as exc:
            if isinstance(exc.__cause__, engine._import_docker().errors.NotFound):  # the task's mistake
                raise EnvironmentBuildError(
                    f"image {image} has no folder {workdir}, the task's workdir: create it in "
                    f"environment/Dockerfile (WORKDIR {workdir}), or set [environment] workdir in task.toml to "
                    "the folder that holds the repository") from exc
            raise EnvironmentBuildError(f"image {image}: workdir {workdir} could not be read: {exc}") from exc
        _git(["init", "-q", "--bare", str(tmp / "base.git")], tmp / "base.git", None)
        _git(["add", "-A", "."], tmp / "base.git", tmp / "tree")
        _git(["commit", "-q", "--allow-empty", "-m", "lancebench base"], tmp / "base.git", tmp / "tree")
        commit = _git(["rev-parse", "HEAD"], tmp / "base.git", tmp / "tree")
        _publish(tmp, folder, commit)
        return folder, (folder / "commit").read_text().strip()
    finally:
        api.remove_container(cid, force=True)
        if tmp.exists():
            remove_tree(tmp)


def _publish(tmp: Path, folder: Path, commit: str) -> None:
    """Make the per-image copy ``tmp`` (with ``base.git``) the shared ``folder``, its ``commit``
    beside it, by one rename: readers see the whole copy or none; when another trial made
    ``folder`` meanwhile, its copy is kept and ``tmp`` removed."""
    (tmp / "commit").write_text(commit + "\n")
    make_readable(tmp)
    os.chmod(tmp, 0o755)
    try:
        os.replace(tmp, folder)
    except OSError:  # made meanwhile by another trial
        remove_tree(tmp)


def host_base_of(image: str, workdir: str, head: str, root: Path, max_bytes: int = 64 << 20) -> Path | None:
    """A host copy of the repository of ``image`` (which has git) at ``workdir``, for
    :func:`capture_on_host`: ``<root>/<image id>-<workdir hash>/base.git``, the image's own
    ``.git`` exported from a created, never started container, with a configuration of
    lancebench's (the image's is not kept); made once per image, with ``commit`` (``head``)
    beside it. Returns the folder holding ``base.git``, or None when the capture stays in a
    container (recorded as ``<folder>.none``): ``.git`` is not a folder, its archive passes
    ``max_bytes`` (bytes, default 64 MiB: the copy is kept per image), or the host's git cannot
    read ``head`` and its tree there (another object format or repository extension). Blocking;
    raises :class:`SandboxError` when the engine fails."""
    api = engine.client().api
    image_id = api.inspect_image(image)["Id"].split(":")[-1][:24]
    folder = root / f"{image_id}-{hashlib.sha256(workdir.encode()).hexdigest()[:12]}"
    none = folder.with_name(folder.name + ".none")
    if (folder / "commit").is_file() and (folder / "commit").read_text().strip() == head:
        return folder
    if none.is_file():
        return None
    tmp = Path(tempfile.mkdtemp(dir=root, prefix=".tmp-"))
    cid = api.create_container(image, command=["true"], labels=engine.managed_labels(
                                                                  **{"lancebench.phase": "prepare"}))["Id"]
    try:
        ok = _export_git(cid, f"{workdir.rstrip('/')}/.git", tmp / "base.git", max_bytes) and _host_reads(
            tmp / "base.git", head)
        if not ok:
            none.write_text("the capture runs in a container for this image\n")
            return None
        _publish(tmp, folder, head)
        return folder
    finally:
        engine.remove_container(cid)
        if tmp.exists():
            remove_tree(tmp)


def _export_git(cid: str, src: str, dest: Path, max_bytes: int) -> bool:
    """Export folder ``src`` (a repository's ``.git``) of container ``cid`` into ``dest`` with
    :func:`_export`, and replace its configuration with a plain bare one; False when ``src`` is
    not a folder or is larger than ``max_bytes``."""
    try:
        chunks, stat = engine.client().api.get_archive(cid, src)
        engine.drop_stream(chunks)
    except engine._import_docker().errors.NotFound:
        return False
    if not stat.get("mode", 0) & (1 << 31):  # a .git file (a worktree or a submodule's): not a folder
        return False
    try:
        _export(cid, src, dest, max_bytes)
    except WorkspaceError:
        return False
    for name in ("config", "hooks", "objects/info/alternates", "objects/info/http-alternates"):
        path = dest / name
        remove_tree(path) if path.is_dir() else path.unlink(missing_ok=True)
    (dest / "config").write_text("[core]\n\trepositoryformatversion = 0\n\tbare = true\n")
    return True


def _host_reads(git_dir: Path, head: str) -> bool:
    """Whether the host's git reads commit ``head`` and every file of its tree in ``git_dir``
    (``git archive`` reads each blob)."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": str(git_dir.parent), "GIT_DIR": str(git_dir)}
    for args in (["cat-file", "-e", f"{head}^{{commit}}"], ["archive", "--format=tar", head]):
        proc = subprocess.run(["git", *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              check=False)
        if proc.returncode != 0:
            return False
    return True


async def capture_on_host(task: Task, workdir: str, base_commit: str, pristine: Path, agent_cid: str,
                          scratch: Path, max_bytes: int | None = None) -> CapturedPatch:
    """The agent's work as a patch against the pristine base (see the module docstring): the
    repository ``pristine/base.git`` (:func:`pristine_of` for an image without git,
    :func:`host_base_of` for one with git) at ``base_commit``. ``max_bytes``: what the workdir's
    files may hold in all (default ``storage_mb``). Raises :class:`CaptureLimit` for a workspace
    past a limit (the agent's), :class:`WorkspaceError` and :class:`SandboxError` for the others,
    whose blame is decided by the caller's control (:func:`lancebench.backends.capture.controlled`:
    the same capture of the pristine base); no threshold on free space decides it."""
    import asyncio

    workspace = scratch / "workspace"
    cap = max_bytes if max_bytes is not None else task.config.environment.storage_mb * 1024 * 1024
    spec = SandboxSpec(workdir=workdir, workspace=workspace, mounts=(Mount(pristine / "base.git",
                       "/lancebench/base.git", False),), limits=task_limits(task))
    try:
        await asyncio.to_thread(_export, agent_cid, workdir, workspace, cap)
        await asyncio.to_thread(make_readable, workspace)  # a chmod of every file: off the event loop
        async with LocalSandbox(spec, root=scratch / "capture-root") as box:
            env = PreparedEnvironment(base_commit=base_commit, workdir=workdir)
            return await run_capture(box, workdir, task, env, scratch)
    finally:
        remove_tree(scratch / "capture-root")
        remove_tree(workspace)


def _differences(old: Path, new: Path, rel: str = "") -> tuple[list[str], list[str]]:
    """(paths to write, paths to remove), relative, turning tree ``old`` into ``new``. A path whose
    type changes (file, folder, link) is in both."""
    write, remove = [], []
    old_names = set(os.listdir(old / rel)) if (old / rel).is_dir() else set()
    new_names = set(os.listdir(new / rel))
    for name in sorted(old_names | new_names):
        path = f"{rel}/{name}" if rel else name
        o, n = old / path, new / path
        o_kind = "l" if o.is_symlink() else "d" if o.is_dir() else "f" if o.exists() else None
        n_kind = "l" if n.is_symlink() else "d" if n.is_dir() else "f" if n.exists() else None
        if n_kind is None:
            remove.append(path)
        elif o_kind != n_kind:
            if o_kind is not None:
                remove.append(path)
            write.append(path)
        elif n_kind == "d":
            w, r = _differences(old, new, path)
            write += w
            remove += r
        elif n_kind == "l" and os.readlink(o) != os.readlink(n):
            write.append(path)
        elif n_kind == "f" and (not filecmp.cmp(o, n, shallow=False) or os.stat(o).st_mode != os.stat(n).st_mode):
            write.append(path)
    return write, remove


async def apply_on_host(task: Task, workdir: str, pristine: Path, sandbox, patch: str,
                        scratch: Path) -> tuple[bool, str]:
    """Apply ``patch`` for grading into the started grading ``sandbox`` (a DockerSandbox) without
    any tool of the image but ``rm`` (see the module docstring). Returns (applied, log)."""
    import asyncio
    work = scratch / "apply"
    tree = work / "tree"
    await asyncio.to_thread(shutil.copytree, pristine / "tree", tree, symlinks=True)
    (work / "patch").mkdir()
    (work / "patch" / "patch.diff").write_text(patch, encoding="utf-8", errors="surrogateescape")
    make_readable(work)
    spec = SandboxSpec(workdir=workdir, workspace=tree, mounts=(Mount(work / "patch", "/tmp/lb-patch", False),),
                       limits=task_limits(task))
    async with LocalSandbox(spec, root=work / "root") as box:
        res = await box.exec(["git", "apply", "--binary", "--whitespace=nowarn", "/tmp/lb-patch/patch.diff"],
                             timeout=300)
    if not res.ok:
        return False, f"exit {res.exit_code}\n{res.output}"
    write, remove = await asyncio.to_thread(_differences, pristine / "tree", tree)
    if remove:
        rm = await sandbox.exec(["rm", "-rf", "--", *[f"{workdir}/{p}" for p in remove]], user="root")
        if not rm.ok:
            raise SandboxError(f"could not remove files in the grading container: {rm.output[-500:]}")
    stage = work / "stage" / PurePosixPath(workdir).name
    for rel in write:
        src, dst = tree / rel, stage / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir() and not src.is_symlink():
            shutil.copytree(src, dst, symlinks=True)
        else:
            shutil.copy2(src, dst, follow_symlinks=False)
    if write:
        await sandbox.put(stage, workdir)
    return True, f"exit 0 (applied on the host: {len(write)} written, {len(remove)} removed)\n{res.output}"

"""Building a task's environment for the ``local`` backend.

The result is a cached folder per environment digest (:meth:`Task.environment_digest`)::

    envs/<digest>/app/    the repository at its base commit (with .git: no remotes, one branch)
    envs/<digest>/env/    tools (for example /env/venv), read-only in every sandbox
    envs/<digest>/ready.json   {"base_commit": ..., "build_sec": ...}; written last
    envs/<digest>/build.log

The task's ``[lancebench.local] setup`` script runs once with network (see
:class:`lancebench.task.model.LocalRecipe`). A task without a recipe gets an empty repository.
Concurrent builds of one digest wait on a file lock; a failed build leaves nothing behind.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path

from lancebench.backends.options import BackendOptions
from lancebench.caches.cache import sub
from lancebench.caches.checkout import check_allowed, export_tree
from lancebench.errors import EnvironmentBuildError
from lancebench.sandbox.base import Limits, Mount, SandboxSpec
from lancebench.sandbox.local import DEFAULT_PATH, LocalSandbox
from lancebench.task.model import Task

BUILD_VERSION = 2  # bump when the way environments are built changes: older cache entries are not reused
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
USER_CA = "/etc/lancebench-ca.pem"
# Host variables a build may need to reach a package index through a proxy or a private mirror.
PASS_THROUGH = ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST", "PIP_DEFAULT_TIMEOUT",
                "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")
GIT_ID = {"GIT_AUTHOR_NAME": "lancebench", "GIT_AUTHOR_EMAIL": "lancebench@localhost",
          "GIT_COMMITTER_NAME": "lancebench", "GIT_COMMITTER_EMAIL": "lancebench@localhost",
          "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"}

FINALIZE = r"""
set -euo pipefail
cd "$1"
if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
  git init -q -b main . 2>/dev/null || git init -q .
  git add -A
  git commit -q --allow-empty -m base
fi
for r in $(git remote); do git remote remove "$r"; done
branch=$(git symbolic-ref -q --short HEAD || echo "")
git for-each-ref --format='%(refname)' | while read -r ref; do
  [ "$ref" = "refs/heads/$branch" ] || git update-ref -d "$ref"
done
git stash clear 2>/dev/null || true
git reflog expire --expire=now --all
git -c gc.auto=0 gc -q --prune=now  # unreachable objects (future history) must not reach the agent
git status --porcelain --untracked-files=no | grep -q . && {
  echo "tracked files differ from the base commit after setup" >&2; git status --short >&2; exit 3; }
git rev-parse HEAD
"""


@dataclass(frozen=True)
class LocalEnvironment:
    """A built environment: ``app`` (repository at ``base_commit``), ``env`` (tools), the
    ``workdir`` it is shown at, and the extra environment variables every command gets."""

    digest: str
    root: Path
    base_commit: str
    workdir: str
    variables: dict[str, str] = field(default_factory=dict)
    build_sec: float = 0.0

    @property
    def app(self) -> Path:
        return self.root / "app"

    @property
    def env(self) -> Path:
        return self.root / "env"

    @property
    def git_dir(self) -> Path:
        return self.root / "app" / ".git"


def task_variables(task: Task) -> dict[str, str]:
    """Environment variables the task's commands get (PATH with the recipe's ``path`` first)."""
    recipe = task.lb.local
    variables = dict(recipe.env) if recipe else {}
    prefix = ":".join(recipe.path) + ":" if recipe and recipe.path else ""
    variables["PATH"] = prefix + DEFAULT_PATH
    return variables


async def build_local_environment(task: Task, *, cache_dir: Path | None = None,
                                  options: BackendOptions | None = None) -> LocalEnvironment:
    """Return the task's built environment, building it first if the cache lacks it. ``options``:
    the CA bundle builds trust and the host repositories a checkout may snapshot.

    Raises :class:`EnvironmentBuildError` (with the log's tail) when the setup script fails,
    exceeds ``[environment] build_timeout_sec``, or leaves no usable repository.
    """
    options = options or BackendOptions()
    checkout = task.lb.local.checkout if task.lb.local else None
    if checkout is not None:
        try:
            check_allowed(Path(checkout.repo), options.allowed_repos())
        except EnvironmentBuildError as exc:
            raise EnvironmentBuildError(f"{task.paths.task_toml} [lancebench.local.checkout]: {exc}") from None
    envs = cache_dir or sub("envs")
    digest = f"{task.environment_digest()[:48]}-b{BUILD_VERSION}"
    final = envs / digest
    variables = task_variables(task)
    if (final / "ready.json").is_file():
        return _loaded(final, digest, task, variables)
    lock_path = envs / f"{digest}.lock"
    with open(lock_path, "w") as lock:
        await _lock(lock)
        if (final / "ready.json").is_file():
            return _loaded(final, digest, task, variables)
        tmp = envs / f"{digest}.tmp-{uuid.uuid4().hex[:8]}"
        try:
            t0 = time.monotonic()
            base = await _build(task, tmp, variables, options)
            # readable by every sandbox uid: each sandbox runs as a uid of its own (sandbox.uid_lease),
            # not the build's; the folder is mounted read-only, so nothing else changes
            subprocess.run(["chmod", "-R", "a+rX", "--", str(tmp / "env")], capture_output=True, timeout=600)
            (tmp / "ready.json").write_text(json.dumps({"base_commit": base, "build_sec": time.monotonic() - t0,
                                                        "task": task.name}))
            if final.exists():
                shutil.rmtree(final)
            os.rename(tmp, final)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return _loaded(final, digest, task, variables)


async def _lock(lock) -> None:
    import asyncio
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            await asyncio.sleep(0.2)


def _loaded(root: Path, digest: str, task: Task, variables: dict[str, str]) -> LocalEnvironment:
    info = json.loads((root / "ready.json").read_text())
    return LocalEnvironment(digest=digest, root=root, base_commit=info["base_commit"], workdir=task.lb.workdir,
                            variables=variables, build_sec=info.get("build_sec", 0.0))


async def _build(task: Task, tmp: Path, variables: dict[str, str], options: BackendOptions) -> str:
    app, env, log = tmp / "app", tmp / "env", tmp / "build.log"
    for d in (app, env):
        d.mkdir(parents=True)
    recipe = task.lb.local
    lines: list[str] = []
    # before the sandbox starts: it hands app/ to the sandbox uid
    if recipe is not None and recipe.checkout is not None:
        t0 = time.monotonic()
        try:
            commit = export_tree(Path(recipe.checkout.repo), recipe.checkout.rev, app, options.allowed_repos())
        except EnvironmentBuildError as exc:
            raise EnvironmentBuildError(f"{task.paths.task_toml} [lancebench.local.checkout]: {exc} (point repo at a "
                                        "clone that holds the commit, e.g. after git fetch)") from None
        lines.append(f"$ checkout {recipe.checkout.repo} at {recipe.checkout.rev} = {commit} "
                     f"({time.monotonic() - t0:.1f}s)")
    limits = Limits(memory_mb=max(task.config.environment.memory_mb, 4096), pids=4096, output_bytes=400_000)
    # node reads no SSL_CERT_FILE: NODE_EXTRA_CA_CERTS, as docker builds get it (sandbox/docker_image.py)
    build_env = dict(variables) | {"SSL_CERT_FILE": CA_BUNDLE, "PIP_CERT": CA_BUNDLE, "REQUESTS_CA_BUNDLE": CA_BUNDLE,
                                   "NODE_EXTRA_CA_CERTS": CA_BUNDLE,
                                   "HOME": "/tmp/home", "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    build_env |= {k: os.environ[k] for k in PASS_THROUGH if k in os.environ}
    mounts = [Mount(env, "/env", True)]
    user_ca = options.ca_bundle_file()
    if isinstance(user_ca, (str, os.PathLike)):  # --ca-bundle: a copy (the sandbox user may not reach the original)
        shutil.copy(user_ca, tmp / "ca-bundle.pem")
        mounts.append(Mount(tmp / "ca-bundle.pem", USER_CA, False))
        build_env |= {"SSL_CERT_FILE": USER_CA, "PIP_CERT": USER_CA, "REQUESTS_CA_BUNDLE": USER_CA,
                      "CURL_CA_BUNDLE": USER_CA, "GIT_SSL_CAINFO": USER_CA, "NODE_EXTRA_CA_CERTS": USER_CA}
    if task.paths.environment.is_dir():  # a copy: the task folder may be private to its owner
        shutil.copytree(task.paths.environment, tmp / "task-env", symlinks=True)
        mounts.append(Mount(tmp / "task-env", "/task-env", False))
    if os.path.isfile("/etc/pip.conf"):
        mounts.append(Mount(Path("/etc/pip.conf"), "/etc/pip.conf", False))
    spec = SandboxSpec(workdir=task.lb.workdir, workspace=app, mounts=tuple(mounts), env=build_env, network=True,
                       limits=limits)
    try:
        async with LocalSandbox(spec, root=tmp / "sandbox") as sandbox:
            if recipe is not None and recipe.setup:
                res = await sandbox.exec(["bash", "-e", f"/task-env/{recipe.setup}"],
                                         timeout=task.config.environment.build_timeout_sec)
                lines += [f"$ setup {recipe.setup} (exit {res.exit_code}, {res.duration_sec:.1f}s)", res.stdout,
                          res.stderr]
                if not res.ok:
                    why = "timed out" if res.timed_out else f"exited {res.exit_code}"
                    raise EnvironmentBuildError(f"{task.paths.environment / recipe.setup}: setup {why}; log tail:\n"
                                                + "\n".join(lines)[-3000:])
            sandbox.spec = replace(spec, env=build_env | GIT_ID, network=False)
            res = await sandbox.exec(["bash", "-c", FINALIZE, "finalize", task.lb.workdir], timeout=600)
            lines += ["$ finalize", res.stdout, res.stderr]
            if not res.ok:
                raise EnvironmentBuildError(f"{task.paths.root}: could not make the base commit; log tail:\n"
                                            + "\n".join(lines)[-3000:])
            return res.stdout.strip().splitlines()[-1]
    finally:
        log.write_text("\n".join(lines))
        shutil.rmtree(tmp / "sandbox", ignore_errors=True)
        shutil.rmtree(tmp / "task-env", ignore_errors=True)
        (tmp / "ca-bundle.pem").unlink(missing_ok=True)

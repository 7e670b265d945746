"""Sandbox work of senior grading: the patched repository as a host snapshot, the reference patch,
and a fingerprint of the repository to detect changes.

Everything runs through the task's backend in fresh sandboxes (so it works on ``local`` and
``docker`` alike); the patch is applied as grading applies it, never on the host.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from lancebench.errors import SandboxError
from lancebench.grading.verifier import apply_in_sandbox
from lancebench.sandbox.backend import Backend, PreparedEnvironment
from lancebench.sandbox.base import Sandbox
from lancebench.sandbox.fstree import remove_tree
from lancebench.task.model import Task
from lancebench.task.settings import phase_env
from lancebench.task.steps import step_solution_dir

# Files and folders of the repository, with type, mode, size, link target and content hash, in one
# sorted list: equal fingerprints mean nothing outside the excluded paths changed.
FINGERPRINT = r"""
set -o pipefail
mkdir -p "$(dirname "$3")"
cd "$1"
out="$3"
prune=(-path ./.git)
for p in "${@:4}" "$2"; do prune+=(-o -path "./$p"); done
{ find . \( "${prune[@]}" \) -prune -o -type d -printf '%y %m %p\n' -o -printf '%y %m %s %p -> %l\n' |
    LC_ALL=C sort &&
  find . \( "${prune[@]}" \) -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
} > "$out"
"""

_reference_cache: dict[str, str] = {}
_reference_locks: dict[str, asyncio.Lock] = {}


async def apply_patch(task: Task, backend: Backend, sandbox: Sandbox, env: PreparedEnvironment, patch: str,
                      scratch: Path) -> None:
    """Apply ``patch`` in a started sandbox's workdir as grading does
    (:func:`lancebench.grading.verifier.apply_in_sandbox`). Raises :class:`SandboxError` when it
    does not apply."""
    if not patch.strip():
        return
    scratch.mkdir(parents=True, exist_ok=True)
    applied, log = await apply_in_sandbox(backend, task, env, sandbox, patch, scratch)
    if not applied:
        raise SandboxError(f"the patch did not apply for senior grading: {log[-800:]}")


async def snapshot(task: Task, backend: Backend, env: PreparedEnvironment, patch: str, scratch: Path,
                   labels: dict[str, str] | None = None) -> Path:
    """Copy the repository with ``patch`` applied to a host folder (``scratch/repo``) and return it.
    Raises :class:`SandboxError`."""
    if scratch.exists():
        remove_tree(scratch)
    scratch.mkdir(parents=True)
    async with backend.open(task, env, scratch / "sandbox", labels=labels) as sandbox:
        await apply_patch(task, backend, sandbox, env, patch, scratch)
        await sandbox.get(env.workdir, scratch / "repo")
    return scratch / "repo"


async def reference_patch(task: Task, backend: Backend, env: PreparedEnvironment, scratch: Path,
                          labels: dict[str, str] | None = None) -> str | None:
    """The reference solution as a diff: ``solution/solve.sh`` run in a fresh sandbox (a multi-step
    task: each step's solution, :func:`lancebench.task.steps.step_solution_dir`, in step order,
    each at ``/solution``, as Harbor's oracle runs them), then captured like an agent's work.
    Cached per task digest and number of steps for the life of the process. None when the task
    (or one of its steps) has no solution. Raises :class:`SandboxError` when a solution fails."""
    steps = task.config.steps or []
    solutions = [step_solution_dir(task, s) for s in steps] if steps else [task.paths.solution]
    if any(d is None or not (d / "solve.sh").is_file() for d in solutions):
        return None
    key = f"{task.digest}:{len(steps)}"
    lock = _reference_locks.setdefault(key, asyncio.Lock())
    async with lock:
        if key in _reference_cache:
            return _reference_cache[key]
        if scratch.exists():
            remove_tree(scratch)
        scratch.mkdir(parents=True)
        async with backend.open(task, env, scratch / "sandbox", labels=labels) as sandbox:
            for solution in solutions:
                await _solve(task, sandbox, env, solution)
            patch = await backend.capture(task, env, sandbox, scratch / "capture")
        _reference_cache[key] = patch
        return patch


async def _solve(task: Task, sandbox: Sandbox, env: PreparedEnvironment, solution: Path | None) -> None:
    """Run ``solution/solve.sh`` (copied to ``/solution``, replacing an earlier step's) in ``sandbox``
    with ``[solution].env``. Raises :class:`SandboxError` when it fails."""
    assert solution is not None
    await sandbox.exec(["rm", "-rf", "/solution"])
    await sandbox.put(solution, "/solution")
    res = await sandbox.exec(["bash", "/solution/solve.sh"], cwd=env.workdir, env=phase_env(task, "solution"),
                             timeout=task.config.agent.timeout_sec)
    if not res.ok:
        raise SandboxError(f"{task.name}: {solution.relative_to(task.paths.root)}/solve.sh failed "
                           f"(exit {res.exit_code}): {res.output[-800:]}")


async def fingerprint(sandbox: Sandbox, workdir: str, exclude: str | list[str], dest: Path) -> list[str]:
    """A listing of the repository at ``workdir`` (type, mode, size, link target, sha256 of every
    file; a folder's size is left out, as it depends on the file system's bookkeeping, not on what
    the folder holds), ``.git`` and the folder(s) ``exclude`` (relative to the workdir) left out, copied to the
    host file ``dest`` at once (so nothing run later in the sandbox can alter it). Returns its
    lines. Raises :class:`SandboxError` when it cannot be computed."""
    inside = f"/tmp/lancebench/fingerprint-{dest.name}"
    # the system's own tools, never ones the repository or a script put earlier on the PATH
    first, *more = [exclude] if isinstance(exclude, str) else exclude
    res = await sandbox.exec(["/bin/bash", "-c", FINGERPRINT, "fingerprint", workdir, first, inside, *more],
                             timeout=300, env={"PATH": "/usr/bin:/bin"})
    if not res.ok:
        raise SandboxError(f"repository fingerprint failed (exit {res.exit_code}): {res.output[-800:]}")
    await sandbox.get(inside, dest)
    return dest.read_text(errors="replace").splitlines()


def changed_paths(before: list[str], after: list[str], limit: int = 10) -> list[str]:
    """Lines of one fingerprint missing from the other (what changed), at most ``limit``."""
    a, b = set(before), set(after)
    return sorted((a - b) | (b - a))[:limit]

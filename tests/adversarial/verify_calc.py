"""The ``calc`` fixture graded by ``verify_patch`` on either backend, for the attack rounds that
hand a patch straight to grading (rounds 10 and 11)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest

from lancebench.backends.docker import DockerBackend
from lancebench.backends.local import LocalBackend
from lancebench.grading.verifier import grade_once, verify_patch
from lancebench.results.paths import TrialPaths
from lancebench.task.load import load_task

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tasks"


def patch_of(repo: Path, files: dict[str, str], where: Path) -> str:
    """The ``git diff`` that turns ``repo``'s files into ``files`` (path -> new text)."""
    work = where / "diff-repo"
    shutil.copytree(repo, work)
    run = lambda *a: subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *a], cwd=work,  # noqa: E731
                                    check=True, capture_output=True, text=True).stdout
    run("init", "-q")
    run("add", "-A")
    run("commit", "-q", "-m", "base")
    for name, text in files.items():
        (work / name).write_text(text)
    return run("diff", "--binary")


def calc_on(backend: str, shared: Path, monkeypatch) -> tuple:
    """(the ``calc`` task, a backend of kind ``backend``), the local one's cache under ``shared``."""
    if backend == "local" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    if backend == "local":
        monkeypatch.setenv("LANCEBENCH_HOME", str(shared / "home"))
    return load_task(FIXTURES / "calc"), LocalBackend() if backend == "local" else DockerBackend()


def verify(task, box, backend: str, patch: str, shared: Path):
    """``verify_patch`` of ``patch`` on ``calc`` (on docker once the guard's mounts are known, as
    in a job after its first grading)."""
    async def go():
        env = await box.prepare(task)
        if backend == "docker" and not await box.guard_mounts(task, env):
            await grade_once(task, box, env, "", shared / "first", shared / "first-out")
            assert await box.guard_mounts(task, env)
        return await verify_patch(task, box, env, patch, scratch=shared / "scratch",
                                  paths=TrialPaths(root=shared / "trial"))

    return asyncio.run(go())

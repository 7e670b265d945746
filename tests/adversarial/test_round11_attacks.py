"""Attack pass round 11 (docs/security.md, "Attack pass round 11"): round 10's ordering of the
verifier runs of one graded work (``grading/verifier.py``: ``_beside_canary``,
``_grade_once(after=...)``, ``Grading.beside``), round 9's per-sandbox uid lease
(``sandbox/uid_lease.py``) and the model gateway's usage records (``llm/gateway_hooks.py``; its
test is ``tests/llm/test_gateway_cut_calls.py::test_a_request_cannot_turn_off_its_own_usage_record``,
beside the gateway that module starts once).

1. ``round11_compare_runs_by_page_cache``: the runs no longer run code at once, but they read the
   same files (the host's ``/usr`` on the local backend, the image's layers on docker), and a page
   one run read stays in the host's page cache after it, where the next run can ask for it
   without reading it (``preadv2(RWF_NOWAIT)``). The graded run leaves a few pages per hidden test
   body it holds; the canary run finds the pages of the real tests and not of the canaries, and
   forges exactly around them.
"""

from __future__ import annotations

import asyncio
import secrets
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
AGENTS = Path(__file__).resolve().parent / "agents"


def _patch_of(repo: Path, files: dict[str, str], where: Path) -> str:
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


def _calc_on(backend: str, shared: Path, monkeypatch) -> tuple:
    """(the ``calc`` task, a backend of kind ``backend``), the local one's cache under ``shared``."""
    if backend == "local" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    if backend == "local":
        monkeypatch.setenv("LANCEBENCH_HOME", str(shared / "home"))
    return load_task(FIXTURES / "calc"), LocalBackend() if backend == "local" else DockerBackend()


def _verify(task, box, backend: str, patch: str, shared: Path):
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


def test_the_canary_run_cannot_read_the_graded_runs_tests_from_the_page_cache(shared: Path, backend: str,
                                                                              monkeypatch):
    task, box = _calc_on(backend, shared, monkeypatch)
    attack = (AGENTS / "round11_compare_runs_by_page_cache.py").read_text().replace("@SALT@", secrets.token_hex(8))
    patch = _patch_of(task.paths.root / "environment" / "repo", {"calc.py": attack}, shared)
    assert "return a - b" in patch  # calc.add stays broken
    verdict = _verify(task, box, backend, patch, shared)
    assert verdict.status == "unresolved", (verdict.status, verdict.reason)
    assert "forged verdict (canary)" in (verdict.reason or ""), verdict.reason

"""Fixtures of the adversarial suite: every attack runs through the real CLI on both backends
(local bubblewrap, and docker where an engine answers), with script agents from ``agents/``."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))  # lbtest: the CLI helpers

from docker_support import docker_skip_reason  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))  # the scripted model server
from scripted_server import served  # noqa: E402,F401  (the fixture: the model gateway, one per worker)

AGENTS = Path(__file__).resolve().parent / "agents"


@pytest.fixture(params=["local", "docker"])
def backend(request) -> str:
    """The backend an attack runs on; docker is skipped (with the reason) without an engine."""
    if request.param == "docker":
        reason = docker_skip_reason()
        if reason:
            pytest.skip(reason)
    return request.param


@pytest.fixture
def shared() -> Path:
    """A scratch folder the sandbox uid can traverse (derived task folders live here)."""
    base = Path(tempfile.mkdtemp(prefix="lancebench-adv-", dir="/var/tmp"))
    os.chmod(base, 0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def jobs(tmp_path) -> Path:
    d = tmp_path / "jobs"
    d.mkdir()
    return d


def attacker(name: str) -> str:
    """``script:PATH`` of an attacking agent in ``agents/``."""
    path = AGENTS / name
    assert path.is_file(), path
    return f"script:{path}"

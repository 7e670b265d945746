"""Fixtures of the core adversarial suite (real bubblewrap, real jobs through the CLI)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest


@pytest.fixture
def shared(tmp_path_factory) -> Path:
    """A scratch folder the unprivileged sandbox user can traverse (pytest's own tmp folders are
    0700 under /tmp/pytest-of-root, which the sandbox uid cannot enter): derived task folders and
    host files that agents try to reach live here."""
    base = Path(tempfile.mkdtemp(prefix="lancebench-core-", dir="/var/tmp"))
    os.chmod(base, 0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def jobs(tmp_path) -> Path:
    """A jobs folder (-o) for one test."""
    d = tmp_path / "jobs"
    d.mkdir()
    return d

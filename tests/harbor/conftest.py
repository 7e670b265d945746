"""Shared fixtures of the Harbor tests."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest


@pytest.fixture
def shared() -> Path:
    """A folder the unprivileged sandbox user can traverse (pytest's tmp folders are 0700)."""
    base = Path(tempfile.mkdtemp(prefix="lancebench-harbor-", dir="/var/tmp"))
    os.chmod(base, 0o755)
    yield base
    import shutil
    shutil.rmtree(base, ignore_errors=True)

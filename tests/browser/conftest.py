"""Fixtures of the browser suite (real bubblewrap, real Chromium, jobs through the CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def jobs(tmp_path) -> Path:
    """A jobs folder (-o) for one test."""
    d = tmp_path / "jobs"
    d.mkdir()
    return d

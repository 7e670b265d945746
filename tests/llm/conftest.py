"""Fixtures of the LLM tests: the scripted OpenAI-compatible server (real HTTP on 127.0.0.1)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from scripted_server import GATEWAY_MODEL, ScriptedServer, scripted, served  # noqa: F401  (the fixtures)


@pytest.fixture
def sandbox_dir() -> Iterator[Path]:
    """A scratch folder the sandbox user can reach (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="lancebench-llm-test-"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)

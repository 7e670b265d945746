"""Fixtures of the judging tests: the scripted OpenAI-compatible server (real HTTP on 127.0.0.1,
from tests/llm) and a small repository snapshot on the host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "llm"))
from scripted_server import scripted  # noqa: E402,F401  (the fixture)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A tiny patched repository: a module, a style guide, a test file, a secret outside it and a
    symbolic link pointing at that secret."""
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("".join(f"def f{i}():\n    return {i}\n" for i in range(150)))
    (root / "CONTRIBUTING.md").write_text("Use four spaces. Document public functions.\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (tmp_path / "secret.txt").write_text("TOP-SECRET\n")
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    (root / "pkg" / "up").symlink_to(tmp_path)
    return root

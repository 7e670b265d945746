"""The suite's own scheduling (tests/conftest.py): the files it starts first exist, so a renamed
slow file is not silently left to start last."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_file_started_first_exists_once():
    spec = importlib.util.spec_from_file_location("suite_conftest", ROOT / "tests" / "conftest.py")
    conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conftest)
    first = conftest.LONGEST_FIRST
    assert [p for p in first if not (ROOT / p).is_file()] == []
    assert len(set(first)) == len(first)

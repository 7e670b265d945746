"""Fixtures of the SWE-Lancer tests: the real task table (``../shared/data/swelancer`` beside the
repository) and an independent reading of it (plain ``csv`` + ``ast``, none of the adapter's code),
so that counts and expectations are checked against the data, not against the adapter itself."""

from __future__ import annotations

import ast
import csv
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TABLE = REPO.parent / "shared" / "data" / "swelancer" / "all_swelancer_tasks.csv"


@dataclass(frozen=True)
class RawManager:
    """A manager row as the test reads it: ids counted from the raw proposals text."""

    question_id: str
    price: float
    text_ids: tuple[int, ...]
    correct: int
    approval_url: str | None
    explanation: str | None


def _raw_rows() -> list[dict[str, str]]:
    csv.field_size_limit(sys.maxsize)
    with TABLE.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="session")
def table_path() -> Path:
    assert TABLE.is_file(), f"the SWE-Lancer table is expected at {TABLE}"
    return TABLE


@pytest.fixture(scope="session")
def raw_rows(table_path) -> list[dict[str, str]]:
    return _raw_rows()


@pytest.fixture(scope="session")
def raw_managers(raw_rows) -> dict[str, RawManager]:
    out = {}
    for r in raw_rows:
        if r["variant"] != "swe_manager":
            continue
        game = ast.literal_eval(r["manager_data"])["game"]
        ids = tuple(int(x) for x in re.findall(r"(?:^|\\n)Proposal: (\d+):\\n", r["proposals"]))
        cp = game["correct_proposal"]
        out[r["question_id"]] = RawManager(r["question_id"], float(r["price"]), ids, cp["id"],
                                           cp.get("approval_comment_url"), cp.get("explanation"))
    return out


@pytest.fixture(scope="session")
def manager_tasks(table_path):
    """The 265 manager tasks, materialised by the adapter and loaded through the registry."""
    from lancebench.datasets.registry import load_dataset
    tasks, errors = load_dataset("swelancer:manager", source=table_path)
    assert errors == []
    return {t.name: t for t in tasks}

"""Fixtures of the SWE-Lancer tests: the real task table, fetched the way the product fetches it
(``lancebench run -d swelancer`` without ``--source``: downloaded once into lancebench's cache and
checked against its sha256; nothing outside the repository is read), and an independent reading
of it (plain ``csv`` + ``ast``, none of the adapter's code), so that counts and expectations are
checked against the data, not against the adapter itself."""

from __future__ import annotations

import ast
import csv
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class RawManager:
    """A manager row as the test reads it: ids counted from the raw proposals text."""

    question_id: str
    price: float
    text_ids: tuple[int, ...]
    correct: int
    approval_url: str | None
    explanation: str | None


def _raw_rows(table: Path) -> list[dict[str, str]]:
    csv.field_size_limit(sys.maxsize)
    with table.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="session")
def table_path() -> Path:
    """The table as ``-d swelancer`` gets it without ``--source`` (cached after the first download;
    ``LANCEBENCH_SWELANCER_URL`` may point at a mirror)."""
    from lancebench.datasets.swelancer.source import locate_table
    path, _ = locate_table(None)
    return path


@pytest.fixture(scope="session")
def raw_rows(table_path) -> list[dict[str, str]]:
    return _raw_rows(table_path)


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

"""The generated task.toml of SWE-Lancer rows holds every value exactly, whatever characters the
table brings (quotes, backslashes, tabs, DEL, non-ASCII): both writers go through tomli-w.
Regression: the IC writer used ``json.dumps``, which leaves DEL raw (invalid TOML)."""

from __future__ import annotations

import tomllib

import pytest

from lancebench.datasets.swelancer.adapter import task_toml as manager_toml
from lancebench.datasets.swelancer.ic_files import task_toml as ic_toml
from lancebench.datasets.swelancer.table import Proposal, SwelancerRow

ODD = ['plain-1', 'quote " and \\ backslash', "tab\there", "del\x7fhere", "café ✓"]


@pytest.mark.parametrize("text", ODD)
def test_manager_task_toml_keeps_every_value(text):
    row = SwelancerRow(question_id=text, variant="swe_manager", price=250.0, title="t", description="d", set=text,
                       cwd="", line=2, manager_commit=text, proposals=(Proposal(0, "a"), Proposal(3, "b")),
                       correct_id=3)
    doc = tomllib.loads(manager_toml(row, (f"/src/{text}", "deadbeef")))
    assert doc["metadata"]["question_id"] == text and doc["metadata"]["manager_commit"] == text
    assert doc["lancebench"]["choice"]["proposal_ids"] == [0, 3]
    assert doc["lancebench"]["local"]["checkout"] == {"repo": f"/src/{text}", "rev": "deadbeef"}
    assert doc["lancebench"]["price_usd"] == 250.0 and doc["lancebench"]["kind"] == "choice"


@pytest.mark.parametrize("text", ODD)
def test_ic_task_toml_keeps_every_value(text):
    row = SwelancerRow(question_id=text, variant="ic_swe", price=1000.5, title="t", description="d", set="diamond",
                       cwd="", line=3, acceptable_folders=("src/a", text))
    doc = tomllib.loads(ic_toml(row, f"img:{text}", "sha256:1"))
    assert doc["metadata"]["question_id"] == text and doc["metadata"]["image"] == f"img:{text}"
    assert doc["metadata"]["acceptable_folders"] == ["src/a", text]
    assert doc["lancebench"]["price_usd"] == 1000.5 and doc["lancebench"]["limits"] == {"pids": 4096}

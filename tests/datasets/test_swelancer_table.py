"""The SWE-Lancer adapter on the real task table: counts, prices, right ids, text decoding,
the task folders it writes, and that nothing of the right answer reaches the agent."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from lancebench.datasets.registry import load_dataset
from lancebench.datasets.swelancer import adapter as swelancer
from lancebench.datasets.swelancer.prompt import FIXED_MARKERS, manager_instruction
from lancebench.datasets.swelancer.table import IC, MANAGER, decode_text, read_table, split_proposals

GARBLED = ("\u00e2\u0080\u0099", "\u00e2\u0080", "\u00c3\u00a9", "\u00c3\u00b6",
           "\u00f0\u009f")  # what unicode_escape makes of UTF-8


def test_table_counts_and_prices(table_path):
    rows = read_table(table_path)
    managers = [r for r in rows if r.variant == MANAGER]
    ics = [r for r in rows if r.variant == IC]
    assert (len(managers), sum(r.price for r in managers)) == (265, 264_500.0)
    assert (len(ics), sum(r.price for r in ics)) == (198, 189_300.0)
    assert len(rows) == 463


def test_right_ids_are_proposal_ids_and_ids_come_from_the_table(table_path, raw_managers):
    rows = {r.question_id: r for r in read_table(table_path) if r.variant == MANAGER}
    assert rows.keys() == raw_managers.keys()
    for qid, row in rows.items():
        raw = raw_managers[qid]
        assert row.correct_id in row.proposal_ids
        assert row.correct_id == raw.correct
        assert tuple(row.proposal_ids) == raw.text_ids, qid
    # ids are not always 0..n-1: the README's example skips 3
    assert rows["29115-manager-0"].proposal_ids == [0, 1, 2, 4, 5, 6]
    assert sum(r.proposal_ids != list(range(len(r.proposals))) for r in rows.values()) == 6


def test_text_is_decoded_without_garbling_non_ascii(table_path, raw_rows):
    rows = read_table(table_path)
    texts = [t for r in rows for t in (r.title, r.description, r.proposals_text)]
    assert not [t for t in texts if any(g in t for g in GARBLED)]
    assert sum("\n" in r.description for r in rows) == len(rows)
    # every non-ASCII character of the raw cells survives, in order
    by_id = {r.question_id: r for r in rows}
    for raw in raw_rows:
        row = by_id[raw["question_id"]]
        for field in ("title", "description", "proposals"):
            decoded = {"proposals": row.proposals_text}.get(field, getattr(row, field))
            assert [c for c in raw[field] if ord(c) > 127] == [c for c in decoded if ord(c) > 127]
    first = by_id["15193-manager-0"].description
    assert "If you haven\u2019t already" in first and "\u00e2" not in first


def test_decode_text_touches_only_backslash_n():
    raw = "It\u2019s caf\u00e9 \U0001f600\\nregex: /\\d+\\.\\w/ and \\u063a stays\\n"
    assert decode_text(raw) == "It\u2019s caf\u00e9 \U0001f600\nregex: /\\d+\\.\\w/ and \\u063a stays\n"
    # unicode_escape would have garbled it: the test's premise holds
    garbled = "It\u2019s\\n".encode("utf-8").decode("unicode_escape")
    assert garbled == "It\u00e2\u0080\u0099s\n"


def test_split_proposals_keeps_gapped_ids():
    text = "Proposal: 0:\n\nfirst\n\n---\n\nProposal: 4:\n\nsecond\nProposal: 4 is mentioned inline\n"
    assert [(p.id, p.text.splitlines()[0]) for p in split_proposals(text)] == [(0, "first"), (4, "second")]


def test_summary_counts_without_writing_tasks(table_path, tmp_path, monkeypatch):
    monkeypatch.setenv("LANCEBENCH_HOME", str(tmp_path))
    info = swelancer.summary(table_path)
    assert info["tasks"] == 463
    assert info["by_variant"][MANAGER] == {"tasks": 265, "price_usd": 264_500.0, "runnable": 265}
    assert (info["by_variant"][IC]["tasks"], info["by_variant"][IC]["price_usd"]) == (198, 189_300.0)
    assert info["by_variant"][IC]["runnable"] == 0  # no official image is in this engine (nor any engine, maybe)
    assert info["by_kind"] == {"choice": 265, "code": 198}
    assert info["total_price_usd"] == 453_800.0
    assert not (tmp_path / "datasets").exists()


def test_datasets_command_counts_swelancer(table_path):
    from typer.testing import CliRunner

    from lancebench.cli import app
    res = CliRunner().invoke(app, ["datasets", "--json", "--source", str(table_path)])
    assert res.exit_code == 0, res.output
    row = next(r for r in json.loads(res.stdout) if r["name"] == "swelancer")
    assert row["tasks"] == 463 and row["total_price_usd"] == 453_800.0


def test_manager_tasks_load_with_prices_kind_split_and_taxonomy(manager_tasks, raw_managers):
    assert len(manager_tasks) == 265
    assert sum(t.price_usd for t in manager_tasks.values()) == 264_500.0
    for name, task in manager_tasks.items():
        raw = raw_managers[name]
        assert task.kind == "choice" and task.split == "public" and task.dataset == "swelancer"
        assert task.taxonomy["variant"] == MANAGER
        assert task.lb.choice.proposal_ids == list(raw.text_ids)
        assert json.loads(task.paths.choice_json.read_text()) == {"correct_proposal_id": raw.correct}
        assert task.config.metadata["question_id"] == name
        assert task.price_usd == raw.price


def test_no_marker_of_the_right_answer_in_any_instruction(manager_tasks, raw_managers):
    urls = 0
    for name, task in manager_tasks.items():
        raw = raw_managers[name]
        text = task.instruction
        for marker in (raw.approval_url, raw.explanation, *FIXED_MARKERS):
            if marker:
                assert marker not in text, (name, marker)
        if raw.approval_url:
            urls += 1
            comment = raw.approval_url.rsplit("#issuecomment-", 1)[-1]
            assert f"issuecomment-{comment}" not in text, name
        for p in raw.text_ids:
            assert f"=== Proposal {p} ===" in text
        assert "selected_proposal_id" in text and "answer.json" in text
    assert urls == 263
    # the one task whose proposals quote the approval URL keeps a link to the issue itself
    assert "https://github.com/Expensify/App/issues/24263)" in manager_tasks["24263-manager-0"].instruction


def test_task_folder_holds_only_what_the_harness_needs(manager_tasks):
    task = manager_tasks["29115-manager-0"]
    files = sorted(p.relative_to(task.paths.root).as_posix() for p in task.paths.root.rglob("*") if p.is_file())
    assert files == ["instruction.md", "solution/solve.sh", "task.toml", "tests/choice.json"]
    assert "manager_commit" in task.paths.task_toml.read_text()  # harness-side metadata


def test_solve_sh_writes_the_right_answer(manager_tasks, tmp_path):
    task = manager_tasks["29115-manager-0"]
    subprocess.run(["bash", str(task.paths.solve_sh)], cwd=tmp_path, check=True)
    answer = json.loads((tmp_path / "answer.json").read_text())
    assert answer == {"selected_proposal_id": json.loads(task.paths.choice_json.read_text())["correct_proposal_id"]}


def test_task_folders_are_reused(table_path, manager_tasks):
    folders = swelancer.task_folders("manager", table_path)
    assert len(folders) == 265
    stamp = [(f / "instruction.md").stat().st_mtime_ns for f in folders]
    again = swelancer.task_folders("manager", table_path)
    assert again == folders and [(f / "instruction.md").stat().st_mtime_ns for f in again] == stamp
    assert all(not p.name.endswith(".tmp") for p in folders[0].parent.iterdir())


def test_a_folder_is_written_atomically(table_path, tmp_path):
    row = next(r for r in read_table(table_path) if r.question_id == "15193-manager-0")
    dest = swelancer.write_manager_task(row, tmp_path / "t" / row.question_id)
    assert (dest / "instruction.md").read_text() == manager_instruction(row)
    assert [p.name for p in dest.parent.iterdir()] == [row.question_id]
    assert os.access(dest / "solution" / "solve.sh", os.X_OK)


def test_a_stale_folder_is_replaced_whole(table_path, tmp_path):
    row = next(r for r in read_table(table_path) if r.question_id == "15193-manager-0")
    dest = swelancer.write_manager_task(row, tmp_path / "t" / row.question_id)
    (dest / "instruction.md").write_text("an older wording")
    (dest / "leftover.txt").write_text("x")
    assert swelancer.write_manager_task(row, dest) == dest
    assert (dest / "instruction.md").read_text() == manager_instruction(row)
    assert not (dest / "leftover.txt").exists()
    assert [p.name for p in dest.parent.iterdir()] == [row.question_id]


def test_choice_and_generic_filters(table_path, manager_tasks):
    tasks, errors = load_dataset("swelancer:choice", source=table_path)
    assert len(tasks) == 265 and not errors
    assert load_dataset("swelancer:private", source=table_path) == ([], [])


def test_unknown_filter_is_refused_before_reading(tmp_path):
    from lancebench.errors import DatasetError
    with pytest.raises(DatasetError, match="no filter 'bogus'.*manager, ic"):
        swelancer.task_folders("bogus", tmp_path / "missing.csv")


def test_run_rejects_missing_table_with_the_fix(tmp_path):
    from typer.testing import CliRunner

    from lancebench.cli import app
    res = CliRunner().invoke(app, ["run", "-d", "swelancer:manager", "--source", str(tmp_path / "nope.csv"),
                                   "-a", "random", "-o", str(tmp_path / "jobs")])
    assert res.exit_code == 2
    assert "nope.csv" in res.output and "--source" in res.output

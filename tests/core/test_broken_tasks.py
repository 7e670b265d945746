"""Broken task folders give errors that name the file and the key, from `lancebench tasks
validate` (non-zero exit) and from `lancebench run` (the other tasks still run and are recorded;
the exit code is non-zero)."""

from __future__ import annotations

import json

import pytest
from lbtest import CORE_TASKS, TASKS, derive_task, lb, results

TALLY = CORE_TASKS / "tally"
PICK = TASKS / "pick"

# name -> (file that must be named, key or phrase that must be named)
EXPECTED = {
    "bad_toml": ("bad_toml/task.toml", "invalid TOML"),
    "unknown_key": ("unknown_key/task.toml", "lancebench.colour"),
    "unknown_nested_key": ("unknown_nested_key/task.toml", "lancebench.local.setup_script"),
    "bad_value": ("bad_value/task.toml", "lancebench.kind"),
    "no_instruction": ("no_instruction/instruction.md", "missing"),
    "no_test_sh": ("no_test_sh/tests/test.sh", "missing"),
    "choice_bad_id": ("choice_bad_id/tests/choice.json", "correct_proposal_id"),
    "no_task_toml": ("no_task_toml/task.toml", "missing"),
}


@pytest.fixture
def task_tree(shared):
    root = shared / "tasks"
    root.mkdir()
    derive_task(TALLY, root / "good")
    derive_task(PICK, root / "good_choice")
    derive_task(TALLY, root / "bad_toml", toml={r"^\[lancebench\]$": "[lancebench\nprice_usd = = 3"})
    derive_task(TALLY, root / "unknown_key", toml={r"^\[lancebench\]$": '[lancebench]\ncolour = "blue"'})
    derive_task(TALLY, root / "unknown_nested_key",
                toml={r'^setup = "setup.sh"$': 'setup = "setup.sh"\nsetup_script = "x.sh"'})
    derive_task(TALLY, root / "bad_value", toml={r'^kind = "code"$': 'kind = "essay"'})
    derive_task(TALLY, root / "no_instruction", files={"instruction.md": None})
    derive_task(TALLY, root / "no_test_sh", files={"tests/test.sh": None})
    derive_task(PICK, root / "choice_bad_id", files={"tests/choice.json": '{"correct_proposal_id": 7}'})
    derive_task(TALLY, root / "no_task_toml", files={"task.toml": None})
    return root


def _check_messages(text: str) -> None:
    lines = text.splitlines()
    for _name, (file, what) in EXPECTED.items():
        hits = [line for line in lines if file in line]
        assert hits, f"no error names {file}:\n{text}"
        assert any(what in line for line in hits), f"{file}: {what!r} not said in {hits}"


def test_validate_reports_every_problem_and_fails(task_tree):
    proc = lb("tasks", "validate", task_tree, check=False)
    text = proc.stdout + proc.stderr
    _check_messages(text)
    assert "ok good " in text and "ok good_choice " in text
    # The unknown key's error lists the keys allowed there.
    line = next(line for line in text.splitlines() if "lancebench.colour" in line)
    assert "price_usd" in line and "kind" in line
    nested = next(line for line in text.splitlines() if "lancebench.local.setup_script" in line)
    assert "setup" in nested and "path" in nested


def test_validate_one_good_task_passes():
    proc = lb("tasks", "validate", TALLY, check=True)
    assert "1 valid, 0 problem(s)" in proc.stdout


@pytest.mark.slow
def test_run_records_good_tasks_and_reports_broken_ones(task_tree, jobs):
    proc = lb("run", "-p", task_tree, "-a", "oracle", "-o", jobs, "--job-name", "j", check=False)
    assert proc.returncode == 5, proc.returncode  # finished, some tasks left out (docs/cli.md)
    _check_messages(proc.stdout + proc.stderr)
    job = jobs / "j"
    rs = {r["task"]: r["status"] for r in results(job)}
    assert rs == {"good": "resolved", "good_choice": "resolved"}
    recorded = json.loads((job / "task_errors.json").read_text())
    for _name, (file, _) in EXPECTED.items():
        assert any(e["path"].endswith(file) for e in recorded), (file, recorded)
    keys = {e["key"] for e in recorded}
    assert {"lancebench.colour", "lancebench.local.setup_script", "lancebench.kind", "correct_proposal_id"} <= keys


@pytest.mark.slow
def test_run_with_a_task_filter_still_reports_the_matching_broken_task(shared, jobs):
    """`-t no_test_sh*` selects a task whose tests/test.sh is missing: its error must be reported
    (non-zero exit), not filtered out because the error's path is .../tests/test.sh."""
    root = shared / "tasks"
    root.mkdir()
    derive_task(TALLY, root / "good")
    derive_task(TALLY, root / "no_test_sh", files={"tests/test.sh": None})
    proc = lb("run", "-p", root, "-t", "no_test_sh*", "-t", "good", "-a", "nop", "-o", jobs)
    assert "no_test_sh/tests/test.sh" in proc.stdout + proc.stderr
    assert proc.returncode == 5


def test_run_with_only_broken_tasks_fails_cleanly(shared, jobs):
    root = shared / "tasks"
    root.mkdir()
    derive_task(TALLY, root / "bad_value", toml={r'^kind = "code"$': 'kind = "essay"'})
    proc = lb("run", "-p", root, "-a", "nop", "-o", jobs, check=False)
    assert proc.returncode == 2
    assert "bad_value/task.toml" in proc.stderr and "lancebench.kind" in proc.stderr
    assert "Traceback" not in proc.stderr

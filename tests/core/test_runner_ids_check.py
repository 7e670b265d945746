"""`lancebench check` on a task whose verifier writes each common runner's JUnit report (issue 22):
the F2P/P2P ids, written as each runner's users write them, resolve with the oracle and fail with
nop (before, 17 of the 21 ids were "missing"; a misspelt id's suggestions are tested in
tests/grading/test_junit_runners.py)."""

from __future__ import annotations

import json

from lbtest import TASKS, lb


def test_every_runners_ids_pass_check(tmp_path):
    proc = lb("check", "-p", TASKS / "runner-ids", "-k", "1", "-o", tmp_path / "jobs", check=True)
    task = json.loads((tmp_path / "jobs" / "_check" / "runner-ids.json").read_text())["tasks"][0]
    assert task["oracle"] == ["resolved"] and task["nop"] == "unresolved", proc.stdout
    assert task["base"]["tests::adds_numbers"] == "failed" and task["base"]["TestAdd"] == "passed"

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


def test_swe_bench_predictions_for_it_grade_by_the_runners_ids(tmp_path):
    """Issue 22, item 4: SWE-bench-style predictions grade with `lancebench grade` by the same
    ids: the right patch resolves, a wrong one fails the runners' F2P tests and keeps their P2P."""
    fix = "diff --git a/answer.txt b/answer.txt\n--- a/answer.txt\n+++ b/answer.txt\n@@ -1 +1 @@\n-6\n+5\n"
    wrong = fix.replace("+5", "+7")
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"instance_id": "runner-ids", "model_name_or_path": name,
                                         "model_patch": patch}) + "\n"
                             for name, patch in (("right", fix), ("wrong", wrong))))
    lb("grade", "-p", TASKS / "runner-ids", "--predictions", preds, "-o", tmp_path / "jobs", check=True)
    by_model = {}
    for result in (tmp_path / "jobs").glob("*/trials/*/result.json"):
        r = json.loads(result.read_text())
        by_model[r["model"]] = r
    assert by_model["right"]["status"] == "resolved", by_model["right"]
    wrong_r = by_model["wrong"]
    assert wrong_r["status"] == "unresolved" and wrong_r["rewards"]["f2p"] == 0.0 and wrong_r["rewards"]["p2p"] == 1.0
    assert wrong_r["tests"]["tests::adds_numbers"] == "failed" and wrong_r["tests"]["TestAdd"] == "passed"

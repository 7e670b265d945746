"""`lancebench grade -p TASKS --predictions FILE` with SWE-bench's predictions format (a JSON list
or JSONL of {instance_id, model_name_or_path, model_patch}): patches are graded like agent trials."""

from __future__ import annotations

import json

import pytest
from lbtest import CALC_FIX, TASKS, lb, results

pytestmark = pytest.mark.slow

CALC = TASKS / "calc"

PROTECTED_TOO = CALC_FIX + """diff --git a/tests/test_calc.py b/tests/test_calc.py
new file mode 100644
--- /dev/null
+++ b/tests/test_calc.py
@@ -0,0 +1,2 @@
+def test_add():
+    assert True
diff --git a/conftest.py b/conftest.py
new file mode 100644
--- /dev/null
+++ b/conftest.py
@@ -0,0 +1 @@
+import os
"""

GARBAGE = """diff --git a/calc.py b/calc.py
--- a/calc.py
+++ b/calc.py
@@ -10,3 +10,3 @@
 this context
-does not exist
+anywhere
"""


def pred(model: str, patch: str | None, instance: str = "calc") -> dict:
    return {"instance_id": instance, "model_name_or_path": model, "model_patch": patch}


def grade(tmp_path, jobs, records, *, jsonl: bool, name: str = "preds", quiet: bool = False) -> str:
    """Grade ``records``; returns the command's standard error."""
    path = tmp_path / (name + (".jsonl" if jsonl else ".json"))
    text = "".join(json.dumps(r) + "\n" for r in records) if jsonl else json.dumps(records)
    path.write_text(text)
    return lb("grade", "-p", CALC, "-p", TASKS / "pick", "--predictions", path, "-o", jobs, *(["-q"] if quiet else []),
              check=True).stderr


def by_model(jobs) -> dict[str, dict]:
    out = {}
    for job in jobs.iterdir():
        for r in results(job):
            out[r["model"]] = r
    return out


@pytest.mark.parametrize("jsonl", [False, True], ids=["json", "jsonl"])
def test_grade_predictions(tmp_path, jobs, jsonl):
    records = [pred("good", CALC_FIX), pred("empty", ""), pred("none", None), pred("protected", PROTECTED_TOO)]
    said = grade(tmp_path, jobs, records, jsonl=jsonl, quiet=jsonl)  # -q: no line per trial
    trial_lines = [line for line in said.splitlines() if line.strip().startswith("calc #0")]
    assert (trial_lines == []) == jsonl, said
    rs = by_model(jobs)
    assert set(rs) == {"good", "empty", "none", "protected"}
    good = rs["good"]
    assert good["status"] == "resolved" and good["patch_applied"] is True and good["dropped_paths"] == []
    assert good["rewards"] == {"reward": 1.0, "f2p": 1.0, "p2p": 1.0}
    for m in ("empty", "none"):
        assert rs[m]["status"] == "unresolved" and rs[m]["patch_applied"] is None, rs[m]
    protected = rs["protected"]
    assert protected["status"] == "resolved", protected["reason"]
    assert protected["dropped_paths"] == ["conftest.py", "tests/test_calc.py"]


def test_garbage_patch_is_unresolved_and_recorded_as_not_applied(tmp_path, jobs):
    grade(tmp_path, jobs, [pred("garbage", GARBAGE)], jsonl=False)
    garbage = by_model(jobs)["garbage"]
    assert garbage["status"] == "unresolved"
    # SWE-bench reports a patch that does not apply as such; so must we.
    assert garbage["patch_applied"] is False or "apply" in (garbage["reason"] or ""), \
        (garbage["patch_applied"], garbage["reason"])


def test_grade_a_single_prediction_jsonl(tmp_path, jobs):
    """A JSONL file with one line is also valid JSON (an object): it must still be read as one
    prediction, not as an object keyed by instance id."""
    grade(tmp_path, jobs, [pred("good", CALC_FIX)], jsonl=True)
    assert by_model(jobs)["good"]["status"] == "resolved"


def test_regrading_changed_predictions_grades_the_new_patch(tmp_path, jobs):
    """Grading a predictions file, then grading a changed file for the same model and instance,
    must grade the new patch (the trial's identity ignores the patch, so the old result is kept)."""
    grade(tmp_path, jobs, [pred("m", CALC_FIX)], jsonl=False, name="first")
    assert by_model(jobs)["m"]["status"] == "resolved"
    grade(tmp_path, jobs, [pred("m", "")], jsonl=False, name="second")
    rs = [r for job in jobs.iterdir() for r in results(job)]
    latest = max(rs, key=lambda r: r["finished_at"])
    assert latest["status"] == "unresolved", [(r["status"], r["finished_at"]) for r in rs]


def test_predictions_that_match_no_task_fail(tmp_path, jobs):
    """Every instance_id is unknown: nothing is graded, which must be an error (non-zero exit),
    not a warning and an empty job that exits 0."""
    path = tmp_path / "preds.json"
    path.write_text(json.dumps([pred("m", CALC_FIX, instance="django__django-11099")]))
    proc = lb("grade", "-p", CALC, "-p", TASKS / "pick", "--predictions", path, "-o", jobs)
    assert "django__django-11099" in proc.stdout + proc.stderr
    assert proc.returncode != 0, proc.stdout[-1500:]


def test_instance_ids_filter_and_report_lists_empty_patches_and_errors_apart(tmp_path, jobs):
    """SWE-bench's --instance_ids and its report's empty_patch_ids / error_ids: a prediction for an
    instance outside --instance-ids is not graded (here it names no task, which would otherwise be
    an error, exit 5), and each model's grade_report.json puts the empty patch and the patch that
    does not apply apart from resolved and unresolved ones."""
    records = [pred("good", CALC_FIX), pred("empty", "  \n"), pred("garbage", GARBAGE),
               pred("good", CALC_FIX, instance="django__django-11099")]
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    proc = lb("grade", "-p", CALC, "-p", TASKS / "pick", "--predictions", path, "-o", jobs,
              "--instance-ids", "calc", check=True)
    reports = {results(job)[0]["model"]: json.loads((job / "grade_report.json").read_text()) for job in jobs.iterdir()}
    assert set(reports) == {"good", "empty", "garbage"}
    expected = {"good": "resolved_ids", "empty": "empty_patch_ids", "garbage": "error_ids"}
    for model, key in expected.items():
        r = reports[model]
        for other in ("resolved_ids", "unresolved_ids", "empty_patch_ids", "error_ids"):
            assert r[other] == (["calc"] if other == key else []), (model, r)
        assert (r["total_instances"], r["submitted_instances"]) == (1, 1), r
        assert r["completed_instances"] == (1 if model == "good" else 0), r
    assert "empty: 1 submitted, 0 resolved, 0 unresolved, 1 empty patch (calc), 0 error(s)" in proc.stdout
    assert "django" not in proc.stdout + proc.stderr


def test_instance_ids_naming_no_task_is_an_error(tmp_path, jobs):
    path = tmp_path / "preds.jsonl"
    path.write_text(json.dumps(pred("good", CALC_FIX)) + "\n")
    proc = lb("grade", "-p", CALC, "--predictions", path, "-o", jobs, "--instance-ids", "calc,calx")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "--instance-ids: calx" in proc.stderr and "Traceback" not in proc.stderr
    assert not jobs.exists() or not any(jobs.iterdir())


def test_predictor_name_names_agent_and_model():
    from lancebench.commands.predictions import predictor_name
    assert predictor_name("mini-swe-agent", "openai/gpt-4o") == "mini-swe-agent@openai/gpt-4o"
    assert predictor_name("oracle", None) == "oracle"
    assert predictor_name("predictions", "good") == "good"  # regrading keeps the predictions' own name


def test_instance_ids_are_read_repeated_space_or_comma_separated():
    from lancebench.commands.grade_report import parse_instance_ids
    from lancebench.errors import ConfigError
    assert parse_instance_ids(None) is None
    assert parse_instance_ids(["calc pick", "a,b", "calc"]) == ["calc", "pick", "a", "b"]
    with pytest.raises(ConfigError, match="no id given"):
        parse_instance_ids([" , "])

"""Quality metrics by hand, and reading real job folders (errors name the file)."""

from __future__ import annotations

import json

import pytest

from lancebench.metrics import ResultsError, TrialTable, compute_metrics, load_job, load_jobs, summarize
from lancebench.results.models import JudgeRecord, QualityVerdict


def judged(tasteful: bool | None, minimality: float | None = None, rubric: float | None = None,
           bloat: float | None = None) -> dict:
    """The senior-grading fields of a trial: a taste judge (``ok`` with a minimality score, or
    ``failed:timeout`` when None), a rubric judge when given, and the verdict."""
    judges = {"taste": JudgeRecord(status="ok", scores={"minimality": minimality}) if minimality is not None
              else JudgeRecord(status="failed:timeout")}
    if rubric is not None:
        judges["rubric"] = JudgeRecord(status="ok", scores={"mean": rubric})
    return {"judges": judges, "quality": QualityVerdict(tasteful=tasteful, patch_bloat=bloat)}


def test_tasteful_solve_rate_and_scores_by_hand(trial):
    rs = [
        # task a: tasteful solve, untasteful solve, failure -> 1, 0, 0 -> 1/3
        trial("a", "resolved", rewards={"reward": 1.0}, **judged(True, 4.0, 0.8, bloat=1.0)),
        trial("a", "resolved", rewards={"reward": 1.0}, **judged(False, 2.0, 0.4, bloat=3.0)),
        trial("a", "unresolved", rewards={"reward": 0.0}, **judged(False, 1.0)),
        # task b: solve whose taste judge failed (unknown, left out), failure -> 0
        trial("b", "resolved", rewards={"reward": 1.0}, **judged(None)),
        trial("b", "unresolved", **judged(False)),
        # invalid trials never count, whatever their scores
        trial("b", "invalid", **judged(True, 100.0)),
    ]
    m = compute_metrics(TrialTable.from_results(rs), n_boot=100)
    assert m["tasteful_solve_rate"] == pytest.approx((1 / 3 + 0) / 2)
    assert m["quality_missing"] == 1
    # per-task means first: task a's minimality (4 + 2 + 1) / 3, task b has none
    assert m["quality_scores"] == {"rubric.mean": pytest.approx(0.6), "taste.minimality": pytest.approx(7 / 3),
                                   "patch_bloat": pytest.approx(2.0)}
    assert m["quality_medians"] == {"patch_bloat": 2.0, "rubric.mean": pytest.approx(0.6), "taste.minimality": 2.0}
    lo, hi = m["tasteful_solve_rate_ci"]
    assert lo <= m["tasteful_solve_rate"] <= hi
    assert set(m["quality_scores_ci"]) == {"rubric.mean", "taste.minimality", "patch_bloat"}


def test_verifier_reward_keys_are_not_judge_scores(trial):
    """Regression: a verifier's status flag such as ``rubric_judge_ok`` was averaged as a score, and
    a ``tasteful`` reward key was read as the verdict."""
    rs = [trial("a", "resolved", rewards={"reward": 1.0, "rubric_judge_ok": 1.0, "rubric": 0.2, "tasteful": 1.0})]
    m = compute_metrics(TrialTable.from_results(rs), n_boot=20)
    assert m["quality_scores"] == {} and m["tasteful_solve_rate"] is None


def test_load_job_reads_every_result(tmp_path, trial, job_writer):
    rs = [trial("a", "resolved"), trial("a", "invalid"), trial("b", "unresolved")]
    job = job_writer(tmp_path, "j", rs)
    (job / "trials" / "still-running").mkdir()
    loaded = load_job(job)
    assert loaded.config.name == "j"
    assert sorted(r.trial_id for r in loaded.results) == sorted(r.trial_id for r in rs)
    assert [p.name for p in loaded.unfinished] == ["still-running"]
    assert summarize(loaded.results)["invalid"] == 1
    assert len(load_jobs([job, job / ".." / "j"])) == 1     # the same folder twice is read once


def test_corrupt_result_is_an_error_naming_the_file(tmp_path, trial, job_writer):
    job = job_writer(tmp_path, "j", [trial("a", "resolved"), trial("b", "resolved")])
    bad = sorted((job / "trials").iterdir())[1] / "result.json"
    bad.write_text('{"trial_id": ')
    with pytest.raises(ResultsError) as err:
        load_job(job)
    assert str(bad) in str(err.value) and "not valid JSON" in str(err.value)


def test_result_with_unknown_key_is_an_error_naming_file_and_key(tmp_path, trial, job_writer):
    job = job_writer(tmp_path, "j", [trial("a", "resolved")])
    path = next((job / "trials").iterdir()) / "result.json"
    data = json.loads(path.read_text())
    data["surprise"] = 1
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError, match="surprise") as err:
        load_job(job)
    assert str(path) in str(err.value)


def test_a_folder_without_trials_is_not_a_job(tmp_path):
    with pytest.raises(ResultsError, match="no trials/ folder"):
        load_job(tmp_path)
    with pytest.raises(ResultsError, match="not a folder"):
        load_job(tmp_path / "missing")


def test_no_trials_at_all(trial):
    m = compute_metrics(TrialTable.from_results([]), n_boot=10)
    assert m["tasks"] == 0 and m["trials"] == 0 and m["pass_at_1"] is None
    assert m["earned_usd"] == 0 and m["earn_rate"] is None and m["cost_usd"] == 0.0


def test_a_folder_of_jobs_stands_for_every_job_in_it(tmp_path, trial, job_writer):
    job_writer(tmp_path, "j1", [trial("a", "resolved", job="j1")])
    job_writer(tmp_path, "j2", [trial("a", "unresolved", job="j2")])
    (tmp_path / "check.json").write_text("{}")          # other files beside the jobs are not jobs
    jobs = load_jobs([tmp_path])
    assert [j.path.name for j in jobs] == ["j1", "j2"]
    assert summarize([r for j in jobs for r in j.results])["pass_at_1"] == 0.5
    with pytest.raises(ResultsError, match="not a folder"):
        load_jobs([tmp_path / "check.json"])


def test_tasteful_solve_comes_from_the_tasks_own_taste_keys_and_both_sources_are_shown(trial):
    """Senior SWE-Bench's verifier writes its taste medians (1-5) into reward.json: the benchmark's
    rule (both above a D, i.e. > 2) gives the flag where a trial has them; lancebench's judges are
    shown beside it, and give the flag where the task wrote none."""
    taste = {"reward": 1.0, "taste_practice_alignment": 4.0, "taste_relative_taste": 3.0, "taste_judge_ok": 1}
    rs = [
        # task a: the task says tasteful (4, 3), lancebench's judges say not
        trial("a", "resolved", rewards=taste, **judged(False, 2.0)),
        # task a: relative taste 2.0 is a D, not above it: not tasteful by the task's rule
        trial("a", "resolved", rewards={**taste, "taste_relative_taste": 2.0}, **judged(True, 4.0)),
        # task b: the task's taste judge failed: unknown by the task, so left out of its rate
        trial("b", "resolved", rewards={**taste, "taste_judge_ok": 0}, **judged(True, 4.0)),
        # task c: no taste keys: lancebench's judges decide
        trial("c", "resolved", rewards={"reward": 1.0}, **judged(True, 4.0)),
    ]
    m = compute_metrics(TrialTable.from_results(rs), n_boot=20)
    # auto: a -> (1 + 0) / 2, b -> unknown (left out), c -> 1 (judges)
    assert m["tasteful_solve_rate"] == pytest.approx((0.5 + 1.0) / 2)
    assert m["tasteful_solve_rate_by_source"] == {"task": pytest.approx(0.5),
                                                  "judges": pytest.approx((0.5 + 1.0 + 1.0) / 3)}
    assert m["quality_missing"] == 1


def test_the_quality_line_shows_both_sources_when_both_flagged_trials():
    from lancebench.report.render import quality_line
    line = quality_line({"tasteful_solve_rate": 0.75, "tasteful_solve_rate_by_source": {"task": 0.5, "judges": 1.0}})
    assert line is not None and "tasteful solve 75" in line
    assert "(by the task: 50" in line and "by the judges: 100" in line
    one = quality_line({"tasteful_solve_rate": 0.5, "tasteful_solve_rate_by_source": {"judges": 0.5}})
    assert one is not None and "by the" not in one


def test_the_exclusion_rule_switch_counts_a_task_excluded_trial_as_harbor_does(tmp_path, trial, job_writer):
    """lancebench's control rule records an exclusion that only the patched run shows as
    unresolved; the task's rule (Harbor, the leaderboard) leaves it out; `show` gives both and
    says which applied."""
    from typer.testing import CliRunner

    from lancebench.cli import app
    from lancebench.grading.verifier import EXCLUDED_BY_PATCH
    from lancebench.metrics.exclusions import under_rule

    excluded = trial("a", "unresolved", rewards={"reward": 0.0}, reason=f"{EXCLUDED_BY_PATCH}: reward.txt is empty")
    rs = [trial("a", "resolved", rewards={"reward": 1.0}), excluded, trial("b", "unresolved", reason="tests failed")]
    task_rule = under_rule(rs, "task")
    assert [r.status for r in task_rule] == ["resolved", "invalid", "unresolved"]
    assert task_rule[1].reason.startswith("left out by the task's own exclusion")
    control_rule = under_rule(rs, "control")
    assert [(r.status, r.reason) for r in control_rule] == [(r.status, r.reason) for r in rs]
    # each excluded trial names the rule its status follows (issue 21)
    assert [r.exclusion_rule for r in control_rule] == [None, "control", None]
    assert [r.exclusion_rule for r in task_rule] == [None, "task", None]
    job = job_writer(tmp_path, "j", rs)
    for rule, pass1 in (("control", (1 / 2 + 0) / 2), ("task", (1 + 0) / 2)):
        shown = CliRunner().invoke(app, ["show", str(job), "--json", "--exclusions", rule])
        assert shown.exit_code == 0, shown.output
        summary = json.loads(shown.stdout)
        assert summary["exclusion_rule"] == rule and summary["pass_at_1"] == pytest.approx(pass1), summary
        assert summary["invalid"] == (rule == "task")
    bad = CliRunner().invoke(app, ["show", str(job), "--exclusions", "harbor"])
    assert bad.exit_code != 0 and "give one of control, task" in bad.output
    # `report` gives either rule too, records which applied and says what it changed (issue 21)
    for rule, pass1 in (("control", (1 / 2 + 0) / 2), ("task", (1 + 0) / 2)):
        shown = CliRunner().invoke(app, ["report", str(job), "--format", "json", "--exclusions", rule])
        assert shown.exit_code == 0, shown.output
        data = json.loads(shown.stdout)
        (row,) = data["rows"]
        assert data["exclusion_rule"] == rule and row["pass_at_1"] == pytest.approx(pass1), row
        assert data["exclusions_note"] in row["notes"]
        assert data["exclusions_note"].startswith("exclusions: the task's rule: 1 of the 1 trial(s)" if rule == "task"
                                                  else "exclusions: lancebench's control rule: 1 of the 1 trial(s)")
    bad = CliRunner().invoke(app, ["report", str(job), "--exclusions", "harbor"])
    assert bad.exit_code != 0 and "give one of control, task" in bad.output

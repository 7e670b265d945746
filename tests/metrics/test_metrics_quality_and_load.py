"""Quality metrics by hand, and reading real job folders (errors name the file)."""

from __future__ import annotations

import json

import pytest

from lancebench.metrics import ResultsError, TrialTable, compute_metrics, load_job, load_jobs, summarize


def test_tasteful_solve_rate_and_scores_by_hand(trial):
    rs = [
        # task a: tasteful solve, untasteful solve, failure (judge skipped) -> 1, 0, 0 -> 1/3
        trial("a", "resolved", rewards={"reward": 1.0, "tasteful": 1.0, "taste.minimality": 4.0, "rubric": 0.8}),
        trial("a", "resolved", rewards={"reward": 1.0, "tasteful": 0.0, "taste.minimality": 2.0, "rubric": 0.4}),
        trial("a", "unresolved", rewards={"reward": 0.0}),
        # task b: solve whose judge failed (unknown, left out), failure -> 0
        trial("b", "resolved", rewards={"reward": 1.0}),
        trial("b", "unresolved", extra={"tasteful": True}),
        # invalid trials never count, whatever their scores
        trial("b", "invalid", rewards={"tasteful": 1.0, "taste.minimality": 100.0}),
    ]
    m = compute_metrics(TrialTable.from_results(rs), n_boot=100)
    assert m["tasteful_solve_rate"] == pytest.approx((1 / 3 + 0) / 2)
    assert m["quality_missing"] == 1
    assert m["quality_scores"] == {"rubric": pytest.approx(0.6), "taste.minimality": pytest.approx(3.0)}
    lo, hi = m["tasteful_solve_rate_ci"]
    assert lo <= m["tasteful_solve_rate"] <= hi
    assert set(m["quality_scores_ci"]) == {"rubric", "taste.minimality"}


def test_no_judges_means_no_quality_numbers(trial):
    m = compute_metrics(TrialTable.from_results([trial("a", "resolved", rewards={"reward": 1.0})]), n_boot=20)
    assert m["tasteful_solve_rate"] is None and m["tasteful_solve_rate_ci"] is None
    assert m["quality_scores"] == {} and m["quality_missing"] == 0


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

"""What `show` tells about a trial beyond its one-line reason: an invalid trial's test runner output
(`show --trial`, found by a new user whose verifier broke: the reason said "no JUnit report ...
(exit code 4)" and nothing of what the runner printed), and reasons the table cuts (an ellipsis,
and how to see them whole: `--wide`, `--trial`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from lbtest import TASKS, derive_task, lb, results  # noqa: E402

from lancebench.results.models import JobConfig, TrialResult  # noqa: E402

BROKEN_RUNNER = """#!/bin/bash
seq 1 1000
printf '\\033[2Jcleared\\n'
echo "FATAL: cannot import hypothesis (the runner's own words)" >&2
exit 4
"""


@pytest.fixture(scope="module")
def broken_job(tmp_path_factory) -> Path:
    """A real oracle trial (local backend) of calc whose test runner fails on any patch: invalid."""
    root = tmp_path_factory.mktemp("broken")
    task = derive_task(TASKS / "calc", root / "tasks" / "calc-broken", files={"tests/test.sh": BROKEN_RUNNER})
    lb("run", "-p", task, "-a", "oracle", "-o", root / "jobs", "-q", check=True)
    return root / "jobs" / "calc-broken__oracle"


def test_show_trial_prints_the_end_of_the_test_runners_output_and_the_trial_folder(broken_job):
    (result,) = results(broken_job)
    assert result["status"] == "invalid" and "exit code 4" in result["reason"]
    assert "FATAL" not in result["reason"]  # the reason alone does not say what the runner printed
    proc = lb("show", broken_job, "--trial", "calc-broken", check=True)
    assert json.loads(proc.stdout)["trial_id"] == result["trial_id"]  # standard output stays the JSON
    folder = broken_job / "trials" / result["trial_id"]
    err = proc.stderr.splitlines()
    assert f"trial folder: {folder}" in err
    assert "the test runner's output (its last 20 lines, verifier/run-0/test.log):" in err
    shown = err[err.index("the test runner's output (its last 20 lines, verifier/run-0/test.log):") + 1:]
    assert len(shown) == 20 and all(line.startswith("  ") for line in shown)
    assert "  FATAL: cannot import hypothesis (the runner's own words)" in shown
    assert "  1000" in shown and "  500" not in err  # the end of it, not the whole log
    assert "  ␛[2Jcleared" in shown and "\x1b" not in proc.stderr  # the runner's escapes made visible


def test_show_names_the_command_that_prints_an_invalid_trials_runner_output(broken_job):
    (result,) = results(broken_job)
    out = " ".join(lb("show", broken_job, check=True).stdout.split())
    assert ("an invalid trial in full, with the end of its test runner's output when the runner ran: "
            f"lancebench show {broken_job} --trial {result['trial_id']} "
            f"(its folder: {broken_job / 'trials' / result['trial_id']})") in out


def test_a_resolved_trial_gets_its_folder_without_a_log(tmp_path):
    lb("run", "-p", TASKS / "calc", "-a", "oracle", "-o", tmp_path / "jobs", "-q", check=True)
    job = tmp_path / "jobs" / "calc__oracle"
    (result,) = results(job)
    proc = lb("show", job, "--trial", "calc", check=True)
    assert proc.stderr.splitlines() == [f"trial folder: {job / 'trials' / result['trial_id']}"]


REASON = "tests not passing: " + ", ".join(f"test_case_{i}" for i in range(30))  # 391 characters


def _job_with_long_reason(root: Path) -> Path:
    job = root / "job"
    trial = TrialResult(trial_id="t0", job="job", task="calc", task_digest="d", agent="nop", attempt=0,
                        status="unresolved", reason=REASON, rewards={"reward": 0.0})
    (job / "trials" / "t0").mkdir(parents=True)
    (job / "job.json").write_text(JobConfig(name="job", agent="nop").model_dump_json())
    (job / "trials" / "t0" / "result.json").write_text(trial.model_dump_json())
    return job


@pytest.mark.parametrize("columns", ["100", "400"])
def test_a_cut_reason_ends_in_an_ellipsis_and_says_how_to_see_it_whole(tmp_path, columns):
    # before: at 400 columns the cell was cut at 200 characters without a mark; at 100 it ended in
    # "…" but nothing said how to read the rest
    job = _job_with_long_reason(tmp_path)
    text = lb("show", job, check=True, env={"COLUMNS": columns}).stdout
    row = next(line for line in text.splitlines() if line.lstrip().startswith("calc"))
    assert row.rstrip().endswith("…") and "test_case_29" not in row
    assert f"a reason ending in … is cut: lancebench show {job} --wide shows them whole, --trial ID one trial in " \
           "full" in " ".join(text.split())
    wide = lb("show", job, "--wide", check=True, env={"COLUMNS": columns}).stdout
    cells = [line.rstrip().split("   ")[-1].strip() for line in wide.splitlines()]  # the reason column's lines
    assert REASON in " ".join(c for c in cells if c.startswith(("tests not", "test_case")))
    assert "--wide shows them whole" not in wide and "…" not in wide


def test_a_short_reason_says_nothing_of_cuts(tmp_path):
    lb("run", "-p", TASKS / "calc", "-a", "nop", "-o", tmp_path / "jobs", "-q", check=True)
    text = lb("show", tmp_path / "jobs" / "calc__nop", check=True).stdout
    assert "unresolved" in text and "…" not in text and "--wide" not in text

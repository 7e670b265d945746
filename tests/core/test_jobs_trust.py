"""Jobs people can trust (issue 13): one writer per job, one configuration per job, earlier and
unfinished trials visible, independent attempts, clear errors with documented exit codes, job
files, exports and predictions. Every job runs through the real CLI on bubblewrap."""

from __future__ import annotations

import csv
import io
import json
import random
import re
import socket
import subprocess
import time

import pytest
from lbtest import CALC_FIX, TASKS, derive_task, lancebench_exe, lb, results, show_json

CALC, PICK = TASKS / "calc", TASKS / "pick"


def _slow_fix(shared, seconds: int = 4):
    script = shared / "slow_fix.sh"
    script.write_text(f"#!/bin/bash\nsleep {seconds}\nsed -i 's/return a - b/return a + b/' calc.py\n")
    return f"script:{script}"


@pytest.mark.slow
def test_a_second_run_on_a_busy_job_is_refused_and_the_first_records_right_results(jobs, shared):
    """Regression: two runs on one job shared one scratch folder; a correct agent scored 0/2 in
    both ("sed: can't read calc.py") and both exited 0."""
    args = ["run", "-p", str(CALC), "-a", _slow_fix(shared), "-k", "2", "-o", str(jobs), "--job-name", "j"]
    first = subprocess.Popen([*lancebench_exe(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not list((jobs / "j" / "trials").glob("*")):
            time.sleep(0.1)
        second = lb(*args)
        assert second.returncode == 2, second.stderr
        assert "another lancebench run is writing this job" in second.stderr
        first.wait(300)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0, first.stderr[-2000:]
    assert [(r["attempt"], r["status"]) for r in results(jobs / "j")] == [(0, "resolved"), (1, "resolved")]


def test_a_rerun_with_another_configuration_is_refused_listing_the_differences(jobs):
    """Regression: `--seed 0` then `--seed 7` into one job kept the old trials under the new seed."""
    base = ["run", "-p", str(PICK), "-a", "random", "-o", str(jobs), "--job-name", "r"]
    lb(*base, "--seed", "0", check=True)
    before = results(jobs / "r")
    proc = lb(*base, "--seed", "7")
    assert proc.returncode == 2, proc.stderr
    assert "agent_options.seed: 0 -> 7" in proc.stderr and "--new-job" in proc.stderr
    assert results(jobs / "r") == before
    assert json.loads((jobs / "r" / "job.json").read_text())["config"]["agent_options"] == {"seed": 0}
    lb(*base, "--seed", "7", "--new-job", check=True)
    (new,) = results(jobs / "r-2")
    assert new["config"]["agent_options"] == {"seed": 7} and before[0]["config"]["agent_options"] == {"seed": 0}
    rows = json.loads(lb("report", jobs, "--format", "json", "--bootstrap", "10", check=True).stdout)["rows"]
    assert sorted((r["settings"], r["trials"]) for r in rows) == [("seed=0", 1), ("seed=7", 1)]  # never pooled


def test_another_backend_is_another_configuration(jobs):
    """Regression: `-a oracle`, then `--backend docker` (even with no Docker at all) reported the
    local trials as "16/16 resolved"."""
    base = ["run", "-p", str(CALC), "-a", "oracle", "-o", str(jobs), "--job-name", "o"]
    lb(*base, check=True)
    before = results(jobs / "o")
    proc = lb(*base, "--backend", "docker")
    assert proc.returncode in (2, 4), proc.stderr  # 4: no Docker here, 2: refused on the difference
    assert ("backend: local -> docker" in proc.stderr) if proc.returncode == 2 else ("Docker" in proc.stderr)
    assert results(jobs / "o") == before


def test_earlier_task_selections_stay_visible_and_unfinished_trials_are_counted(jobs):
    """Regression: `-t A` then `-t B` into one job showed only B; `show` on an interrupted job did
    not say trials were missing."""
    base = ["run", "-p", str(TASKS), "-a", "nop", "-o", str(jobs), "--job-name", "t"]
    lb(*base, "-t", "calc", check=True)
    lb(*base, "-t", "pick", "-k", "2", check=True)
    job = jobs / "t"
    summary = show_json(job)
    assert (summary["trials"], summary["unfinished"]) == (3, 0)
    assert sorted((r["task"], r["attempt"]) for r in results(job)) == [("calc", 0), ("pick", 0), ("pick", 1)]
    # what a kill -9 leaves: one trial folder without result.json, one planned trial never started
    trials = sorted((job / "trials").iterdir())
    (trials[0] / "result.json").unlink()
    for f in sorted(trials[1].rglob("*"), reverse=True):
        f.unlink() if f.is_file() else f.rmdir()
    trials[1].rmdir()
    summary = show_json(job)
    assert (summary["trials"], summary["unfinished"]) == (1, 2)
    assert "unfinished: 2 planned trial(s) have no result" in lb("show", job, check=True).stdout


def _expected_picks(seed: int, attempts: int) -> list[int]:
    """The random agent's documented draw: Random("{seed}:{task}") for attempt 0, then
    Random("{seed}:{task}:{i}") (agents/builtin.py docstring), over the sorted proposal ids."""
    return [random.Random(f"{seed}:pick" + (f":{i}" if i else "")).choice([0, 1, 2]) for i in range(attempts)]


def test_seeded_random_agent_draws_per_attempt(jobs):
    """Regression: `-a random -k 3` picked the same proposal on every attempt, so pass@3 = pass@1."""
    seed = next(s for s in range(100) if len(set(_expected_picks(s, 3))) > 1)
    lb("run", "-p", PICK, "-a", "random", "--seed", seed, "-k", "3", "-o", jobs, "--job-name", "k", check=True)
    assert [r["choice"] for r in results(jobs / "k")] == _expected_picks(seed, 3)


def test_script_agents_are_told_their_attempt(jobs, shared):
    script = shared / "attempt.sh"
    script.write_text('#!/bin/bash\necho "attempt=$LANCEBENCH_ATTEMPT" > attempt.txt\n')
    lb("run", "-p", CALC, "-a", f"script:{script}", "-k", "2", "-o", jobs, "--job-name", "a", check=True)
    for r in results(jobs / "a"):
        patch = (jobs / "a" / "trials" / r["trial_id"] / "patch.diff").read_text()
        assert f"+attempt={r['attempt']}" in patch, patch


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


USER_ERRORS = [
    (["-a", "nop", "-o", "/etc/hostname"], 2, "-o /etc/hostname: is a file"),
    (["-a", "nop", "--max-cost", "0"], 2, "--max-cost 0: must be > 0 (write '--max-cost unlimited'"),
    (["-a", "nop", "--max-cost", "-1"], 2, "--max-cost -1: must be > 0"),
    (["-a", "nop", "--agent-timeout", "-5"], 2, "--agent-timeout -5: must be > 0"),
    (["-a", "nop", "--max-steps", "0"], 2, "--max-steps 0: must be > 0"),
    (["-a", "nop", "--executor", "nope"], 2, "--executor nope: choose local or ray"),
    (["-m", "openai/gpt-4o"], 3, "the API key is missing: set OPENAI_API_KEY"),
    # before: a model for an agent that calls none demanded its key or started its server (issue 28)
    (["-a", "oracle", "-m", "openai/gpt-4o"], 2, "-a oracle calls no model: leave out -m"),
    (["-a", "script:/bin/true", "-m", "local", "--api-base", "http://127.0.0.1:9/v1"], 2,
     "-a script:/bin/true calls no model: leave out -m and --api-base"),
    (["-m", "some-model", "--api-base", "http://127.0.0.1:{port}/v1"], 3,
     "--api-base http://127.0.0.1:{port}/v1: nothing answers"),
]


@pytest.mark.parametrize("args,code,needle", USER_ERRORS, ids=[" ".join(a[-2:]) for a, _, _ in USER_ERRORS])
def test_user_errors_stop_before_any_trial_with_one_line_and_a_documented_code(args, code, needle, jobs):
    """Regression: these were tracebacks, "500" after three retries, or accepted as unlimited."""
    port = _closed_port()
    args = [a.format(port=port) for a in args]
    if "-o" not in args:
        args += ["-o", str(jobs)]
    start = time.monotonic()
    proc = lb("run", "-p", CALC, *args, env={"OPENAI_API_KEY": ""})
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    assert needle.format(port=port) in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert not list(jobs.glob("*/trials/*")), "a trial started"
    assert time.monotonic() - start < 60  # no retries against a missing key or a dead port


def test_grade_with_a_missing_predictions_file_is_one_clear_line(jobs, shared):
    proc = lb("grade", "-p", CALC, "--predictions", shared / "nope.jsonl", "-o", jobs)
    assert proc.returncode == 2 and "--predictions" in proc.stderr and "no such file" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_unlimited_is_spelled_out(jobs):
    # the configuration every trial would record (nop, which calls no model, now refuses --max-cost)
    proc = lb("run", "-p", CALC, "-m", "openai/gpt-4o-mini", "--max-cost", "unlimited", "-o", jobs, "--dry-run",
              env={"OPENAI_API_KEY": "placeholder"}, check=True)
    assert "\n  agent_options: {'max_cost': 0.0}\n" in proc.stdout  # 0: the agents' "no limit"


def test_a_job_file_sweeps_agents_and_flags_override_it(jobs, shared):
    spec = shared / "job.yaml"
    # top-level limits apply to the agents that take them: neither oracle nor nop records them
    spec.write_text(f"tasks:\n  path: {CALC}\nagents: [oracle, nop]\nattempts: 2\njobs_dir: {jobs}\n"
                    "max_steps: 10\nmax_cost: 1\n")
    proc = lb("run", "-c", spec, "-k", "1", check=True)
    names = sorted(d.name for d in jobs.iterdir())
    assert names == ["calc__nop", "calc__oracle"]
    # one leaderboard after the jobs' own tables (issue 28: a sweep ended with separate tables only)
    board = proc.stdout[proc.stdout.index("sweep leaderboard: 2 jobs"):]
    assert re.search(r"\boracle\b.*\s100\.0% \[", board) and re.search(r"\bnop\b.*\s0\.0% \[", board), board
    statuses = {n: [r["status"] for r in results(jobs / n)] for n in names}
    assert statuses == {"calc__nop": ["unresolved"], "calc__oracle": ["resolved"]}
    import yaml
    saved = yaml.safe_load((jobs / "calc__oracle" / "job.yaml").read_text())
    assert (saved["agent"], saved["attempts"], saved["path"]) == ("oracle", 1, [str(CALC)])
    again = lb("run", "-p", CALC, "-a", "oracle", "-o", jobs, "-k", "1")  # the same job: nothing to run
    assert again.returncode == 0 and "another configuration" not in again.stderr, again.stderr
    assert len(results(jobs / "calc__oracle")) == 1
    bad = shared / "bad.yaml"
    bad.write_text("agents: [oracle]\nattempt: 2\n")
    proc = lb("run", "-c", bad)
    assert proc.returncode == 2 and f"{bad}: attempt: Extra inputs are not permitted" in proc.stderr, proc.stderr


def test_show_writes_one_row_per_trial_and_predictions_grade_back(jobs, shared):
    lb("run", "-p", CALC, "-p", PICK, "-a", "oracle", "-o", jobs, "--job-name", "x", check=True)
    job = jobs / "x"
    recorded = {r["trial_id"]: r for r in results(job)}
    rows = [json.loads(line) for line in lb("show", job, "--format", "jsonl", check=True).stdout.splitlines()]
    assert {r["trial_id"] for r in rows} == set(recorded)
    for row in rows:
        r = recorded[row["trial_id"]]
        assert (row["status"], row["reward"], row["total_sec"], row["agent"]) == \
            (r["status"], r["rewards"]["reward"], r["timings"]["total_sec"], "oracle")
    some = next(iter(recorded))
    assert json.loads(lb("show", job, "--trial", some[:12], check=True).stdout) == recorded[some]  # full text
    table = list(csv.DictReader(io.StringIO(lb("show", job, "--format", "csv", check=True).stdout)))
    assert sorted(row["task"] for row in table) == ["calc", "pick"]
    pq = pytest.importorskip("pyarrow.parquet")
    lb("show", job, "--format", "parquet", "-o", shared / "t.parquet", check=True)
    assert sorted(pq.read_table(shared / "t.parquet").column("task").to_pylist()) == ["calc", "pick"]

    preds = shared / "preds.jsonl"
    lb("predictions", job, "-o", preds, check=True)
    (pred,) = [json.loads(line) for line in preds.read_text().splitlines()]  # pick is a choice task
    assert (pred["instance_id"], pred["model_name_or_path"]) == ("calc", "oracle")
    assert pred["model_patch"] == (job / "trials" / next(t for t, r in recorded.items() if r["task"] == "calc")
                                   / "patch.diff").read_text()
    lb("grade", "-p", CALC, "--predictions", preds, "-o", jobs, "--job-name", "g", check=True)
    (graded,) = results(jobs / "g")
    assert graded["status"] == "resolved"


def test_hidden_tests_that_import_what_the_fix_adds_fail_a_wrong_patch(jobs, shared):
    """Regression: on a wrong patch the hidden tests cannot be collected (they import a name the
    fix adds); the harness called the grader broken and the trial invalid, so failed attempts
    left the denominator."""
    tests = "from calc import add, sub\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n" \
            "def test_sub():\n    assert sub(5, 3) == 2\n"
    task = derive_task(CALC, shared / "calc_sub", files={"tests/test_calc.py": tests},
                       toml={r"^f2p = .*$": 'f2p = ["test_calc::test_add", "test_calc::test_sub"]',
                             r"^p2p = .*$": "p2p = []"})
    lb("run", "-p", task, "-a", "nop", "-o", jobs, "--job-name", "n", check=True)
    (r,) = results(jobs / "n")
    assert r["status"] == "unresolved", r["reason"]
    assert r["tests"] == {"test_calc::test_add": "error", "test_calc::test_sub": "error"}
    assert "collection failed" in r["reason"]
    fix = shared / "fix.patch"
    fix.write_text(CALC_FIX)
    script = shared / "fix.sh"
    script.write_text("#!/bin/bash\nsed -i 's/return a - b/return a + b/' calc.py\n"
                      "printf '\\n\\ndef sub(a, b):\\n    return a - b\\n' >> calc.py\n")
    lb("run", "-p", task, "-a", f"script:{script}", "-o", jobs, "--job-name", "f", check=True)
    (r,) = results(jobs / "f")
    assert r["status"] == "resolved", r["reason"]


def test_show_trial_takes_a_tasks_exact_name_over_longer_names_it_begins(jobs, shared):
    """``--trial calc`` with tasks ``calc`` and ``calc-two`` (a new user's find: both ids begin with
    ``calc``, and the exact task name was refused as matching two trials)."""
    import shutil
    for name in ("calc", "calc-two"):
        shutil.copytree(CALC, shared / "ts" / name)
    lb("run", "-p", shared / "ts", "-a", "oracle", "-o", jobs, "--job-name", "j", check=True)
    assert json.loads(lb("show", jobs / "j", "--trial", "calc", check=True).stdout)["task"] == "calc"
    assert json.loads(lb("show", jobs / "j", "--trial", "calc-t", check=True).stdout)["task"] == "calc-two"
    many = lb("show", jobs / "j", "--trial", "cal")
    assert many.returncode == 2 and "--trial cal: 2 trial(s)" in many.stderr, many.stderr

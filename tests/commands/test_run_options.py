"""Issue 28, what a Harbor user reaches for: one spelling per option across commands (with hidden
aliases), `run --dry-run`, `--env-file`, `--timeout-multiplier`, `resume JOB`, plain progress
lines off a terminal, and clear errors for a job file naming two task sources. One real trial
(a script agent on calc, in a process of its own: not a terminal); everything else stops before a
sandbox starts and runs in this process (CliRunner), which is cheap."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
CALC = REPO / "tests" / "fixtures" / "tasks" / "calc"
EVERY_FIELD = REPO / "tests" / "fixtures" / "harbor" / "every-field"


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """``cli(ARGS...)``: lancebench in this process (CliRunner), in ``tmp_path``, without an OpenAI
    key; the environment (which ``--env-file`` changes) is restored after the test."""
    from typer.testing import CliRunner

    from lancebench.cli import app
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "placeholder")  # the original is recorded: undo restores it
    monkeypatch.delenv("OPENAI_API_KEY")
    return lambda *args: CliRunner().invoke(app, [str(a) for a in args])


# the one long spelling of each short option, in every command that has the short one
ONE_SPELLING = {"-p": {"--path"}, "-d": {"--dataset"}, "-t": {"--task"}, "-x": {"--exclude"}, "-k": {"--attempts"},
                "-n": {"--concurrency"}, "-o": {"--jobs-dir", "--out"}, "-f": {"--format"}, "-q": {"--quiet"},
                "-c": {"--config"}, "-a": {"--agent"}, "-m": {"--model"}, "-l": {"--limit"}, "-j": {"--job"},
                "-h": {"--help"}}


def _options(command, prefix=()):
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            yield from _options(sub, (*prefix, name))
        return
    for param in command.params:
        if param.param_type_name == "option":
            yield " ".join(prefix), param.opts


def test_each_short_option_has_one_meaning_across_commands():
    # before: -o was --jobs-dir, --out or --output; check's -k had no long name; show had no -f
    import typer

    from lancebench.cli import build_app
    seen: dict[str, set[str]] = {}
    for command, opts in _options(typer.main.get_command(build_app())):
        shorts = [o for o in opts if re.fullmatch(r"-[a-zA-Z]", o)]
        longs = {o for o in opts if o.startswith("--")}
        for short in shorts:
            assert short in ONE_SPELLING, f"{command}: {short} is not in the table of docs/cli.md"
            assert longs and longs <= ONE_SPELLING[short], f"{command}: {short} is {longs}"
            seen.setdefault(short, set()).add(command)
    assert {"run", "grade", "check", "show", "predictions", "report", "export", "view"} <= seen["-o"]
    assert {"run", "check", "calibrate"} <= seen["-k"] and {"run", "resume", "grade"} <= seen["-q"]
    assert "tasks validate" in seen["-p"] and "show" in seen["-f"]


def test_hidden_aliases_are_rewritten_before_parsing(tmp_path, cli):
    from lancebench.commands.aliases import ALIASES, canonical_args
    run = ALIASES["run"]
    assert canonical_args(["--n-attempts=3", "-i", "calc", "--ao", "x=1", "--", "--n-tasks"], run) == \
        ["--attempts=3", "--task", "calc", "--ao", "x=1", "--", "--n-tasks"]  # after --, values
    assert canonical_args(["-p", "jobs/x", "-n", "2"], ALIASES["resume"]) == ["jobs/x", "-n", "2"]
    # export's old --output still works (hidden), writing what -o writes
    proc = cli("export", "-p", CALC, "--output", tmp_path / "out")
    assert proc.exit_code == 0, proc.output
    assert (tmp_path / "out" / "calc" / "task.toml").is_file()
    assert "--output" not in cli("export", "-h").stdout


def test_dry_run_prints_the_plan_and_starts_nothing(tmp_path, cli):
    proc = cli("run", "-p", CALC, "-a", "oracle", "--n-attempts", "2", "--timeout-multiplier", "2.5",
               "-o", tmp_path / "jobs", "--dry-run")
    assert proc.exit_code == 0, proc.output
    assert "2 trial(s): 2 to run, 0 already recorded" in proc.stdout
    assert re.search(r"^  calc #0: run \[calc__0__[0-9a-f]{12}\]$", proc.stdout, re.M)
    assert "  timeout_multiplier: 2.5" in proc.stdout and "  attempts: 2" in proc.stdout
    assert not (tmp_path / "jobs").exists()  # no job folder, no sandbox, no model


def test_env_file_supplies_keys_and_a_bad_line_is_named_without_its_value(tmp_path, cli):
    args = ["run", "-p", CALC, "-m", "openai/gpt-4o-mini", "-o", tmp_path / "jobs", "--dry-run"]
    env_file = tmp_path / "keys.env"
    env_file.write_text("A=1\nOPENAI_API_KEY sk-r28-leak\n")
    bad = cli(*args, "--env-file", env_file)
    assert bad.exit_code == 2 and f"--env-file {env_file}: line 2 is not KEY=VALUE" in bad.output, bad.output
    assert "sk-r28-leak" not in bad.output and "OPENAI_API_KEY" not in os.environ
    missing = cli(*args)
    assert missing.exit_code == 3 and "set OPENAI_API_KEY" in missing.output, missing.output
    env_file.write_text("# keys\nOPENAI_API_KEY=sk-r28-never-shown\n")
    ok = cli(*args, "--env-file", env_file)
    assert ok.exit_code == 0, ok.output
    assert "sk-r28-never-shown" not in ok.output and "\n  env_file:" not in ok.stdout


def test_a_job_file_with_path_and_dataset_names_the_file_and_both_fields(tmp_path, cli):
    # before: "pass exactly one of -p PATH ... or -d DATASET", naming flags the file does not have
    spec = tmp_path / "job.yaml"
    spec.write_text(f"tasks:\n  path: [{CALC}]\n  dataset: mini\nagents: [oracle]\n")
    proc = cli("run", "-c", spec, "--dry-run")
    assert proc.exit_code == 2, proc.output
    message = " ".join(proc.output.split())
    assert f"{spec}: tasks.path and tasks.dataset are both given" in message and "-p PATH" not in message
    # a source given on the command line replaces the file's
    ok = cli("run", "-c", spec, "-p", CALC, "-o", tmp_path / "jobs", "--dry-run")
    assert ok.exit_code == 0 and "1 trial(s): 1 to run" in ok.stdout, ok.output


def test_an_agent_flag_over_a_sweep_runs_that_agent_once(tmp_path, cli):
    # before: `run -c sweep.yaml -a oracle` over `agents: [oracle, nop]` ran the oracle job twice (each entry
    # overridden to oracle), printing its table twice
    spec = tmp_path / "job.yaml"
    spec.write_text(f"tasks:\n  path: [{CALC}]\nagents: [oracle, nop, random]\n")
    both = cli("run", "-c", spec, "-o", tmp_path / "jobs", "--dry-run")
    assert both.exit_code == 0, both.output
    assert [line.split()[-2] for line in both.stdout.splitlines() if line.startswith("dry run:")] == \
        [str(tmp_path / "jobs" / f"calc__{a}") for a in ("oracle", "nop", "random")]
    one = cli("run", "-c", spec, "-a", "oracle", "-o", tmp_path / "jobs", "--dry-run")
    assert one.exit_code == 0, one.output
    assert [line.split()[-2] for line in one.stdout.splitlines() if line.startswith("dry run:")] == \
        [str(tmp_path / "jobs" / "calc__oracle")]


def test_timeout_multiplier_scales_every_phase_timeout_of_a_task():
    from lancebench.task.load import load_tasks
    from lancebench.task.timeouts import scale_timeouts
    (task,), errors = load_tasks([EVERY_FIELD], lenient=True)
    assert not errors
    scaled = scale_timeouts(task, 2.0).config
    assert (scaled.agent.timeout_sec, scaled.verifier.timeout_sec, scaled.environment.build_timeout_sec) == \
        (600.0, 240.0, 600.0)  # task.toml: 300, 120, 300
    assert [h.timeout_sec for h in scaled.verifier.collect] == [120.0, 60.0]  # default 60, and 30
    one, two = scaled.steps
    assert (one.agent.timeout_sec, one.verifier.timeout_sec, one.healthcheck.timeout_sec) == (120.0, 60.0, 60.0)
    assert two.agent is None or two.agent.timeout_sec is None  # unset: takes the task's (scaled) one
    assert scale_timeouts(task, 2.0).digest == task.digest and task.config.agent.timeout_sec == 300.0


def test_tables_are_not_cut_to_80_columns_off_a_terminal():
    # before: a run's log held "tests…" for every reason (rich's 80 columns without a terminal)
    from lancebench.commands.common import LOG_WIDTH, output_width
    assert output_width(False, {}) == LOG_WIDTH >= 200
    assert output_width(True, {}) is None and output_width(False, {"COLUMNS": "120"}) is None


def test_messages_on_standard_error_are_not_wrapped_at_80_columns_off_a_terminal(tmp_path):
    # before: standard error (a pipe, a CI log) broke a long message at rich's default 80 columns
    import subprocess
    import sys
    out = tmp_path / ("a-folder-name-long-enough-to-push-the-message-past-eighty-columns" + "-x" * 20)
    (out / "calc").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    proc = subprocess.run([sys.executable, "-m", "lancebench", "export", "-p", str(CALC), "-o", str(out)],
                          capture_output=True, text=True, env={**env, "PYTHONPATH": str(REPO / "src")}, timeout=120)
    assert proc.returncode == 2, proc.stderr
    line = f"error: {out} already holds calc; choose an empty folder"
    assert len(line) > 80 and line in proc.stderr.splitlines(), proc.stderr


def test_a_repeated_format_error_is_named_in_the_reason():
    # before: "the agent stopped with an error" where the trajectory said RepeatedFormatError
    from lancebench.runner.record import agent_stop
    reason = agent_stop("error", "RepeatedFormatError: the model's last replies came back empty (no choices)")
    assert reason.startswith("the agent stopped with RepeatedFormatError (the model kept replying in a format")
    assert agent_stop("error", "ValueError: boom") == "the agent stopped with an error"
    assert agent_stop("timeout", "RepeatedFormatError: x") == "the agent ran out of time"


@pytest.mark.slow
def test_a_run_off_a_terminal_logs_phases_and_heartbeats_and_resume_reruns_its_settings(tmp_path, cli, monkeypatch):
    agent = tmp_path / "slow.sh"
    agent.write_text("#!/bin/sh\nsleep 3\n")  # longer than --agent-timeout 2, shorter than 2 x 3
    env_file = tmp_path / ".env"
    env_file.write_text("LB_R28_SECRET=r28-not-in-the-job\n")
    monkeypatch.setenv("LB_R28_SECRET", "")  # restored after the test (--env-file sets it in this process)
    jobs = tmp_path / "jobs"
    proc = cli("run", "-p", CALC, "-a", f"script:{agent}", "-o", jobs, "--job-name", "j", "--agent-timeout", "2",
               "--timeout-multiplier", "3", "--heartbeat", "0.5", "--env-file", env_file)
    assert proc.exit_code == 0, proc.output
    (result_file,) = (jobs / "j" / "trials").glob("*/result.json")
    result = yaml.safe_load(result_file.read_text())
    assert result["config"]["timeout_multiplier"] == 3 and result["config"]["agent_timeout_sec"] == 2
    assert result["agent_exit"] != "timeout" and "ran out of time" not in (result["reason"] or "")
    # off a terminal (CliRunner's standard error is not one): a line per phase change, heartbeats
    for phase in ("environment", "agent", "capture", "grading"):
        assert re.search(rf"^  calc #0: {phase} \(after \d+s in \w+\)$", proc.stderr, re.M), proc.stderr
    assert re.search(r"^\[\d\d:\d\d:\d\d\] 0/1 done: .*\| running: calc #0 \w+", proc.stderr, re.M), proc.stderr
    assert re.search(r"^  calc #0: unresolved", proc.stderr, re.M)
    recorded = yaml.safe_load((jobs / "j" / "job.yaml").read_text())
    assert recorded["timeout_multiplier"] == 3 and "env_file" not in recorded
    assert not [p for p in (jobs / "j").rglob("*") if p.is_file() and b"r28-not-in-the-job" in p.read_bytes()]
    # resume: the same settings (no refusal), nothing left to run; then a lost result is planned again
    again = cli("resume", jobs / "j", "-q")
    assert again.exit_code == 0 and "1 already recorded, 0 to run" in again.stderr, again.output
    assert "calc #0:" not in again.stderr  # -q: no per-trial lines
    # the layout before job.yaml existed: resume rebuilds the run from job.json (a configuration
    # that differed would be refused, exit 2) and the run records job.yaml again, the same settings
    (jobs / "j" / "job.yaml").unlink()
    old = cli("resume", jobs / "j", "-q")
    assert old.exit_code == 0 and "1 already recorded, 0 to run" in old.stderr, old.output
    assert f"--agent-timeout 2 --timeout-multiplier 3 -o {jobs} --job-name j" in " ".join(old.stderr.split())
    assert yaml.safe_load((jobs / "j" / "job.yaml").read_text()) == recorded
    result_file.unlink()
    plan = cli("resume", jobs / "j", "--dry-run")
    assert plan.exit_code == 0, plan.output
    assert f"  calc #0: run [{result['trial_id']}]" in plan.stdout  # the same trial: same task, agent, settings
    none = cli("resume", tmp_path)
    assert none.exit_code == 2 and "is not a job folder (no job.json)" in none.output


def _old_job(jobs: Path, name: str, **fields) -> Path:
    """A job folder as lancebench wrote it before issue 13: job.json without config or controls,
    no job.yaml, no trial yet (the fields of its first version, commit e9cf427)."""
    job = jobs / name
    (job / "trials").mkdir(parents=True)
    (job / "job.json").write_text(json.dumps({"name": name, "attempts": 1, "concurrency": 1, "backend": "local",
                                              "task_filters": [], "limit": None, "created_at": "2026-11-30T12:00:00Z",
                                              "lancebench_version": "0.1.0", **fields}))
    return job


def test_resume_of_a_job_without_job_yaml_runs_what_its_job_json_records(tmp_path, cli):
    # before: "has no job.yaml ... run its original command again" for every job of an older lancebench
    shutil.copytree(CALC, tmp_path / "tasks" / "calc")
    jobs = tmp_path / "jobs"
    job = _old_job(jobs, "old", agent="random", agent_options={"seed": 3}, attempts=2, sources=["tasks/calc"],
                   task_filters=["ca*"])
    proc = cli("resume", job, "--dry-run")
    assert proc.exit_code == 0, proc.output
    note = " ".join(proc.stderr.split())
    command = (f"lancebench run -p {tmp_path / 'tasks' / 'calc'} -a random --seed 3 -k 2 -t 'ca*' -o {jobs} "
               "--job-name old")
    assert command in note and "job.json does not record -x, --executor" in note
    assert "--api-base, --agent-timeout, --timeout-multiplier" in note  # not in a job.json without config
    # the plan is the one `run` makes of that command (its trial ids: task, agent, seed, attempt)
    same = cli("run", "-p", tmp_path / "tasks" / "calc", "-a", "random", "--seed", "3", "-k", "2", "-t", "ca*",
               "-o", jobs, "--job-name", "old", "--dry-run")
    assert same.exit_code == 0, same.output
    planned = re.findall(r"^  calc #\d: run \[\S+\]$", proc.stdout, re.M)
    assert len(planned) == 2 and planned == re.findall(r"^  calc #\d: run \[\S+\]$", same.stdout, re.M)
    assert not (job / "job.yaml").exists()  # a dry run writes nothing
    other_seed = cli("run", "-p", tmp_path / "tasks" / "calc", "-a", "random", "--seed", "4", "-o", jobs,
                     "--job-name", "old", "--dry-run")
    assert other_seed.exit_code == 2  # the seed is the job's: a rebuilt run with another would be refused


def test_resume_of_an_old_job_says_what_to_run_when_job_json_cannot_rebuild_it(tmp_path, cli):
    jobs = tmp_path / "jobs"
    graded = cli("resume", _old_job(jobs, "graded", agent="predictions", model="m", sources=["preds.jsonl"]))
    assert graded.exit_code == 2, graded.output
    message = " ".join(graded.output.split())
    assert "`lancebench grade` made this job" in message
    assert f"lancebench grade -p TASKS --predictions preds.jsonl -o {jobs} --job-name graded" in message
    lost = cli("resume", _old_job(jobs, "moved", agent="oracle", sources=["gone/tasks"]))
    assert lost.exit_code == 2, lost.output
    message = " ".join(lost.output.split())
    assert "sources: 'gone/tasks' is neither a dataset nor a folder" in message and "Traceback" not in message
    assert f"lancebench run -p TASKS -a oracle -o {jobs} --job-name moved" in message
    dataset = cli("resume", _old_job(jobs, "mini", agent="oracle", sources=["mini"], task_filters=["funcy-split-keys"]),
                  "--dry-run")
    assert dataset.exit_code == 0, dataset.output
    assert "lancebench run -d mini -a oracle -t funcy-split-keys" in " ".join(dataset.stderr.split())
    assert re.findall(r"^  (\S+) #0: run", dataset.stdout, re.M) == ["funcy-split-keys"]


@pytest.mark.parametrize("args,refused", [
    (["-a", "oracle", "--max-steps", "3"], "-a oracle does not read --max-steps: leave it out"),
    (["-a", "nop", "--max-cost", "1", "--ao", "temperature=0"],
     "-a nop does not read --max-cost, --ao temperature=...: leave them out"),
    (["-a", "oracle", "--seed", "0"], "-a oracle does not read --seed"),
    (["-a", "random", "--max-steps", "2"], "-a random does not read --max-steps: leave it out (--max-steps and "
     "--max-cost limit agents that call a model, --seed seeds the random agent; -a random takes only seed)"),
    (["-a", "script:/bin/true", "--ao", "x=1"], "-a script:/bin/true does not read --ao x=...: leave it out"),
    (["-a", "random", "--seed", "3"], None),
])
def test_limits_and_options_the_agent_never_reads_are_refused(tmp_path, cli, args, refused):
    # before: -a oracle --max-steps 3 was accepted, ignored and recorded in the job's configuration
    proc = cli("run", "-p", CALC, *args, "-o", tmp_path / "jobs", "--dry-run")
    if refused is None:
        assert proc.exit_code == 0, proc.output
        return
    assert proc.exit_code == 2 and refused in " ".join(proc.output.split()), proc.output

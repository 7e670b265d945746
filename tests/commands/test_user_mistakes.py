"""User mistakes found by using lancebench from the README as a new evaluator would: each ends in
one line naming what is wrong and the fix (exit 2), never a silent success or a long run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CALC = REPO / "tests" / "fixtures" / "tasks" / "calc"


def lb(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "lancebench"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "lancebench.cli"]
    env = dict(os.environ, COLUMNS="400", NO_COLOR="1", TERM="dumb")
    return subprocess.run([*cmd, *map(str, args)], capture_output=True, text=True, timeout=300, env=env, cwd=cwd)


@pytest.mark.parametrize("command", [["check", "-d", "mini"], ["run", "-d", "mini", "-a", "nop"]])
def test_a_task_glob_that_matches_nothing_is_an_error_naming_the_tasks(tmp_path, command):
    # before: `check -t zzz*` printed an empty table, "0/0 tasks ok" and exited 0
    proc = lb(*command, "-t", "zzz*", "-o", tmp_path / "jobs", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "no task of mini matches -t zzz*" in proc.stderr
    assert "boltons-bytes2human-boundary-manager" in proc.stderr  # the names a glob can match
    assert not (tmp_path / "jobs").exists() or not any((tmp_path / "jobs").rglob("result.json"))


@pytest.mark.parametrize("k", ["0", "-1"])
def test_check_needs_at_least_one_oracle_run(tmp_path, k):
    # before: -k -1 started a check of every task (and -k 0 would pass the oracle without running it)
    proc = lb("check", "-p", CALC, "-k", k, "-o", tmp_path / "jobs", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Invalid value for '-k'" in proc.stderr
    assert not (tmp_path / "jobs").exists()


def test_grade_takes_a_dataset_like_run(tmp_path):
    # before: `predictions` wrote a job of `run -d mini` as predictions, but `grade` took only -p,
    # so grading them back needed the path of the bundled tasks inside the installed package
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"instance_id": "no-such-task", "model_name_or_path": "m", "model_patch": ""}\n')
    proc = lb("grade", "-d", "mini", "--predictions", preds, "-o", tmp_path / "jobs", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "1 prediction(s) name no task of -d mini: no-such-task" in proc.stderr
    assert "no instance_id matches a task name of mini" in proc.stderr
    both = lb("grade", "-d", "mini", "-p", CALC, "--predictions", preds, "-o", tmp_path / "jobs", cwd=tmp_path)
    assert both.returncode == 2 and "pass exactly one of -p PATH" in both.stderr


def test_validate_finds_the_oracle_of_each_step(tmp_path):
    # before: a multi-step task whose steps carry their own solutions was told that
    # solution/solve.sh is missing and the oracle cannot validate it
    import shutil
    task = tmp_path / "two-step"
    shutil.copytree(REPO / "tests" / "fixtures" / "harbor" / "two-step", task)
    proc = lb("tasks", "validate", task, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "solve.sh" not in proc.stdout
    (task / "steps" / "two" / "solution" / "solve.sh").unlink()
    proc = lb("tasks", "validate", task, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no steps/<name>/solution/solve.sh for step(s) two and no solution/solve.sh" in proc.stdout


@pytest.mark.parametrize("backend,message", [("dockr", "unknown backend 'dockr'; choose one of local, docker"),
                                             ("nosuchmod:X", "backend 'nosuchmod:X': cannot import nosuchmod")])
def test_a_mistyped_backend_stops_before_the_job_folder_records_it(tmp_path, backend, message):
    # before: the job folder was written first with backend "dockr" in its configuration, so the
    # corrected command was refused ("this job was run with another configuration")
    proc = lb("run", "-p", CALC, "-a", "nop", "--backend", backend, "-o", tmp_path / "jobs", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr
    assert not (tmp_path / "jobs").exists()


def test_a_job_file_names_the_unknown_key_of_an_agent_entry(tmp_path):
    # before: "agents[1]: write a name or a mapping of agent, agent_options, ..." without the key
    spec = tmp_path / "job.yaml"
    spec.write_text(f"tasks:\n  path: [{CALC}]\nagents:\n  - oracle\n  - agent: nop\n    max_stepz: 3\n")
    proc = lb("run", "-c", spec, "-o", tmp_path / "jobs", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{spec}: agents[1]: unknown key max_stepz: write a name or a mapping of agent," in proc.stderr
    assert not (tmp_path / "jobs").exists()


@pytest.mark.parametrize("key,value,fix", [("agent", "[oracle]", "`agents: [oracle]`"),
                                           ("agent", "[oracle, nop]", "`agents: [oracle, nop]`"),
                                           ("model", "[local, openai/gpt-4o-mini]",
                                            "`models: [local, openai/gpt-4o-mini]`")])
def test_a_list_under_a_singular_key_of_a_job_file_hints_at_the_plural(tmp_path, key, value, fix):
    # before: "job.yaml: agent: Input should be a valid string; got ['oracle']", without the fix
    spec = tmp_path / "job.yaml"
    other = "agent: mini-swe-agent\n" if key == "model" else ""
    spec.write_text(f"tasks:\n  path: [{CALC}]\n{key}: {value}\n{other}")
    proc = lb("run", "-c", spec, "-o", tmp_path / "jobs", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith(f"error: {spec}: {key}: ") and "is a list" in proc.stderr, proc.stderr
    assert f"write {fix} instead" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "jobs").exists()
    spec.write_text(f"tasks:\n  path: [{CALC}]\nagents: [oracle]\n")  # the fix it names is accepted
    assert lb("run", "-c", spec, "-o", tmp_path / "jobs", "--dry-run", cwd=tmp_path).returncode == 0


def test_tasks_validate_takes_a_dataset(tmp_path):
    # before: only task folders, so checking the bundled dataset needed its path inside the package
    bundled = sorted(p.name for p in (REPO / "src" / "lancebench" / "datasets" / "mini" / "tasks").iterdir()
                     if (p / "task.toml").is_file())
    proc = lb("tasks", "validate", "-d", "mini", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("ok ")] == bundled
    assert f"{len(bundled)} valid, 0 problem(s)" in proc.stdout
    neither = lb("tasks", "validate", cwd=tmp_path)
    assert neither.returncode == 2 and "give task folders (PATH...) or -d DATASET" in neither.stderr


def test_tasks_left_out_are_named_again_at_the_end_of_the_run(tmp_path):
    # before: a broken task was listed only above the run's output, and the run ended with exit 5
    # and no word about it under the results
    import shutil
    tasks = tmp_path / "tasks"
    shutil.copytree(CALC, tasks / "calc")
    broken = tasks / "broken"
    shutil.copytree(CALC, broken)
    (broken / "instruction.md").unlink()
    proc = lb("run", "-p", tasks, "-a", "nop", "-o", tmp_path / "jobs", cwd=tmp_path)
    assert proc.returncode == 5, proc.stdout + proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("left out: 1 task problem(s), listed above the results and in ") and "(exit 5)" in last
    assert (tmp_path / "jobs" / "tasks__nop" / "task_errors.json").is_file()


def test_datasets_gives_a_source_error_in_full(tmp_path):
    # before: the message was cut at 160 characters ("... or leave --source out to downl")
    proc = lb("datasets", "--source", tmp_path / "nope.csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "or leave --source out to download it" in " ".join(proc.stdout.replace("│", " ").split())


def test_each_finished_trial_is_one_line_in_a_log(tmp_path):
    # before: on a pipe (80 columns) the reason was wrapped over several lines, cut mid-word
    exe = Path(sys.executable).parent / "lancebench"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "lancebench.cli"]
    env = dict(os.environ, COLUMNS="60", NO_COLOR="1", TERM="dumb")
    proc = subprocess.run([*cmd, "run", "-p", CALC, "-a", "nop", "-o", tmp_path / "jobs"], capture_output=True,
                          text=True, timeout=300, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # (the phase lines of a run off a terminal start the same way: "  calc #0: agent (after 1s in ...)")
    (line,) = [x for x in proc.stderr.splitlines() if x.startswith("  calc #0: unresolved")]
    assert line == "  calc #0: unresolved (tests not passing: test_calc::test_add (failed), " \
                   "test_calc::test_add_negative (failed))"


@pytest.mark.parametrize("name", ["../escape", "a/../../escape", "/tmp/escape", ".", ""])
@pytest.mark.parametrize("command", ["run", "grade"])
def test_a_job_name_is_a_folder_under_the_jobs_folder(tmp_path, name, command):
    # before: --job-name ../escape (or an absolute path) wrote the job outside -o
    jobs = tmp_path / "out" / "jobs"
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"instance_id": "calc", "model_name_or_path": "m", "model_patch": ""}\n')
    args = ["-a", "nop"] if command == "run" else ["--predictions", preds]
    proc = lb(command, "-p", CALC, *args, "-o", jobs, "--job-name", name, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"--job-name {name!r}: give a folder name under -o (relative, without '..')" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_mistyped_judge_provider_stops_before_the_job(tmp_path):
    # before: the job ran, and every judge failed with litellm's 400 text about Huggingface
    proc = lb("run", "-p", CALC, "-a", "oracle", "--judge-model", "opneai/gpt-4o-mini", "-o", tmp_path / "jobs",
              cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "--judge-model opneai/gpt-4o-mini: provider 'opneai' is not one litellm knows (did you mean openai" \
        in proc.stderr
    assert not (tmp_path / "jobs").exists()


def test_the_model_client_names_an_unknown_provider():
    # analyze and calibrate call the client directly: the same sentence, not litellm's 400 text
    from lancebench.errors import ModelError
    from lancebench.llm.client import LLMClient
    with pytest.raises(ModelError, match=r"^model opneai/x: provider 'opneai' is not one litellm knows"):
        LLMClient("opneai/x", max_retries=0).complete([{"role": "user", "content": "hi"}])


def test_a_harbor_typo_leaves_the_task_out_of_a_run_unless_lenient(tmp_path):
    # before: `[agent] timeout_secs` ran with the default timeout in silence (issue 28)
    task = tmp_path / "typo"
    shutil.copytree(CALC, task)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace("[agent]\n", "[agent]\ntimeout_secs = 5\n", 1))
    strict = lb("run", "-p", task, "-a", "nop", "-o", tmp_path / "jobs", cwd=tmp_path)
    assert strict.returncode != 0 and "did you mean 'timeout_sec'?" in strict.stderr + strict.stdout
    assert not (tmp_path / "jobs").exists() or not list((tmp_path / "jobs").rglob("result.json"))
    lenient = lb("run", "-p", task, "-a", "nop", "-o", tmp_path / "jobs", "--lenient", cwd=tmp_path)
    assert lenient.returncode == 0, lenient.stderr
    assert len(list((tmp_path / "jobs").rglob("result.json"))) == 1


@pytest.mark.parametrize("command,option", [
    (["check", "-p", CALC, "-o", "/proc/lancebench-jobs"], "-o /proc/lancebench-jobs: /proc is not writable"),
    (["export", "-p", CALC, "-o", "/proc/lancebench-export"], "-o /proc/lancebench-export: /proc is not writable"),
    (["show", REPO / "tests" / "fixtures" / "harbor" / "jobs" / "es-oracle", "-f", "csv", "-o", "/proc/trials.csv"],
     "-o /proc/trials.csv: cannot be written"),
])
def test_an_output_that_cannot_be_written_is_named(tmp_path, command, option):
    # before: `check`, `export` and `show -f csv -o` in a folder they cannot write (a read-only
    # mount, /proc) ended in "internal error: OSError ... (a bug in lancebench)", exit 70
    proc = lb(*command, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert option in proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr


def test_resuming_an_edited_job_file_names_the_fixes_resume_has(tmp_path):
    # before: resume said "pass --new-job ... or --job-name NAME", options resume does not take
    jobs = tmp_path / "jobs"
    first = lb("run", "-p", CALC, "-a", "random", "-o", jobs, "--job-name", "rnd", "-q", cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    spec = jobs / "rnd" / "job.yaml"
    text = spec.read_text()
    assert "seed: 0\n" in text
    spec.write_text(text.replace("seed: 0\n", "seed: 5\n"))
    proc = lb("resume", jobs / "rnd", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "agent_options.seed: 0 -> 5" in proc.stderr
    assert f"lancebench run -c {spec} --new-job" in proc.stderr
    assert "--job-name" not in proc.stderr and "Traceback" not in proc.stderr
    assert len(list((jobs / "rnd" / "trials").glob("*/result.json"))) == 1  # the recorded trial is kept
    again = lb("run", "-c", spec, "--new-job", "-q", cwd=tmp_path)  # the fix it names works
    assert again.returncode == 0, again.stdout + again.stderr
    assert (jobs / "rnd-2" / "job.yaml").read_text().count("seed: 5\n") == 1


def test_predictions_say_why_choice_trials_are_left_out(tmp_path):
    # before: "no code trial of attempt 0 with a captured patch" (or "N prediction(s) written" for
    # fewer tasks than the job ran), with no word on the choice trials it had left out
    jobs = tmp_path / "jobs"
    run = lb("run", "-d", "mini", "-a", "oracle", "-t", "texttable-nan-cell-manager", "-o", jobs, "--job-name", "c",
             "-q", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    proc = lb("predictions", jobs / "c", "-o", tmp_path / "preds.jsonl", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "(1 choice trial(s) left out: a prediction is a patch" in " ".join(proc.stderr.split())
    assert not (tmp_path / "preds.jsonl").exists()


def test_python_dash_m_lancebench_runs_the_command_line(tmp_path):
    # before: "No module named lancebench.__main__; 'lancebench' is a package and cannot be directly executed"
    proc = subprocess.run([sys.executable, "-m", "lancebench", "tasks", "validate", CALC], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path, env=dict(os.environ, COLUMNS="400"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok calc (code," in proc.stdout and "1 valid, 0 problem(s)" in proc.stdout


def test_two_task_folders_of_one_name_are_a_task_error(tmp_path):
    # before: a/calc and b/calc under -p ran as two trials "calc #0"; with the same files they had
    # the same trial id (one folder, counted once by one run and twice by the next)
    for side in ("a", "b"):
        shutil.copytree(CALC, tmp_path / "tasks" / side / "calc")
    proc = lb("run", "-p", tmp_path / "tasks", "-a", "nop", "-o", tmp_path / "jobs", "--dry-run", cwd=tmp_path)
    assert proc.returncode == 5, proc.stdout + proc.stderr
    err = " ".join(proc.stderr.split())
    a, b = tmp_path / "tasks" / "a" / "calc", tmp_path / "tasks" / "b" / "calc"
    assert f"task error {b}: task name 'calc' is taken by {a}" in err
    assert "rename one of the folders" in err
    assert proc.stdout.count("calc #0: run") == 1
    # tasks validate says the same (it said "2 valid"); one folder named twice is one task
    proc = lb("tasks", "validate", tmp_path / "tasks", a, cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    text = " ".join((proc.stdout + proc.stderr).split())
    assert f"task error {b}: task name 'calc' is taken by {a}" in text and "1 valid, 1 problem(s)" in text


def test_a_task_toml_given_for_its_folder_names_the_folder(tmp_path):
    # before: "calc/task.toml: no task folders found (no task.toml below it) (pass a task folder)"
    proc = lb("tasks", "validate", CALC / "task.toml", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    text = " ".join((proc.stdout + proc.stderr).split())
    assert f"{CALC / 'task.toml'}: is a file, not a task folder (pass the folder holding task.toml: {CALC})" in text


def test_resuming_a_harbor_job_says_it_is_one(tmp_path):
    # before: "is not a job folder (no job.json)", of a folder `show` reads as a Harbor job
    harbor_job = REPO / "tests" / "fixtures" / "harbor" / "jobs" / "es-oracle"
    proc = lb("resume", harbor_job, "--dry-run", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "is a Harbor job folder" in proc.stderr and "harbor jobs resume -p" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert lb("show", harbor_job, cwd=tmp_path).returncode == 0

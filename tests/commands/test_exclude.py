"""``-x GLOB`` / ``--exclude GLOB`` on run, check and tasks validate (as Harbor's ``-x``): tasks
whose name matches are left out, after ``-t``; leaving out every task is an error (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TASKS = REPO / "tests" / "fixtures" / "tasks"  # calc (code), pick (choice), runner-ids, swelancer-ic-standin


def lb(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "lancebench"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "lancebench.cli"]
    env = dict(os.environ, COLUMNS="400", NO_COLOR="1", TERM="dumb")
    return subprocess.run([*cmd, *map(str, args)], capture_output=True, text=True, timeout=300, env=env, cwd=cwd)


def test_tasks_validate_leaves_out_excluded_tasks(tmp_path):
    proc = lb("tasks", "validate", TASKS, "-x", "pick", "--exclude", "swelancer-*", "-x", "runner-*", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok calc" in proc.stdout and "pick" not in proc.stdout and "swelancer" not in proc.stdout
    assert "runner-ids" not in proc.stdout
    assert "1 valid, 0 problem(s)" in proc.stdout


def test_run_leaves_out_excluded_tasks(tmp_path):
    jobs = tmp_path / "jobs"
    proc = lb("run", "-p", TASKS, "-a", "oracle", "-x", "calc", "-x", "swelancer*", "-x", "runner-*", "-o", jobs,
              "--job-name", "j", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tasks = [json.loads(p.read_text())["task"] for p in (jobs / "j").rglob("result.json")]
    assert tasks == ["pick"]


@pytest.mark.parametrize("command", [["run", "-a", "nop"], ["check"]])
def test_excluding_every_task_is_an_error(tmp_path, command):
    proc = lb(*command, "-p", TASKS / "calc", "-x", "c*", "-o", tmp_path / "jobs", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "-x c* leaves out every task" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "jobs").exists() or not any((tmp_path / "jobs").rglob("result.json"))

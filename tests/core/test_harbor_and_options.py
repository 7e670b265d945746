"""Harbor-only tasks on the local backend, job.json across runs, and --agent-option (regressions
from a review by a new user)."""

from __future__ import annotations

import json
import shutil

import pytest
from lbtest import TASKS, lb

from lancebench.commands.run import parse_agent_options
from lancebench.errors import ConfigError


def _harbor_copy(shared):
    """calc as a pure Harbor task: no [lancebench] table, no setup.sh, only a Dockerfile."""
    dest = shared / "harbor-calc"
    shutil.copytree(TASKS / "calc", dest)
    (dest / "environment" / "setup.sh").unlink()
    toml = (dest / "task.toml").read_text()
    (dest / "task.toml").write_text(toml[: toml.index("[lancebench]")])
    return dest


def test_harbor_task_without_local_recipe_fails_at_plan_time(shared, jobs):
    task = _harbor_copy(shared)
    proc = lb("tasks", "validate", task, check=True)
    assert "no [lancebench.local] recipe" in proc.stdout and "earns $0" in proc.stdout
    proc = lb("run", "-p", task, "-a", "oracle", "-o", jobs, check=False)
    # one line naming task.toml and the fix; no invalid trial recorded (issue 14: a rerun with
    # --backend docker used to reuse those invalid trials)
    assert "--backend local cannot run this task" in proc.stderr and "run it with --backend docker" in proc.stderr
    assert "task.toml" in proc.stderr
    assert not list(jobs.rglob("result.json"))


def test_job_json_follows_the_latest_run(jobs):
    lb("run", "-p", TASKS / "pick", "-a", "nop", "-o", jobs, "--job-name", "j", check=True)
    first = json.loads((jobs / "j" / "job.json").read_text())
    lb("run", "-p", TASKS / "pick", "-a", "nop", "-o", jobs, "--job-name", "j", "-k", "2", check=True)
    second = json.loads((jobs / "j" / "job.json").read_text())
    assert (first["attempts"], second["attempts"]) == (1, 2)
    assert second["created_at"] == first["created_at"]
    assert len(json.loads((jobs / "j" / "plan.json").read_text())) == 2
    proc = lb("run", "-p", TASKS / "pick", "-a", "oracle", "-o", jobs, "--job-name", "j", check=False)
    assert proc.returncode == 2 and "agent: nop -> oracle" in proc.stderr, proc.stderr


def test_agent_options_parse_json_values():
    assert parse_agent_options(["temperature=0", 'prices={"input": 0.5}', "mode=text", "x=a=b"]) == {
        "temperature": 0, "prices": {"input": 0.5}, "mode": "text", "x": "a=b"}
    with pytest.raises(ConfigError, match="KEY=VALUE"):
        parse_agent_options(["temperature"])


def test_validate_warns_about_a_browser_tasks_app_server(shared):
    """A browser task without ``app_server`` (its server runs as the runner's user), and one that
    names it while its test.sh never reads LANCEBENCH_APP_SERVER (two servers), are warned about;
    the bundled browser task is not."""
    bundled = TASKS.parents[2] / "src/lancebench/datasets/mini/tasks/expense-app-delete-wrong-row"
    unnamed, twice = shared / "unnamed", shared / "twice"
    for dest in (unnamed, twice):
        shutil.copytree(bundled, dest)
    toml = (unnamed / "task.toml").read_text()
    (unnamed / "task.toml").write_text("\n".join(x for x in toml.splitlines() if not x.startswith("app_server")))
    test_sh = (twice / "tests" / "test.sh").read_text()
    (twice / "tests" / "test.sh").write_text(test_sh.replace("LANCEBENCH_APP_SERVER", "OTHER_VARIABLE"))
    out = {p.name: lb("tasks", "validate", p, check=True).stdout for p in (bundled, unnamed, twice)}
    assert "app_server" not in out[bundled.name] and "LANCEBENCH_APP_SERVER" not in out[bundled.name]
    assert "a browser task without [lancebench] app_server" in out["unnamed"], out["unnamed"]
    assert "never reads LANCEBENCH_APP_SERVER" in out["twice"], out["twice"]

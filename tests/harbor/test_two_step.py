"""A Harbor multi-step task on the docker backend (issue 14, item 2): steps run in order in one
environment, each graded by its own tests over the shared ones; the trial reward follows
``mean`` or ``final``; a ``min_reward`` gate stops later steps; per-step results are recorded.
The same fixture gives the same rewards under Harbor 0.25."""

from __future__ import annotations

import json

import pytest
from docker_support import docker_skip_reason
from harbor_support import FIXTURES, copy_fixture, harbor_reward, harbor_skip_reason, run_harbor, run_lancebench
from lbtest import agent, lb

pytestmark = pytest.mark.skipif(docker_skip_reason() is not None, reason=str(docker_skip_reason()))
TASK = FIXTURES / "two-step"
FIRST_ONLY = agent("first_step_only.sh")


def _steps(r):
    return [(s["name"], s["status"], s["rewards"]) for s in r["steps"]]


def test_reference_solution_gets_1_with_both_steps_graded(tmp_path):
    (r,) = run_lancebench(TASK, "oracle", tmp_path / "jobs")
    assert (r["status"], r["rewards"]) == ("resolved", {"reward": 1.0}), r
    assert _steps(r) == [("one", "resolved", {"reward": 1.0}), ("two", "resolved", {"reward": 1.0})]


def test_nop_gets_0(tmp_path):
    (r,) = run_lancebench(TASK, "nop", tmp_path / "jobs")
    assert (r["status"], r["rewards"]) == ("unresolved", {"reward": 0.0}), r
    assert [s["status"] for s in r["steps"]] == ["unresolved", "unresolved"]
    # the trial folder keeps every step's instruction (before: the first step's alone)
    kept = (tmp_path / "jobs" / "two-step-nop" / "trials" / r["trial_id"] / "instruction.md").read_text()
    one, two = ((TASK / "steps" / n / "instruction.md").read_text().strip() for n in ("one", "two"))
    assert kept == f"## Step 1 of 2: one\n\n{one}\n\n## Step 2 of 2: two\n\n{two}\n"


def test_first_step_only_gets_half_under_mean(tmp_path):
    (r,) = run_lancebench(TASK, FIRST_ONLY, tmp_path / "jobs")
    # mean over the two graded steps: (1 + 0) / 2
    assert (r["status"], r["rewards"]) == ("unresolved", {"reward": 0.5}), r
    assert _steps(r) == [("one", "resolved", {"reward": 1.0}), ("two", "unresolved", {"reward": 0.0})]


def test_first_step_only_gets_0_under_final(shared, tmp_path):
    task = copy_fixture("two-step", shared)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace('schema_version = "1.4"',
                                              'schema_version = "1.4"\nmulti_step_reward_strategy = "final"'))
    (r,) = run_lancebench(task, FIRST_ONLY, tmp_path / "jobs")
    assert r["rewards"] == {"reward": 0.0} and len(r["steps"]) == 2, r


def test_min_reward_gate_stops_later_steps(shared, tmp_path):
    task = copy_fixture("two-step", shared)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace('name = "one"', 'name = "one"\nmin_reward = 1.0'))
    (r,) = run_lancebench(task, "nop", tmp_path / "jobs")
    assert _steps(r) == [("one", "unresolved", {"reward": 0.0})], r  # step two never ran
    assert "below min_reward 1" in r["steps"][0]["stopped"]
    assert r["rewards"] == {"reward": 0.0}  # the mean over the graded steps only, as in Harbor
    # before: "mean reward 0 < 1 (one unresolved)", silent on the step that never ran
    assert r["reason"] == "mean reward 0 < 1 (step one unresolved; not run: two)", r["reason"]


@pytest.mark.peer
@pytest.mark.skipif(harbor_skip_reason() is not None, reason=str(harbor_skip_reason()))
@pytest.mark.parametrize("agent_name,reward", [("oracle", 1.0), ("nop", 0.0)])
def test_harbor_gives_the_same_rewards(tmp_path, agent_name, reward):
    (h,) = run_harbor(TASK, agent_name, tmp_path / "hjobs")
    (r,) = run_lancebench(TASK, agent_name, tmp_path / "jobs")
    assert harbor_reward(h) == r["rewards"] == {"reward": reward}
    assert [s["verifier_result"]["rewards"] for s in h["step_results"]] == [s["rewards"] for s in r["steps"]]


@pytest.mark.parametrize("old,table", [('command = "test -f /app/a.txt"', "environment.healthcheck"),
                                       ('command = "test -f /app/b.txt"', "steps.two.healthcheck")])
def test_failing_health_check_makes_the_trial_invalid_with_the_reason(shared, tmp_path, old, table):
    task = copy_fixture("two-step", shared)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace(old, 'command = "test -f /app/missing"'))
    (r,) = run_lancebench(task, "oracle", tmp_path / "jobs")
    assert r["status"] == "invalid", r
    assert f"health check [{table}] failed 2 times in a row" in r["reason"] and "/app/missing" in r["reason"]
    where = "agent" if table == "environment.healthcheck" else "steps.two.agent"  # the structured error (issue 27)
    assert (r["error"]["kind"], r["error"]["where"]) == ("TrialInvalid", where), r["error"]
    assert r["error"]["message"] in r["reason"] or r["reason"] in r["error"]["message"]


def test_check_grades_the_base_with_each_steps_verifier(tmp_path):
    # before: `check` ran the shared tests/test.sh on the base, which a multi-step task does not
    # have: "the verifier is broken on the untouched repository (... exit code 127)", for every
    # multi-step task
    proc = lb("check", "-p", TASK, "--backend", "docker", "-k", "1", "-o", tmp_path / "jobs",
              "--json-out", tmp_path / "check.json")
    verdict = json.loads((tmp_path / "check.json").read_text())
    assert proc.returncode == 0 and verdict["ok"], verdict
    (task,) = verdict["tasks"]
    assert (task["oracle"], task["nop"], task["problems"]) == (["resolved"], "unresolved", [])

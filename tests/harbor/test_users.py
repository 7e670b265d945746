"""Per-phase users (issue 14): on the docker backend the agent's commands (the oracle's solve.sh
included) run as ``[agent] user`` and the verifier's test.sh as ``[verifier] user``, a step's own
``user`` overriding the task's; the same fixture gives the same rewards under Harbor 0.25."""

from __future__ import annotations

import pytest
from docker_support import docker_skip_reason
from harbor_support import FIXTURES, copy_fixture, harbor_reward, harbor_skip_reason, run_harbor, run_lancebench

from lancebench.task import load_task
from lancebench.task.settings import phase_user
from lancebench.task.support import task_unsupported

pytestmark = pytest.mark.skipif(docker_skip_reason() is not None, reason=str(docker_skip_reason()))
TASK = FIXTURES / "users"


def test_each_phase_runs_as_its_user(tmp_path):
    (r,) = run_lancebench(TASK, "oracle", tmp_path / "jobs")
    # test.sh gives 1 only when solve.sh ran as builder and test.sh runs as checker
    assert (r["status"], r["rewards"]) == ("resolved", {"reward": 1.0}), r


def test_without_the_users_the_same_task_gets_0(shared, tmp_path):
    task = copy_fixture("users", shared)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace('user = "checker"\n', "").replace('user = "builder"\n', ""))
    assert phase_user(load_task(task), "agent") is None
    (r,) = run_lancebench(task, "oracle", tmp_path / "jobs")  # both phases run as the image's user, root
    assert r["rewards"] == {"reward": 0.0}, r


STEP_TEST = """#!/bin/bash
mkdir -p /logs/verifier
[ "$(cat /app/{file} 2>/dev/null)" = {agent} ] && [ "$(id -un)" = {verifier} ] && echo 1 > /logs/verifier/reward.txt \\
  || echo 0 > /logs/verifier/reward.txt
"""


def test_a_steps_users_override_the_tasks(shared, tmp_path):
    task = copy_fixture("users", shared)
    toml = task / "task.toml"
    toml.write_text(toml.read_text() + '\n[[steps]]\nname = "one"\n\n[[steps]]\nname = "two"\n'
                    '[steps.agent]\nuser = "checker"\n[steps.verifier]\nuser = "builder"\n')
    for name, file, agent, verifier in (("one", "agent_user.txt", "builder", "checker"),
                                        ("two", "agent_user2.txt", "checker", "builder")):
        d = task / "steps" / name
        (d / "tests").mkdir(parents=True)
        (d / "solution").mkdir()
        (d / "instruction.md").write_text(f"Write `id -un` to /app/{file}.\n")
        (d / "solution" / "solve.sh").write_text(f"#!/bin/bash\nid -un > /app/{file}\n")
        (d / "tests" / "test.sh").write_text(STEP_TEST.format(file=file, agent=agent, verifier=verifier))
    assert [phase_user(load_task(task), "verifier", step=s) for s in ("one", "two")] == ["checker", "builder"]
    (r,) = run_lancebench(task, "oracle", tmp_path / "jobs")
    assert [(s["name"], s["rewards"]) for s in r["steps"]] == [("one", {"reward": 1.0}), ("two", {"reward": 1.0})], r


def test_validate_says_the_user_fields_are_honoured_on_docker_only():
    lines = task_unsupported(load_task(TASK))
    assert [line.split(" ")[0] for line in lines] == ["verifier.user", "agent.user"]
    assert all("docker backend only" in line for line in lines)


@pytest.mark.peer
@pytest.mark.skipif(harbor_skip_reason() is not None, reason=str(harbor_skip_reason()))
def test_harbor_gives_the_same_reward(tmp_path):
    (h,) = run_harbor(TASK, "oracle", tmp_path / "hjobs")
    (r,) = run_lancebench(TASK, "oracle", tmp_path / "jobs")
    assert harbor_reward(h) == r["rewards"] == {"reward": 1.0}

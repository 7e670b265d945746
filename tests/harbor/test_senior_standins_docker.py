"""Stand-ins written here in the shape of Senior SWE-Bench's released tasks (issue 21), on docker:
a ``design`` task whose verifier runs a validation driver that makes its parameters file
read-only for everyone and then rewrites it as root (with every capability dropped, root could
not, and oracle and nop were both ``invalid``), stories in the release's ``validation_spec.toml``
shape, and the release's flat reward keys with taste scores; an ``investigate`` task whose
native tests are the signal. Oracle resolves both with the task's rewards; nop resolves neither;
the tasteful solve rate comes from the task's own taste keys; the release's metadata stays in
the results."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from docker_support import docker_skip_reason
from harbor_support import FIXTURES, copy_fixture, harbor_reward, harbor_skip_reason, run_harbor, run_lancebench
from lbtest import lb, results

pytest.importorskip("docker", reason="the Docker SDK is missing: pip install 'lancebench[docker]'")
_REASON = docker_skip_reason()
pytestmark = [pytest.mark.docker, pytest.mark.skipif(_REASON is not None, reason=_REASON or "")]
TASKS = ("senior-design", "senior-investigate")


def _run(shared: Path, jobs: Path, agent: str) -> dict[str, dict]:
    folder = shared / "senior"
    if not folder.exists():
        folder.mkdir()
        for name in TASKS:
            shutil.copytree(FIXTURES / name, folder / name)
    # both tasks at once (-n 2): their containers' starts and waits overlap
    lb("run", "-p", folder, "-a", agent, "--backend", "docker", "-o", jobs, "--job-name", agent, "-n", "2",
       check=True, timeout=900)
    return {r["task"]: r for r in results(jobs / agent)}


def test_oracle_resolves_both_standins_and_nop_neither(tmp_path, shared):
    oracle = _run(shared, tmp_path / "jobs", "oracle")
    design, investigate = oracle["senior-design"], oracle["senior-investigate"]
    assert design["status"] == "resolved", design["reason"]
    assert design["rewards"] == {"reward": 1.0, "correctness": 1.0, "verifier_score": 1.0, "validation_score": 1.0,
                                 "taste_practice_alignment": 4.0, "taste_relative_taste": 3.0, "taste_judge_ok": 1.0}
    assert investigate["status"] == "resolved", investigate["reason"]
    assert investigate["rewards"] == {"reward": 1.0, "correctness": 1.0, "verifier_score": 1.0}
    # the release's metadata stays with each result for the report's breakdowns
    assert design["taxonomy"] == {"task_type": "design", "stack": "python", "oracle_scope": "full",
                                  "origin": "stand-in"}
    # the driver's file was rewritten by root although its mode was 0444 and its owner another uid
    params = next((tmp_path / "jobs" / "oracle").rglob("sums_params.json"))
    assert json.loads(params.read_text())["passed"] is True

    nop = _run(shared, tmp_path / "jobs", "nop")
    assert {t: r["status"] for t, r in nop.items()} == {"senior-design": "unresolved",
                                                        "senior-investigate": "unresolved"}
    assert nop["senior-design"]["rewards"] == {"reward": 0.0, "correctness": 0.0, "verifier_score": 0.0,
                                               "validation_score": 0.0}

    shown = json.loads(lb("show", tmp_path / "jobs" / "oracle", "--json", check=True).stdout)
    metrics = shown.get("metrics", shown)
    # the design task's taste keys (4 and 3, both above a D) flag its solve; the investigate task
    # has none and no judge ran, so only the design task counts
    assert metrics["tasteful_solve_rate"] == 1.0
    assert metrics["tasteful_solve_rate_by_source"] == {"task": 1.0}


def test_tasks_show_gives_the_images_workdir_and_the_cpus_a_docker_run_uses(tmp_path):
    """Regression (issue 21): `tasks show` said workdir /app where the run used the image's
    WORKDIR, and cpus 4 where docker cut them to the engine's count; a run warns at plan time."""
    import docker

    from lancebench.commands.preflight import cpu_warnings
    from lancebench.task.load import load_task

    cli = docker.from_env()
    tag = f"lancebench-test/workdir:{tmp_path.name[-12:].lower().strip('_-') or 'x'}"
    (tmp_path / "ctx").mkdir()
    (tmp_path / "ctx" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /repo/calc\n")
    cli.images.build(path=str(tmp_path / "ctx"), tag=tag, rm=True)
    try:
        task = tmp_path / "task"
        shutil.copytree(FIXTURES / "senior-investigate", task)
        toml = (task / "task.toml").read_text().replace("memory_mb = 1024", f'memory_mb = 1024\ncpus = 64\n'
                                                         f'docker_image = "{tag}"')
        (task / "task.toml").write_text(toml)
        shown = json.loads(lb("tasks", "show", task, "--json", check=True).stdout)
        ncpu = cli.info()["NCPU"]
        assert shown["docker"]["workdir"] == "/repo/calc" and shown["workdir"] == "/app"
        assert shown["docker"]["cpus"] == ncpu and shown["docker"]["engine_cpus"] == ncpu
        assert f"asks for 64 CPUs; the engine has {ncpu}" in shown["docker"]["note"]
        (warning,) = cpu_warnings([load_task(task)], "docker")
        assert "key 'environment.cpus' asks for 64 CPUs" in warning and f"runs with {ncpu}" in warning
        assert cpu_warnings([load_task(task)], "local") == []
    finally:
        cli.images.remove(tag, force=True)


@pytest.mark.peer
@pytest.mark.skipif(harbor_skip_reason() is not None, reason=str(harbor_skip_reason()))
@pytest.mark.parametrize("name", TASKS)
def test_the_standins_give_the_same_reward_keys_as_harbor(name, shared, tmp_path):
    """Differential: Harbor 0.25 and lancebench on the same stand-in, oracle and nop: the same
    reward keys and values (Harbor's containers have the capabilities lancebench now keeps)."""
    task = copy_fixture(name, shared)
    for agent in ("oracle", "nop"):
        (theirs,) = run_harbor(task, agent, tmp_path / "harbor")
        (ours,) = run_lancebench(task, agent, tmp_path / "lancebench")
        assert ours["rewards"] == harbor_reward(theirs), (agent, ours["reason"], theirs.get("exception_info"))

"""The Ray executor on a real local Ray cluster (2 CPUs) with real bubblewrap sandboxes: the same
job gives the same statuses as the in-process executor, and a worker killed mid-trial leaves that
trial to be rerun (no result.json), not lost nor faked."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from rich.console import Console  # noqa: E402

from lancebench.backends.options import CHECKOUT_REPOS_ENV, BackendOptions  # noqa: E402
from lancebench.caches.cache import sub  # noqa: E402
from lancebench.commands.progress_lines import Display  # noqa: E402
from lancebench.commands.status import JobStatus  # noqa: E402
from lancebench.errors import ModelAuthError  # noqa: E402
from lancebench.results.paths import JobPaths  # noqa: E402
from lancebench.results.store import read_results  # noqa: E402
from lancebench.runner.executor import AgentRecipe  # noqa: E402
from lancebench.runner.job import JobOptions, plan, run_job, write_job_config  # noqa: E402
from lancebench.runner.ray_executor import RayExecutor, _pack_task, _record, _trial_task, worker_folder  # noqa: E402
from lancebench.sandbox.fstree import remove_tree  # noqa: E402
from lancebench.task.load import load_tasks  # noqa: E402
from lancebench.task.model import TaskPaths  # noqa: E402

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "llm"))
from scripted_server import Fail, scripted  # noqa: E402,F401  (the fixture)

FIXTURES = HERE.parent / "fixtures" / "tasks"


@pytest.fixture(scope="module")
def ray_cluster():
    """A local Ray cluster for this module; its workers can import ``ray_agents`` from this folder,
    and the same lancebench as this process (the driver's PYTHONPATH, e.g. a git worktree's src/)."""
    assert not ray.is_initialized()
    path = os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p)
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": path}})
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def tasks():
    found, errors = load_tasks([FIXTURES / "calc", FIXTURES / "pick"])
    assert not errors and sorted(t.name for t in found) == ["calc", "pick"]
    return found


def _statuses(results) -> dict:
    return {(r.task, r.attempt): r.status for r in results}


def _logged_run(tasks, opts) -> tuple[list, list[str]]:
    """Run the job as `lancebench run` off a terminal shows it: (results, the plain progress lines
    with their seconds left out, sorted: trials run side by side)."""
    console = Console(file=io.StringIO(), force_terminal=False, width=200)
    with Display(heartbeat_sec=3600).show(JobStatus(len(tasks) * opts.attempts, [], opts.concurrency),
                                          console) as on_result:
        results = asyncio.run(run_job(tasks, opts, on_result=on_result))
    return results, sorted(re.sub(r"after \d+s in", "after", line) for line in console.file.getvalue().splitlines())


def test_same_statuses_and_progress_lines_as_local_executor(ray_cluster, tasks, tmp_path):
    # before: off a terminal a Ray run printed no phase line (its workers' phases stayed there)
    for agent in ("oracle", "nop"):
        by_executor, lines = {}, {}
        for executor in ("local", "ray"):
            opts = JobOptions(name=f"{agent}-{executor}", jobs_dir=tmp_path, agent=AgentRecipe(agent), attempts=2,
                              concurrency=2, executor=executor)
            results, lines[executor] = _logged_run(tasks, opts)
            assert len(results) == 4
            assert _statuses(read_results(tmp_path / opts.name)) == _statuses(results)  # all on the driver's disk
            by_executor[executor] = _statuses(results)
        assert by_executor["ray"] == by_executor["local"]
        assert set(by_executor["ray"].values()) == {"resolved" if agent == "oracle" else "unresolved"}
        assert lines["ray"] == lines["local"], (lines["ray"], lines["local"])
        for (task, attempt), status in by_executor["local"].items():
            mine = [line.removeprefix(f"  {task} #{attempt}: ") for line in lines["ray"]
                    if line.startswith(f"  {task} #{attempt}: ")]
            assert [line for line in mine if not line.startswith(status)] == sorted(
                ["starting", "environment (after starting)", "agent (after environment)", "capture (after agent)",
                 "grading (after capture)"]), mine
            assert len([line for line in mine if line.startswith(status)]) == 1, mine  # its result line
    # the trial's files came back with its result: the patch, the agent's and the verifier's logs
    calc = next((tmp_path / "oracle-ray" / "trials").glob("calc__0__*"))
    assert "def add" in (calc / "patch.diff").read_text()
    assert (calc / "agent" / "oracle.log").is_file()
    assert (calc / "verifier" / "run-0" / "logs" / "junit.xml").is_file()
    assert not (calc / "ray-files-not-returned.txt").exists()


def test_worker_killed_mid_trial_is_rerun_not_lost(ray_cluster, tasks, tmp_path):
    pid_file = tmp_path / "worker.pid"
    opts = JobOptions(name="killed", jobs_dir=tmp_path / "jobs", concurrency=2, attempts=1,
                      agent=AgentRecipe("ray_agents:SleepyAgent", options={"pid_file": str(pid_file)}))
    write_job_config(opts, [])
    todo, kept = plan(tasks, opts)
    assert len(todo) == 2 and not kept
    executor = RayExecutor()
    recorded = []
    killed = []

    async def kill_worker_when_sleeping() -> None:
        deadline = time.monotonic() + 60
        while not pid_file.exists():
            assert time.monotonic() < deadline, "the agent never started on a Ray worker"
            await asyncio.sleep(0.1)
        pid = int(pid_file.read_text())
        assert pid != os.getpid()  # the trial runs in a Ray worker process, not in the driver
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    async def main() -> None:
        await asyncio.wait_for(asyncio.gather(executor.run(todo, opts.agent, opts.backend, opts.concurrency,
                                                           recorded.append),
                                              kill_worker_when_sleeping()), timeout=120)

    asyncio.run(main())
    assert killed
    trials = JobPaths(tmp_path / "jobs" / "killed").trials
    calc_dir = next(t.paths.root for t in todo if t.task.name == "calc")
    pick_dir = next(t.paths.root for t in todo if t.task.name == "pick")
    # the killed trial is lost, not recorded (no fake result); the other one went on and finished
    assert [r.task for r in recorded] == ["pick"]
    assert [(lt.task, lt.attempt) for lt in executor.lost] == [("calc", 0)]
    assert "Worker" in executor.lost[0].reason or "died" in executor.lost[0].reason, executor.lost[0].reason
    assert not (calc_dir / "result.json").exists()
    assert (pick_dir / "result.json").is_file()
    pick_before = (pick_dir / "result.json").read_bytes()
    calc_spec = next(t for t in todo if t.task.name == "calc")
    assert worker_folder(calc_spec).is_dir()  # what the killed worker left on its node; the pick one is gone
    assert not worker_folder(next(t for t in todo if t.task.name == "pick")).exists()
    assert remove_tree(worker_folder(calc_spec).parent) is None  # holds the killed sandbox's quota mount

    # the next run (in-process executor) reruns only the lost trial; every trial is recorded once
    again = JobOptions(**{**opts.__dict__, "executor": "local"})
    todo2, kept2 = plan(tasks, again)
    assert [t.task.name for t in todo2] == ["calc"] and [r.task for r in kept2] == ["pick"]
    results = asyncio.run(run_job(tasks, again))
    assert sorted((r.task, r.attempt) for r in results) == [("calc", 0), ("pick", 0)]
    on_disk = read_results(trials.parent)
    assert sorted(r.trial_id for r in on_disk) == sorted(t.trial_id for t in todo)
    assert sorted(p.name for p in trials.iterdir()) == sorted(t.trial_id for t in todo)
    assert (pick_dir / "result.json").read_bytes() == pick_before
    assert {r.task: r.status for r in on_disk} == {"calc": "unresolved", "pick": "unresolved"}


def test_model_auth_error_on_a_worker_stops_the_job(ray_cluster, tasks, tmp_path, scripted):  # noqa: F811
    ready = tmp_path / "ready"
    srv = scripted([Fail(401, "invalid api key")] * 2)  # the agent's call, the harness's plain request
    opts = JobOptions(name="refused", jobs_dir=tmp_path / "jobs", concurrency=2,
                      agent=AgentRecipe("ray_agents:RefusedAgent", model="openai/scripted", api_base=srv.api_base,
                                        options={"ready_file": str(ready)}))
    write_job_config(opts, [])
    todo, _ = plan(tasks, opts)
    recorded = []
    t0 = time.monotonic()
    with pytest.raises(ModelAuthError, match="refused the credentials"):
        asyncio.run(asyncio.wait_for(RayExecutor().run(todo, opts.agent, opts.backend, 2, recorded.append), 120))
    assert time.monotonic() - t0 < 60  # the sleeping trial was cancelled, not waited for
    assert ready.exists() and not recorded
    assert not any((t.paths.result).exists() for t in todo)


def test_a_node_without_the_task_folder_runs_the_shipped_copy(ray_cluster, tasks, tmp_path):
    """A remote node does not have the driver's task folder: the worker unpacks the tar the
    driver sent (once per task digest) and the trial runs from it; its files come back."""
    calc = next(t for t in tasks if t.name == "calc")
    elsewhere = dataclasses.replace(calc, paths=TaskPaths(tmp_path / "only-on-the-driver" / "calc"))
    opts = JobOptions(name="shipped", jobs_dir=tmp_path / "jobs", agent=AgentRecipe("oracle"))
    write_job_config(opts, [])
    (spec,), _ = plan([elsewhere], opts)
    shutil.rmtree(sub("ray-tasks") / calc.digest, ignore_errors=True)  # a cache: unpacked again below
    payload = ray.get(_trial_task.remote(spec, opts.agent, "local", _pack_task(calc)), timeout=120)
    assert (sub("ray-tasks") / calc.digest / "solution" / "solve.sh").is_file()
    result = _record(spec, payload)
    assert result.status == "resolved", result.reason
    assert read_results(tmp_path / "jobs" / "shipped") == [result]
    assert "def add" in spec.paths.patch.read_text()


def _checkout_task(tmp_path: Path) -> tuple[Path, Path]:
    """(a host git repository whose tree holds the right answer, a choice task whose workdir
    starts as that tree through [lancebench.local.checkout]): ``nop`` resolves it only when the
    snapshot was built, that is when the backend on the worker was allowed to read the repository."""
    repo = tmp_path / "App"
    repo.mkdir()
    (repo / "answer.json").write_text('{"selected_proposal_id": 1}\n')
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "PATH": "/usr/bin:/bin"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "answer"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)
    rev = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True,
                         text=True).stdout.strip()
    task = tmp_path / "tasks" / "checkout-pick"
    shutil.copytree(FIXTURES / "pick", task)
    with (task / "task.toml").open("a") as fh:
        fh.write(f'\n[lancebench.local]\nsetup = ""\n\n[lancebench.local.checkout]\nrepo = "{repo}"\nrev = "{rev}"\n')
    return repo, task


@pytest.mark.parametrize("executor", ["local", "ray"])
def test_backend_options_travel_with_each_trial(ray_cluster, tmp_path, monkeypatch, executor):
    """``--repo-path`` reaches the backend as an option, with the trial, on whichever worker runs
    it: no process variable carries it (the command sets none), and without it the task is invalid."""
    monkeypatch.delenv(CHECKOUT_REPOS_ENV, raising=False)
    repo, folder = _checkout_task(tmp_path)
    [task], errors = load_tasks([folder])
    assert not errors
    statuses = {}
    for name, options in (("refused", BackendOptions()), ("allowed", BackendOptions(checkout_repos=(repo,)))):
        opts = JobOptions(name=name, jobs_dir=tmp_path / "jobs", agent=AgentRecipe("nop"), executor=executor,
                          backend_options=options)
        [result] = asyncio.run(run_job([task], opts))
        statuses[name] = (result.status, result.reason or "")
    assert statuses["refused"][0] == "invalid" and "--repo-path" in statuses["refused"][1], statuses
    assert statuses["allowed"][0] == "resolved", statuses
    assert CHECKOUT_REPOS_ENV not in os.environ

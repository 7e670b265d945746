"""Whole jobs with the `mini-swe-agent` agent against the scripted server: the real CLI, the real
runner, bubblewrap sandboxes and grading. The model's replies are exact, so the outcome is known."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from scripted_server import Fail, Reply

from lancebench.agents.mini_swe import SUBMIT_MARKER
from lancebench.agents.trajectory import read_trajectory
from lancebench.runner.executor import AgentRecipe
from lancebench.runner.job import JobOptions, run_job
from lancebench.runner.model_session import model_session
from lancebench.task.load import load_task

pytestmark = pytest.mark.slow

CALC = Path(__file__).parents[1] / "fixtures" / "tasks" / "calc"
FIX = [Reply("Read the code.\n```bash\ncat calc.py\n```", prompt_tokens=310, completion_tokens=21),
       Reply("Swap the operator.\n```bash\nsed -i 's/return a - b/return a + b/' calc.py\n```",
             prompt_tokens=420, completion_tokens=33, cached_tokens=300),
       Reply(f"Done.\n```bash\necho {SUBMIT_MARKER}\n```", prompt_tokens=500, completion_tokens=9, cached_tokens=400)]


def lancebench(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from lancebench.cli import main; main()", *args],
                          capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=600)


def only_trial(jobs: Path) -> Path:
    (trial,) = [p for p in (jobs / "j" / "trials").iterdir() if p.is_dir()]
    return trial


def test_cli_job_resolves_the_task_with_exact_usage(scripted, tmp_path):
    srv = scripted([Reply("ok", prompt_tokens=5, completion_tokens=1)] + FIX)  # preflight, then the trial
    proc = lancebench("run", "-p", str(CALC), "-m", "openai/scripted", "--api-base", srv.api_base,
                      "-o", str(tmp_path), "--job-name", "j", "--max-steps", "10")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    trial = only_trial(tmp_path)
    result = json.loads((trial / "result.json").read_text())
    assert result["status"] == "resolved", result
    assert result["agent"] == "mini-swe-agent" and result["agent_exit"] == "completed"
    usage = result["usage"]
    assert usage["input_tokens"] == sum(r.prompt_tokens for r in FIX)
    assert usage["output_tokens"] == sum(r.completion_tokens for r in FIX)
    assert usage["cached_tokens"] == 700 and usage["calls"] == 3 and usage["cost_usd"] is None
    traj = read_trajectory(trial / "agent" / "trajectory.json")
    agent_steps = [s for s in traj.steps if s.source == "agent"]
    assert [s.message for s in agent_steps] == [r.content for r in FIX]
    assert [s.metrics.prompt_tokens for s in agent_steps] == [r.prompt_tokens for r in FIX]
    assert "return a - b" in agent_steps[0].observation.results[0].content
    assert "At most 10 model replies" in traj.steps[1].message
    assert len(srv.requests) == 4


def test_cli_auth_failure_stops_before_any_sandbox(scripted, tmp_path):
    srv = scripted([Fail(401, "Incorrect API key provided")] * 5)
    proc = lancebench("run", "-p", str(CALC), "-m", "openai/scripted", "--api-base", srv.api_base,
                      "-o", str(tmp_path), "--job-name", "j")
    assert proc.returncode != 0
    assert "OPENAI_API_KEY" in proc.stdout + proc.stderr
    assert len(srv.requests) == 1  # never retried
    trials = tmp_path / "j" / "trials"
    assert not trials.exists() or not any(trials.iterdir())


def _job(tmp_path: Path, api_base: str, **options) -> JobOptions:
    return JobOptions(name="j", jobs_dir=tmp_path, agent=AgentRecipe("mini-swe-agent", model="openai/scripted",
                                                                      api_base=api_base, options=options))


def test_server_errors_then_recovery_are_retried(scripted, tmp_path):
    srv = scripted([Reply("ok"), FIX[0], Fail(500), Fail(502), Fail(503), FIX[1], FIX[2]])
    with model_session(_job(tmp_path, srv.api_base, backoff_sec=0.01)) as opts:
        (result,) = asyncio.run(run_job([load_task(CALC)], opts))
    assert result.status == "resolved"
    assert result.usage.retries == 3 and result.usage.calls == 3


def test_outage_makes_the_trial_invalid_not_failed(scripted, tmp_path):
    srv = scripted([Reply("ok"), FIX[0]] + [Fail(500)] * 10)
    with model_session(_job(tmp_path, srv.api_base, backoff_sec=0.01, max_retries=2)) as opts:
        (result,) = asyncio.run(run_job([load_task(CALC)], opts))
    assert result.status == "invalid" and "500" in (result.reason or "")
    assert result.usage.calls == 1 and result.usage.input_tokens == FIX[0].prompt_tokens


@pytest.mark.llm
def test_real_local_model_on_a_mini_task(tmp_path):
    """`lancebench run -d mini -m local` on one task with a small step limit: the trial ends with a
    status, a trajectory and real token counts (SmolLM2 is not expected to solve it)."""
    import time

    started = time.monotonic()
    proc = lancebench("run", "-d", "mini", "-m", "local", "-t", "funcy-split-keys", "--max-steps", "2",
                      "-o", str(tmp_path), "--job-name", "j")
    took = time.monotonic() - started
    assert proc.returncode == 0, proc.stdout + proc.stderr
    print(f"lancebench run -d mini -m local, 1 task, 2 steps: {took:.0f}s")
    trial = only_trial(tmp_path)
    result = json.loads((trial / "result.json").read_text())
    assert result["status"] in ("resolved", "unresolved"), result
    assert result["usage"]["input_tokens"] > 0 and result["usage"]["output_tokens"] > 0
    assert result["usage"]["cost_usd"] == 0.0
    traj = read_trajectory(trial / "agent" / "trajectory.json")
    assert any(s.source == "agent" and s.metrics.prompt_tokens for s in traj.steps)
    # before: the same command again started and probed the local server with nothing to run (28 s,
    # issue 28); in an empty LANCEBENCH_HOME a server start would first have to fetch the model
    home = tmp_path / "empty-home"
    again = lancebench("run", "-d", "mini", "-m", "local", "-t", "funcy-split-keys", "--max-steps", "2",
                       "-o", str(tmp_path), "--job-name", "j", env={"LANCEBENCH_HOME": str(home)})
    assert again.returncode == 0, again.stdout + again.stderr
    assert "1 trial(s), 1 already recorded, 0 to run" in again.stderr
    assert not (home / "models").exists()  # no model looked up, no server started


def test_a_rerun_with_nothing_to_run_calls_no_model(scripted, tmp_path):
    # before: a finished job run again started (or probed) its model first: 28 s for nothing with
    # -m local (issue 28); the scripted server counts every request the rerun would send
    srv = scripted([Reply("ok", prompt_tokens=5, completion_tokens=1)] + FIX)
    args = ("run", "-p", str(CALC), "-m", "openai/scripted", "--api-base", srv.api_base, "-o", str(tmp_path),
            "--job-name", "j", "--max-steps", "10")
    first = lancebench(*args)
    assert first.returncode == 0, first.stdout + first.stderr
    assert len(srv.requests) == 1 + len(FIX)  # the probe, then the trial
    again = lancebench(*args)
    assert again.returncode == 0, again.stdout + again.stderr
    assert len(srv.requests) == 1 + len(FIX)
    assert "1 already recorded, 0 to run" in again.stderr
    assert json.loads((only_trial(tmp_path) / "result.json").read_text())["status"] == "resolved"

"""Whole jobs against the scripted server when the model API fails in the field or a run-level
control trips: a used-up quota stops the job (exit 3) and a rerun resumes; a job over its budget
stops (exit 6) with the trials not run listed, their spend kept, and a rerun with a raised budget
finishes them; a job whose invalid share passes --max-invalid-rate stops; a crashing agent's and a
killed process's spend is kept."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from scripted_server import Fail, Reply

from lancebench.agents.base import AgentContext, AgentOutcome
from lancebench.agents.mini_swe import SUBMIT_MARKER
from lancebench.commands.common import exit_code
from lancebench.commands.show import job_summary
from lancebench.errors import ModelQuotaError, RunStopped
from lancebench.llm import LLMClient
from lancebench.results.load import load_job
from lancebench.runner.controls import RunControls
from lancebench.runner.executor import AgentRecipe
from lancebench.runner.job import JobOptions, run_job
from lancebench.runner.model_session import model_session
from lancebench.task.load import load_task

pytestmark = pytest.mark.slow

CALC = Path(__file__).parents[1] / "fixtures" / "tasks" / "calc"
MILLION = 1_000_000  # prompt tokens per reply: at 1 USD per million input tokens, 1 USD a reply
PRICES = 'prices={"input": 1.0, "output": 0.0}'


def fix(tokens: int = 300) -> list[Reply]:
    return [Reply("Look.\n```bash\ncat calc.py\n```", prompt_tokens=tokens, completion_tokens=10),
            Reply("Fix.\n```bash\nsed -i 's/return a - b/return a + b/' calc.py\n```", prompt_tokens=tokens,
                  completion_tokens=10),
            Reply(f"Done.\n```bash\necho {SUBMIT_MARKER}\n```", prompt_tokens=tokens, completion_tokens=10)]


def lancebench(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from lancebench.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=600, **kwargs)


def run_args(srv, jobs: Path, *extra: str) -> list[str]:
    return ["run", "-p", str(CALC), "-m", "openai/scripted", "--api-base", srv.api_base, "-o", str(jobs),
            "--job-name", "j", "--ao", PRICES, "--ao", "backoff_sec=0.01", *extra]


def results(jobs: Path) -> dict[int, dict]:
    """attempt -> result.json of the trials that have one."""
    found = {}
    for trial in (jobs / "j" / "trials").iterdir():
        if (trial / "result.json").is_file():
            r = json.loads((trial / "result.json").read_text())
            found[r["attempt"]] = r
    return found


def job(srv, jobs: Path, attempts: int, controls: RunControls | None = None, **options) -> JobOptions:
    """The job the command line of :func:`run_args` makes, with ``attempts`` and ``controls``."""
    opts = {"prices": {"input": 1.0, "output": 0.0}, "backoff_sec": 0.01, **options}
    return JobOptions(name="j", jobs_dir=jobs, attempts=attempts, controls=controls or RunControls(),
                      agent=AgentRecipe("mini-swe-agent", model="openai/scripted", api_base=srv.api_base, options=opts))


def run(opts: JobOptions) -> list:
    with model_session(opts) as session:
        return asyncio.run(run_job([load_task(CALC)], session))


def test_exit_codes_of_the_stops():
    assert exit_code(ModelQuotaError("quota used up")) == 3  # like a refused key
    assert exit_code(RunStopped("over budget", ["calc#1"])) == 6


def test_quota_exhaustion_stops_the_job_and_a_rerun_resumes(scripted, tmp_path):
    quota = Fail(429, "You exceeded your current quota, please check your plan and billing details.",
                 code="insufficient_quota")
    srv = scripted([Reply("ok")] + fix() + [quota] * 10)
    with pytest.raises(ModelQuotaError, match="quota or credit is used up"):
        run(job(srv, tmp_path, 2))
    assert len(srv.requests) == 1 + 3 + 1  # preflight, the first trial, one refusal: never retried
    done = results(tmp_path)
    assert list(done) == [0] and done[0]["status"] == "resolved"  # the finished trial is kept
    srv.script[:] = [Reply("ok")] + fix()
    run(job(srv, tmp_path, 2))
    assert len(srv.requests) == 5 + 1 + 3  # only the trial that had not finished ran
    assert {a: r["status"] for a, r in results(tmp_path).items()} == {0: "resolved", 1: "resolved"}


def test_a_job_over_budget_stops_with_the_rest_resumable_and_its_spend_kept(scripted, tmp_path):
    slow = Reply("Wait.\n```bash\nsleep 30\n```", prompt_tokens=MILLION, completion_tokens=0)
    srv = scripted([Reply("ok"), Reply("Look.\n```bash\nls\n```", prompt_tokens=MILLION, completion_tokens=0), slow])
    proc = lancebench(*run_args(srv, tmp_path, "-k", "2", "--max-total-cost", "2", "--max-calls-in-flight", "2"))
    assert proc.returncode == 6, proc.stdout + proc.stderr
    assert "2 trial(s) not run: calc#0, calc#1" in " ".join(proc.stderr.split())
    assert "unfinished" in proc.stdout  # the summary comes before the stop
    assert results(tmp_path) == {}  # the trial in flight was cancelled, the other never started
    recorded = json.loads((tmp_path / "j" / "job.json").read_text())
    assert recorded["controls"] == {"max_total_cost_usd": 2.0, "max_calls_in_flight": 2}
    summary = job_summary(load_job(tmp_path / "j"))
    assert summary["unfinished"] == 2
    billed = 2 * MILLION  # what the server billed for the trial: two replies of a million prompt tokens
    assert summary["unfinished_usage"]["input_tokens"] == billed
    assert summary["unfinished_usage"]["cost_usd"] == pytest.approx(2.0)

    # the same budget: nothing more runs; a raised budget (not a configuration change) finishes the job
    srv.script[:] = [Reply("ok")]  # the check before the job
    with pytest.raises(RunStopped, match="2 trial"):
        run(job(srv, tmp_path, 2, RunControls(max_total_cost_usd=2.0)))
    assert len(srv.requests) == 1 + 2 + 1  # only the preflight
    srv.script[:] = [Reply("ok")] + fix(100) + fix(200)
    run(job(srv, tmp_path, 2, RunControls(max_total_cost_usd=10.0)))
    done = results(tmp_path)
    assert {a: r["status"] for a, r in done.items()} == {0: "resolved", 1: "resolved"}
    first = 0 if "earlier_runs_usage" in done[0]["extra"] else 1  # the trial that was cancelled
    assert done[first]["extra"]["earlier_runs_usage"]["input_tokens"] == billed
    assert done[first]["usage"]["calls"] == 2 + 3
    assert sorted(r["usage"]["input_tokens"] for r in done.values()) == sorted([billed + 300, 600]) or \
        sorted(r["usage"]["input_tokens"] for r in done.values()) == sorted([billed + 600, 300])
    summary = job_summary(load_job(tmp_path / "j"))
    assert summary["input_tokens"] == billed + 300 + 600 and "unfinished_usage" not in summary
    assert summary["cost_usd"] == pytest.approx((billed + 900) / MILLION)


def test_the_job_stops_when_the_invalid_share_passes_the_rate(scripted, tmp_path):
    srv = scripted([Reply("ok")] + [Fail(500)] * 10)
    with pytest.raises(RunStopped, match="2 of the 2 trials finished in this run are invalid") as info:
        run(job(srv, tmp_path, 4, RunControls(max_invalid_rate=0.5, invalid_rate_min_trials=2), max_retries=0))
    done = results(tmp_path)
    assert [r["status"] for r in done.values()] == ["invalid", "invalid"]
    assert len(info.value.not_run) == 2 and all(t.startswith("calc#") for t in info.value.not_run)


class CrashAgent:
    """Makes two model calls, then crashes (a bug in the agent)."""

    name = "crash-agent"

    def __init__(self, api_base: str):
        self.api_base = api_base

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        client = LLMClient("openai/scripted", self.api_base)
        for _ in range(2):
            await asyncio.to_thread(client.complete, [{"role": "user", "content": "hi"}])
        raise RuntimeError("agent bug")


def test_a_crashing_agent_keeps_its_spend(scripted, tmp_path):
    srv = scripted([Reply("a", prompt_tokens=70, completion_tokens=5),
                    Reply("b", prompt_tokens=80, completion_tokens=6)])
    opts = JobOptions(name="j", jobs_dir=tmp_path, agent=AgentRecipe("crash-agent", instance=CrashAgent(srv.api_base)))
    (result,) = asyncio.run(run_job([load_task(CALC)], opts))
    # the agent's own code raising is its failure (issue 20): its work is graded, never invalid
    assert result.status == "unresolved" and result.agent_exit == "error"
    assert "agent bug" in result.extra["agent_message"]
    assert (result.usage.calls, result.usage.input_tokens, result.usage.output_tokens) == (2, 150, 11)


def test_a_killed_run_keeps_its_spend_for_show_and_the_rerun(scripted, tmp_path):
    srv = scripted([Reply("ok"), Reply("Wait.\n```bash\nsleep 60\n```", prompt_tokens=444, completion_tokens=4)])
    proc = subprocess.Popen([sys.executable, "-c", "from lancebench.cli import main; main()",
                             *run_args(srv, tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        for _ in range(600):
            if len(srv.requests) >= 2 and list((tmp_path / "j" / "trials").glob("*/usage.json")):
                break
            time.sleep(0.1)
        time.sleep(0.5)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    summary = job_summary(load_job(tmp_path / "j"))
    assert summary["unfinished"] == 1 and summary["unfinished_usage"]["input_tokens"] == 444
    srv.script[:] = [Reply("ok")] + fix(100)
    run(job(srv, tmp_path, 1))
    (result,) = results(tmp_path).values()
    assert result["status"] == "resolved" and result["usage"]["input_tokens"] == 444 + 300


def test_a_retried_invalid_trial_keeps_the_spend_of_its_first_run(scripted, tmp_path):
    srv = scripted([Reply("ok"), Reply("Look.\n```bash\nls\n```", prompt_tokens=55, completion_tokens=5), Fail(500)])
    (first,) = run(job(srv, tmp_path, 1, max_retries=0))
    assert first.status == "invalid" and first.usage.input_tokens == 55
    srv.script[:] = [Reply("ok")] + fix(100)
    opts = job(srv, tmp_path, 1, max_retries=0)
    opts.retry_invalid = True
    (second,) = run(opts)
    assert second.status == "resolved"
    assert second.usage.input_tokens == 55 + 300 and second.usage.calls == 1 + 3
    assert second.extra["earlier_runs_usage"]["input_tokens"] == 55

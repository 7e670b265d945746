"""Attack pass round 7: plug-in agents (``-a module:Class``) against the agent phase of round 6.

One job, one derived ``calc`` task per variant of ``agents/round7_agents.py:Round7Agent``:

1. ``reader``: every agent was handed the task's reference solution (``AgentContext.solution_dir``
   and ``solution_env``, meant for the ``oracle``); a plug-in agent that ran it had its trial
   ``resolved``. Fixed: given to lancebench's ``oracle`` only (``runner/steps.py:_context``).
2. ``deaf``: an agent that swallows every cancellation held its trial, and the job, in the agent
   phase for ever (past its deadline, and a SIGTERM). Fixed: cancelled at its deadline, an agent
   that has not ended :data:`~lancebench.runner.agent_phase.DEAF_SEC` later is left behind, never
   run again (``agent_phase._within``/``_cancel``): exit ``timeout``, its work graded.
3. ``interrupt``: an agent raising ``KeyboardInterrupt`` ended the whole job (exit 130,
   "interrupted", no result). Fixed: the agent's failure unless the harness is being stopped
   (``agent_phase._no_exit``); the harness's own SIGTERM, which lands as a ``KeyboardInterrupt`` in
   whatever frame runs (often the agent's), still stops the job (exit 130, nothing recorded).
4. ``bigusage``: it reported 10**30 input tokens (with more calls than the meter saw, so its report
   was recorded), and ``show``/``report`` of the whole job ended in "internal error". Fixed: a
   plug-in's usage out of range is its failure (``agent_phase._check_usage``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from lbtest import TASKS, derive_task, lancebench_exe, lb, results

AGENTS = Path(__file__).resolve().parent / "agents"
VARIANTS = ("reader", "deaf", "interrupt", "bigusage")


@pytest.mark.slow
def test_a_plug_in_agent_gets_no_solution_and_cannot_hold_or_stop_the_job(jobs, shared, backend):
    for name in VARIANTS:
        derive_task(TASKS / "calc", shared / f"calc-{name}", append_instruction=f"VARIANT={name}")
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(AGENTS), os.environ.get("PYTHONPATH", "")) if p)}
    paths = [a for name in VARIANTS for a in ("-p", shared / f"calc-{name}")]
    # the deaf agent: 2 s budget, 30 s grace, 10 s to end once cancelled; a hang fails at 240 s
    lb("run", *paths, "-a", "round7_agents:Round7Agent", "--agent-timeout", "2", "-n", "4", "-o", jobs,
       "--backend", backend, "--job-name", "round7", check=True, timeout=240, env=env)
    got = {r["task"].removeprefix("calc-"): r for r in results(jobs / "round7")}
    assert {k: (r["status"], r["rewards"].get("reward"), r["agent_exit"]) for k, r in got.items()} == {
        "reader": ("unresolved", 0.0, "completed"), "deaf": ("unresolved", 0.0, "timeout"),
        "interrupt": ("unresolved", 0.0, "error"), "bigusage": ("unresolved", 0.0, "error")}
    assert got["bigusage"]["usage"]["input_tokens"] == 0
    lb("show", jobs / "round7", check=True)  # read back whole: an OverflowError before the fix
    trial = jobs / "round7" / "trials"
    assert (trial / got["reader"]["trial_id"] / "agent" / "solution.txt").read_text() == "None []\n"
    crash = (trial / got["interrupt"]["trial_id"] / "agent" / "crash.log").read_text()
    assert "raised KeyboardInterrupt itself" in crash


def test_the_harness_sigterm_still_stops_a_job_whose_agent_is_running(jobs, shared):
    derive_task(TASKS / "calc", shared / "calc-busy", append_instruction="VARIANT=busy")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(AGENTS), os.environ.get("PYTHONPATH", "")) if p))
    args = ["run", "-p", str(shared / "calc-busy"), "-a", "round7_agents:Round7Agent", "-o", str(jobs),
            "--backend", "local", "--job-name", "busy"]
    proc = subprocess.Popen([*lancebench_exe(), *args], env=env, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not list((jobs / "busy").glob("trials/*/agent/busy")):
            time.sleep(0.05)
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, out
    assert results(jobs / "busy") == []  # the stop is the harness's: nothing recorded as the agent's failure


def test_a_deaf_run_is_left_behind_when_the_trial_is_cancelled_too(monkeypatch):
    """The bound of ``_within`` also holds when the harness cancels the trial (Ctrl-C) while a run
    that swallows every cancellation is awaited: the trial's task ends ``DEAF_SEC`` later (0.3 s
    here) instead of never; at its deadline the same run raises ``LeftBehind``."""
    import asyncio

    from lancebench.runner import agent_phase

    monkeypatch.setattr(agent_phase, "DEAF_SEC", 0.3)
    ticks = []

    async def deaf():
        while True:
            try:
                await asyncio.sleep(0.05)
                ticks.append(1)
            except BaseException:  # noqa: BLE001,S110 - the attack
                pass

    async def main():
        trial = asyncio.ensure_future(agent_phase._within(deaf(), 60))
        await asyncio.sleep(0.2)
        trial.cancel()
        start = time.monotonic()
        with pytest.raises(asyncio.CancelledError):
            await trial
        cancelled_after = time.monotonic() - start
        with pytest.raises(agent_phase.LeftBehind):
            await agent_phase._within(deaf(), 0.2)
        return cancelled_after

    assert asyncio.run(asyncio.wait_for(main(), 20)) < 5
    assert ticks  # the run did run (and swallowed what it was sent)


def test_an_agent_cannot_record_less_usage_than_the_meter_saw(tmp_path):
    """An agent's report wins over the meter when it counts more calls (an agent with a client of
    its own); one that made ten metered calls and reported eleven, with no tokens and a negative
    cost, had its claim recorded. Now each field is at least what the meter saw."""
    from lancebench.llm.meter import UsageMeter
    from lancebench.results.models import Usage
    from lancebench.runner.spend import settle

    meter = UsageMeter(tmp_path / "usage.json")
    for _ in range(10):
        meter.add(Usage(input_tokens=1000, output_tokens=200, cost_usd=0.5, calls=1))
    claim = Usage(input_tokens=0, output_tokens=0, cost_usd=-1000.0, calls=11)
    usage, _ = settle(claim, meter)
    assert usage == Usage(input_tokens=10_000, output_tokens=2_000, cost_usd=5.0, calls=11)
    honest = Usage(input_tokens=12_000, output_tokens=2_500, cost_usd=6.0, calls=12)  # its own client's calls too
    assert settle(honest, UsageMeter(tmp_path / "b.json"))[0] == honest

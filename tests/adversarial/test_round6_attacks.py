"""The agent phase's model-error rules of round 5 attacked by plug-in agents (attack pass round 6).

Each agent writes a wrong change (``calc.add`` left broken), then tries to have its losing trial
counted ``invalid`` (left out of every rate) instead of ``unresolved``:

1. ``forged-module``: its class sets ``__module__ = "lancebench.agents.builtin"``; the agent phase
   called an agent bundled when its class's module started with ``lancebench.``, and trusted the
   outage its outcome claimed (``invalid_reason``). Fixed: bundled is by the class's identity with
   one the registry names.
2. ``endpoint``: it calls a dead server of its own through lancebench's client and clears the
   error's ``endpoint`` (a plain attribute) before raising it again; with no endpoint the error was
   taken for an outage of the job's model, with no control. 3. ``timeout``: it calls the job's
   model itself with a timeout of half a second and no retry (the scripted model answers in 3 s).
   Fixed: a plug-in agent's model error counts as the job's model's only when a plain request to
   the job's model by the harness's client fails too (answered here: the agent's failure).
4. ``exit`` / ``cancel``: it raises ``SystemExit(0)`` (a task raising it raises it out of the event
   loop: the whole job ended with exit 0 and no result) or a ``CancelledError`` the harness never
   asked for (the job ended with its traceback). Fixed: both are the agent's failure.
5. ``bad-name`` / ``bad-mounts``: its ``name`` property raises (read before the run, outside the
   agent phase's handlers), or its ``sandbox_mounts`` (the hook of lancebench's installed agents)
   raises ``AgentError``: both ``invalid``. Fixed: the name is read for bundled agents only, and
   only theirs have their mounts asked. ``bad-outcome``: its outcome's ``usage`` raises when read
   (the whole job ended, "internal error"). Fixed: a plug-in's outcome is copied as plain values,
   and one that cannot be read is its failure.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from lbtest import TASKS, derive_task, lb, results

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
from scripted_server import Reply, scripted  # noqa: E402,F401  (the fixture)

AGENTS = Path(__file__).resolve().parent / "agents"


@pytest.mark.slow
def test_a_plug_in_agent_cannot_forge_an_outage_or_end_the_job(jobs, shared, scripted):  # noqa: F811
    slow = scripted([Reply("ok"), Reply("late", delay_sec=3.0), Reply("ok")])  # preflight, the agent's, the control
    tasks = {"forged-module": ["forged-module"], "endpoint": ["endpoint"], "timeout": ["timeout"],
             "exiting": ["exit", "cancel"], "bad-name": ["bad-name"], "bad-mounts": ["bad-mounts"],
             "bad-outcome": ["bad-outcome"]}
    for name in (n for names in tasks.values() for n in names):
        derive_task(TASKS / "calc", shared / name / f"calc-{name}", append_instruction=f"VARIANT={name}")
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(AGENTS), os.environ.get("PYTHONPATH", "")) if p),
           "OPENAI_API_KEY": "sk-scripted"}
    runs = {"forged-module": ["-a", "faulty_agents:ForgedModule"], "endpoint": ["-a", "faulty_agents:ForgingAgent"],
            "timeout": ["-a", "faulty_agents:ForgingAgent", "-m", "openai/scripted", "--api-base", slow.api_base],
            "exiting": ["-a", "faulty_agents:ExitingAgent"], "bad-name": ["-a", "faulty_agents:BadName"],
            "bad-mounts": ["-a", "faulty_agents:BadMounts"], "bad-outcome": ["-a", "faulty_agents:BadOutcome"]}

    def run(job: str) -> None:
        paths = [a for n in tasks[job] for a in ("-p", shared / n / f"calc-{n}")]
        lb("run", *paths, *runs[job], "-o", jobs, "--backend", "local", "--job-name", job, check=True,
           timeout=300, env=env)

    with ThreadPoolExecutor(len(runs)) as pool:
        list(pool.map(run, runs))
    got = {job: [(r["status"], r["rewards"].get("reward"), r["reason"]) for r in results(jobs / job)] for job in runs}
    wrong = {job: rows for job, rows in got.items()
             if [(status, reward) for status, reward, _ in rows] != [("unresolved", 0.0)] * len(tasks[job])}
    assert wrong == {}
    assert "the agent stopped with an error" in got["forged-module"][0][2], got
    # the timeout's control: the preflight, the agent's own call, the harness's plain request
    assert len(slow.requests) == 3, slow.requests

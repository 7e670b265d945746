"""`invalid` on demand (issue 20, item 3): an agent whose failure is its own tries to have it counted
`invalid` (left out of every rate, retried by `--retry-invalid`) instead of `unresolved`. On main
before the fix, each of these trials was `invalid`. Now a trial is `invalid` only with the control
that proved the fault is not the agent's (`TrialResult.control`), and these are `unresolved`:

- the agent's own Python code raises (a bug; a `ModelError` it raises itself without calling a
  model; an outcome claiming an outage no control can check): the agent's failure, its work graded;
- the agent ends its own sandbox (every process killed, its keeper included; its shells removed)
  and goes on: the next command fails in the engine, a fresh sandbox of the pristine environment
  works, so the agent's work caused it;
- a multi-step task's first step fails, and the agent removes the container's keeper (it cannot
  start again for step two) or the file step two's health check looks at: the same control.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from docker_support import docker_skip_reason
from lbtest import TASKS, lb, results

pytestmark = pytest.mark.slow
AGENTS = Path(__file__).resolve().parent / "agents"
CALC = TASKS / "calc"
TWO_STEP = Path(__file__).resolve().parents[1] / "fixtures" / "harbor" / "two-step"
NOT_PASSING = "tests not passing: test_calc::test_add (failed), test_calc::test_add_negative (failed)"
PRISTINE_WORKS = "a fresh sandbox of the pristine environment"


def _variants(src: Path, shared: Path, variants: list[str], instruction: str = "instruction.md") -> list[Path]:
    """One copy of task ``src`` per variant (``src-VARIANT``), with ``VARIANT=...`` appended to
    ``instruction`` (the same environment: built once)."""
    out = []
    for v in variants:
        task = shared / f"{src.name}-{v}"
        shutil.copytree(src, task)
        with (task / instruction).open("a") as fh:
            fh.write(f"\nVARIANT={v}\n")
        out.append(task)
    return out


def _run(tasks: list[Path], agent: str, jobs: Path, backend: str) -> dict[str, dict]:
    """Run ``agent`` on ``tasks`` in one job (as many at once); the results by variant."""
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(AGENTS), os.environ.get("PYTHONPATH", "")) if p)}
    paths = [a for t in tasks for a in ("-p", t)]
    lb("run", *paths, "-a", agent, "-o", jobs, "--backend", backend, "-n", str(len(tasks)), "--job-name", "j",
       check=True, timeout=900, env=env)
    rs = results(jobs / "j")
    assert len(rs) == len(tasks), rs
    return {r["task"].rsplit("-", 1)[1]: r for r in rs}


def test_an_agents_own_exception_is_its_failure(jobs, shared):
    # the work is graded as an agent that stopped with an error (its change left calc wrong)
    said = {"raise": "KeyError: 'outcome'", "model": "it raised ModelError itself",
            "claim": "which the harness cannot check: model error: the provider is down"}
    got = _run(_variants(CALC, shared, list(said)), "faulty_agents:CrashingAgent", jobs, "local")
    for variant, r in got.items():
        assert (r["status"], r["agent_exit"], r["control"]) == ("unresolved", "error", None), r
        assert r["reason"] == f"{NOT_PASSING}; the agent stopped with an error"
        assert said[variant] in r["extra"]["agent_message"]
        crash_log = jobs / "j" / "trials" / r["trial_id"] / "agent" / "crash.log"
        assert crash_log.is_file() == (variant != "claim")


@pytest.mark.skipif(docker_skip_reason() is not None, reason=str(docker_skip_reason()))
def test_an_agent_that_ends_its_own_container_is_unresolved(jobs, shared):
    # docker only: on the local backend each command is a sandbox of its own, and the same agent
    # ends its own processes only (its trial is graded as usual)
    got = _run(_variants(CALC, shared, ["kill", "shell"]), "faulty_agents:SandboxKiller", jobs, "docker")
    for r in got.values():
        assert r["status"] == "unresolved", r
        assert r["rewards"] == {"reward": 0.0}
        assert r["reason"].startswith("after the agent's work: SandboxError: docker "), r["reason"]
        assert r["control"] == f"{PRISTINE_WORKS} started and ran a command: the agent's work caused the failure"


@pytest.mark.skipif(docker_skip_reason() is not None, reason=str(docker_skip_reason()))
def test_breaking_the_next_step_after_a_failed_first_step_is_unresolved(jobs, shared):
    tasks = _variants(TWO_STEP, shared, ["keeper", "healthcheck"], "steps/one/instruction.md")
    got = _run(tasks, f"script:{AGENTS / 'multi_step_sabotage.sh'}", jobs, "docker")
    for variant, r in got.items():
        assert (r["status"], r["rewards"]) == ("unresolved", {"reward": 0.0}), r
        assert [(s["name"], s["status"]) for s in r["steps"]] == [("one", "unresolved")]
        if variant == "healthcheck":
            assert r["reason"].startswith("after the agent's work: HealthcheckFailed: health check "
                                          "[steps.two.healthcheck] failed"), r["reason"]
            assert r["control"] == (f"{PRISTINE_WORKS} started and passed the same health check: the agent's "
                                    "work caused the failure")
        else:
            assert r["reason"].startswith("after the agent's work: SandboxError: "), r["reason"]
            assert r["control"] == f"{PRISTINE_WORKS} started and ran a command: the agent's work caused the failure"

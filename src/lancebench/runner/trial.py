"""One trial, exactly as DESIGN.md's trial flow says: environment, agent phase, capture, grading
in a fresh sandbox, result. Infrastructure failures give ``invalid``, never a score of 0."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from lancebench.agents.base import Agent, AgentContext, AgentOutcome
from lancebench.errors import AgentError, LancebenchError, ModelAuthError, ModelError, SandboxError, WorkspaceError
from lancebench.grading.choice import grade_choice, read_answer_file
from lancebench.grading.outcome import RunOutcome, combine_runs, judge_run
from lancebench.grading.patch import filter_patch
from lancebench.grading.redact import redact_files
from lancebench.grading.rewards import RewardError, RewardExcluded, read_rewards
from lancebench.grading.scan import scan_patch, scan_reason
from lancebench.grading.witness import ReportWitness, merge_writes
from lancebench.judging.senior import JudgeSettings, senior_grade
from lancebench.results.models import Timings, TrialResult, Usage, utcnow
from lancebench.results.paths import TrialPaths
from lancebench.results.store import atomic_write
from lancebench.runner.healthcheck import HealthcheckFailed, run_healthcheck
from lancebench.sandbox.backend import Backend, PreparedEnvironment, task_limits
from lancebench.sandbox.base import Mount, Sandbox
from lancebench.sandbox.fstree import notes_path, remove_tree
from lancebench.task.model import Task
from lancebench.task.settings import network_policy, phase_env, secret_values

AGENT_GRACE_SEC = 30.0  # beyond the agent's budget before the harness cancels it


@dataclass
class TrialSpec:
    """What to run: one ``attempt`` (0-based) of ``agent`` on ``task`` within job ``job``."""

    task: Task
    agent_name: str
    model: str | None
    attempt: int
    job: str
    trial_id: str
    paths: TrialPaths
    scratch: Path
    options: dict = field(default_factory=dict)
    agent_timeout_sec: float | None = None
    step: str | None = None  # a multi-step task's step being graded (lancebench.runner.steps)
    senior: JudgeSettings | None = None  # senior grading (--judge-model), see lancebench.judging.senior


class _Invalid(Exception):
    """Internal: the trial cannot be graded for a reason that is not the agent's."""


async def run_trial(spec: TrialSpec, agent: Agent, backend: Backend) -> TrialResult:
    """Run one trial and write its ``result.json`` (atomically, last). Returns the result.

    Raises :class:`ModelAuthError` (the job must stop); every other failure of the harness, the
    backend, the model service or the grader is recorded as an ``invalid`` trial.
    """
    task, paths = spec.task, spec.paths
    for stale in (paths.root, spec.scratch):  # an unfinished earlier run of this trial (kill -9)
        remove_tree(stale)
    for d in (paths.agent, paths.verifier):
        d.mkdir(parents=True, exist_ok=True)
    atomic_write(paths.instruction, task.instruction)  # for reports: the task folder may be gone later
    result = TrialResult(trial_id=spec.trial_id, job=spec.job, task=task.name, task_digest=task.digest,
                         dataset=task.dataset, agent=spec.agent_name, model=spec.model, attempt=spec.attempt,
                         kind=task.kind, split=task.split, price_usd=task.price_usd, taxonomy=task.taxonomy,
                         status="invalid", started_at=utcnow())
    timings = Timings()
    t_start = time.monotonic()
    try:
        t0 = time.monotonic()
        env = await backend.prepare(task)
        timings.environment_sec = time.monotonic() - t0
        await _agent_and_grade(spec, agent, backend, env, result, timings)
    except ModelAuthError:
        raise
    except WorkspaceError as exc:  # what the agent left cannot be captured or graded: its doing
        result.status, result.reason, result.rewards = "unresolved", str(exc)[:4000], {"reward": 0.0}
    except (ModelError, AgentError, SandboxError, _Invalid, LancebenchError) as exc:
        result.status, result.reason = "invalid", f"{type(exc).__name__}: {exc}"[:4000]
    except Exception as exc:  # a bug anywhere must not lose the job: record it as invalid
        import traceback
        paths.error_log.write_text(traceback.format_exc())
        result.status, result.reason = "invalid", f"internal error {type(exc).__name__}: {exc}"[:4000]
    finally:
        remove_tree(spec.scratch)
    timings.total_sec = time.monotonic() - t_start
    result.timings = timings
    result.finished_at = utcnow()
    atomic_write(paths.result, result.model_dump_json(indent=2))
    return result


async def _agent_and_grade(spec: TrialSpec, agent: Agent, backend: Backend, env: PreparedEnvironment,
                           result: TrialResult, timings: Timings) -> None:
    task, paths = spec.task, spec.paths
    if task.config.steps and task.kind == "code":
        from lancebench.runner.steps import run_steps
        t0 = time.monotonic()
        await run_steps(spec, agent, backend, env, result, timings)
        timings.grading_sec = time.monotonic() - t0 - (timings.agent_sec or 0.0)
        return
    budget = spec.agent_timeout_sec or task.config.agent.timeout_sec
    # --- user tool (browser tasks): see lancebench.grading.user_tool ---
    user_tool = None
    if task.lb.browser and task.kind == "code":
        from lancebench.grading.user_tool import UserToolService
        user_tool = UserToolService(task, backend, env, spec.scratch / "user-tool", paths.agent)
    agent_env = dataclasses.replace(env, variables={**env.variables, **phase_env(task, "agent")})
    sandbox = backend.open(task, agent_env, spec.scratch / "agent", mounts=user_tool.mounts() if user_tool else (),
                           network=network_policy(task, "agent").mode == "public", labels=_labels(spec))
    if user_tool:
        user_tool.attach(sandbox)  # before start: a container backend reads PATH when it starts
    await sandbox.start()
    try:
        await check_health(task, sandbox)
        t0 = time.monotonic()
        ctx = AgentContext(task_name=task.name, instruction=task.instruction, sandbox=sandbox, workdir=env.workdir,
                           timeout_sec=budget, deadline=time.monotonic() + budget, limits=task_limits(task),
                           logs_dir=paths.agent, model=spec.model, options=dict(spec.options), kind=task.kind,
                           proposal_ids=task.lb.choice.proposal_ids if task.lb.choice else None,
                           answer_file=task.lb.choice.answer_file if task.lb.choice else None,
                           solution_dir=task.paths.solution if task.paths.solution.is_dir() else None,
                           browser=task.lb.browser, price_usd=task.price_usd,
                           solution_env=phase_env(task, "solution"))
        outcome = await _run_agent(agent, ctx, budget)
        if user_tool:
            await user_tool.close()  # before the capture: user_tool/ never enters the patch
        timings.agent_sec = time.monotonic() - t0
        result.agent_exit = outcome.exit
        result.usage = outcome.usage if isinstance(outcome.usage, Usage) else Usage()
        if outcome.invalid_reason:
            raise _Invalid(outcome.invalid_reason)
        t0 = time.monotonic()
        if task.kind == "choice":
            raw, problem = await _read_answer(sandbox, env, task, spec.scratch)
            if raw is None and problem == "no answer" and outcome.choice is not None:
                raw, problem = outcome.choice, None
            patch = ""  # a choice task has no patch
        else:
            patch = await backend.capture(task, env, sandbox, spec.scratch / "capture")
    finally:
        if user_tool:
            await user_tool.close()
        await sandbox.stop()
    timings.capture_sec = time.monotonic() - t0
    t0 = time.monotonic()
    if task.kind == "choice":
        correct = json.loads(task.paths.choice_json.read_text())["correct_proposal_id"]
        assert task.lb.choice is not None, "a choice task has [lancebench.choice] (checked at load)"
        ok, choice, reason = grade_choice(raw, problem, task.lb.choice.proposal_ids, correct)
        result.choice, result.reason = choice, reason
        result.status = "resolved" if ok else "unresolved"
        result.rewards = {"reward": float(ok)}
    elif outcome.patch_applied is False:  # a given patch (predictions) that did not apply
        atomic_write(paths.patch, patch, errors="surrogateescape")
        result.status, result.patch_applied, result.reason = "unresolved", False, outcome.message
        result.rewards = {"reward": 0.0}
    else:
        atomic_write(paths.patch, patch, errors="surrogateescape")
        await _grade_patch(spec, backend, env, patch, result)
        if spec.senior is not None:
            await senior_grade(spec.senior, task, backend, env, patch, result, spec.scratch / "senior", _labels(spec))
    timings.grading_sec = time.monotonic() - t0


async def check_health(task: Task, sandbox: Sandbox, step=None) -> None:
    """The task's health check (``[environment.healthcheck]``), or ``step``'s, before the agent
    runs; a failing one makes the trial invalid with the reason."""
    check = step.healthcheck if step is not None else task.config.environment.healthcheck
    if check is None:
        return
    where = f"steps.{step.name}.healthcheck" if step is not None else "environment.healthcheck"
    try:
        await run_healthcheck(sandbox, check, env=phase_env(task, "healthcheck"), where=where)
    except HealthcheckFailed as exc:
        raise _Invalid(str(exc)) from None


def verifier_env(task: Task, step: str | None = None) -> dict[str, str]:
    """The environment of ``tests/test.sh``: task.toml's ``[environment]`` and ``[verifier] env``
    (host templates filled, :func:`lancebench.task.settings.phase_env`), pytest's plugin
    auto-loading off (an installed or planted entry point cannot join the run) and the plugins the
    task names (``[lancebench] pytest_plugins``) loaded instead, and no bytecode written."""
    env = phase_env(task, "verifier", step=step)
    plugins = [p for p in env.get("PYTEST_PLUGINS", "").split(",") if p.strip()] + list(task.lb.pytest_plugins)
    env |= {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    if plugins:
        env["PYTEST_PLUGINS"] = ",".join(plugins)
    return env


def _labels(spec: TrialSpec) -> dict[str, str]:
    return {"lancebench.job": spec.job, "lancebench.trial": spec.trial_id}


async def _run_agent(agent: Agent, ctx: AgentContext, budget: float) -> AgentOutcome:
    """Run the agent, ending it at its deadline (plus a grace period for its own clean-up)."""
    try:
        outcome = await asyncio.wait_for(agent.run(ctx), budget + AGENT_GRACE_SEC)
    except TimeoutError:
        return AgentOutcome(exit="timeout", message=f"ended by the harness after {budget:.0f}s",
                            usage=_usage_from_trajectory(ctx.logs_dir / "trajectory.json"))
    except (ModelError, LancebenchError):
        raise
    except Exception as exc:
        raise AgentError(f"agent {getattr(agent, 'name', agent)!s} crashed: {type(exc).__name__}: {exc}") from exc
    if not isinstance(outcome, AgentOutcome):
        raise AgentError(f"agent {getattr(agent, 'name', agent)!s} returned {type(outcome).__name__}, not AgentOutcome")
    return outcome


def _usage_from_trajectory(path: Path) -> Usage:
    """The usage an ended agent's trajectory recorded (empty when it wrote none)."""
    from lancebench.agents.trajectory import read_trajectory
    try:
        return read_trajectory(path).usage() if path.is_file() else Usage()
    except (LancebenchError, ValueError, OSError):
        return Usage()


async def _read_answer(sandbox: Sandbox, env: PreparedEnvironment, task: Task, scratch: Path):
    dest = scratch / "answer" / "answer.json"
    try:
        assert task.lb.choice is not None, "a choice task has [lancebench.choice] (checked at load)"
        await sandbox.get(f"{env.workdir}/{task.lb.choice.answer_file}", dest)
    except SandboxError:
        return None, "no answer"
    return read_answer_file(dest)


async def _grade_patch(spec: TrialSpec, backend: Backend, env: PreparedEnvironment, patch: str,
                       result: TrialResult) -> None:
    task = spec.task
    kept, dropped = filter_patch(patch, task.protected_globs(), task.lb.unprotect)
    result.dropped_paths = dropped
    if dropped:  # what was graded, beside patch.diff (what was captured)
        atomic_write(spec.paths.root / "patch.graded.diff", kept, errors="surrogateescape")
    findings = scan_patch(kept) if task.lb.scan_patch else []
    if findings:
        result.status, result.reason, result.rewards = "unresolved", scan_reason(findings), {"reward": 0.0}
        return
    runs: list[RunOutcome] = []
    for i in range(task.lb.test_runs):
        applied, run = await grade_once(task, backend, env, kept, spec.scratch / f"grade-{i}",
                                        spec.paths.verifier / f"run-{i}", labels=_labels(spec), step=spec.step)
        result.patch_applied = applied if kept.strip() else None
        if applied is False:
            result.status, result.reason = "unresolved", "the patch did not apply"
            return
        runs.append(run)
    combined = combine_runs(runs, task.lb.pass_if)
    if combined.excluded:  # the task's own verdict: no re-grade of the untouched repository
        raise _Invalid(f"excluded by the task's verifier: {combined.reason}")
    if combined.broken:
        if not kept.strip():
            raise _Invalid(f"grader failed on the untouched repository: {combined.reason}")
        # Did the grader break, or did the patch break it? Grade the untouched base to tell.
        _, base = await grade_once(task, backend, env, "", spec.scratch / "grade-base", spec.paths.verifier / "base",
                                   labels=_labels(spec), step=spec.step)
        if base.broken:
            raise _Invalid(f"grader failed with and without the patch: {combined.reason}")
        # a broken run's rewards are not trusted: the code under test may have written them
        combined = RunOutcome(passed=False, reason=f"{combined.reason} (the grader works without the patch)",
                              rewards={**combined.rewards, "reward": 0.0}, tests=combined.tests)
    result.status = "resolved" if combined.passed else "unresolved"
    result.reason = combined.reason
    result.rewards = combined.rewards or {"reward": 0.0}
    result.tests = combined.tests


async def _apply(backend: Backend, task: Task, env: PreparedEnvironment, sandbox: Sandbox, patch: str, scratch: Path,
                 out_dir: Path) -> bool:
    """Apply ``patch`` in the grading sandbox: the backend's own way when it has one (an image
    without git), else ``git apply`` inside. Writes ``apply.log``; returns whether it applied."""
    own = getattr(backend, "apply_patch", None)
    done = await own(task, env, sandbox, patch, scratch) if own else None
    if done is None:
        patch_file = scratch / "patch.diff"
        patch_file.write_text(patch, encoding="utf-8", errors="surrogateescape")
        await sandbox.put(patch_file, "/tmp/lancebench/patch.diff")
        res = await sandbox.exec(["git", "apply", "--binary", "--whitespace=nowarn", "/tmp/lancebench/patch.diff"],
                                 cwd=env.workdir, timeout=300)
        done = (res.ok, f"exit {res.exit_code}\n{res.output}")
    (out_dir / "apply.log").write_text(done[1])
    return done[0]


def _witnessed_junit(writes: list[bytes], out_dir: Path) -> tuple[dict[str, str] | None, str | None]:
    """The run's JUnit outcomes from the witnessed writes and the file left in the copied logs
    (see :func:`lancebench.grading.witness.merge_writes`). The logs keep ``junit.xml`` as the
    runner wrote it when nothing replaced the FIFO; every write is kept in ``out_dir/witness``."""
    logs = out_dir / "logs"
    junit_path = logs / "junit.xml"
    final = junit_path if junit_path.is_file() and not junit_path.is_symlink() else None
    merged = merge_writes(writes, final, out_dir / "witness")
    if final is None and writes and logs.is_dir():
        junit_path.write_bytes(writes[0])
    notes = notes_path(logs)
    if notes.is_file():  # the FIFO itself is not a file the verifier wrote
        kept = [line for line in notes.read_text().splitlines() if line != "junit.xml: special file left out"]
        notes.write_text("\n".join(kept) + "\n") if kept else notes.unlink()
    return merged


async def grade_once(task: Task, backend: Backend, env: PreparedEnvironment, patch: str, scratch: Path,
                     out_dir: Path, labels: dict[str, str] | None = None,
                     step: str | None = None) -> tuple[bool | None, RunOutcome]:
    """Grade ``patch`` once in a fresh sandbox: apply it, copy in the hidden tests, run
    ``tests/test.sh`` under the verifier timeout, read rewards and JUnit. For a multi-step task's
    ``step``, ``steps/<step>/tests`` is laid over the shared tests and the step's verifier
    settings (env, timeout, network) apply.

    Returns (applied: None when the patch is empty, the run's outcome). The verifier's files are
    copied to ``out_dir``. Raises :class:`SandboxError` when the backend fails.
    """
    remove_tree(scratch)
    logs = scratch / "logs"
    logs.mkdir(parents=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    tests = scratch / "tests"  # a copy: the task folder may sit where the sandbox user cannot read
    tests.mkdir()
    step_cfg = next((s for s in task.config.steps or [] if s.name == step), None)
    for source in (task.paths.tests, task.paths.root / "steps" / (step or "") / "tests" if step else None):
        if source is not None and source.is_dir():
            shutil.copytree(source, tests, dirs_exist_ok=True)
    sandbox = backend.open(task, env, scratch / "sandbox",
                           mounts=(Mount(tests, "/tests", False), Mount(logs, "/logs/verifier", True)),
                           network=network_policy(task, "verifier", step=step).mode == "public", labels=labels)
    witness = ReportWitness(logs)  # junit.xml as written, held outside the sandbox (grading.witness)
    witness.start()
    await sandbox.start()
    try:
        applied = None
        if patch.strip():
            applied = await _apply(backend, task, env, sandbox, patch, scratch, out_dir)
            if not applied:
                return False, RunOutcome(reason="the patch did not apply")
        timeout = (step_cfg.verifier.timeout_sec if step_cfg else None) or task.config.verifier.timeout_sec
        res = await sandbox.exec(["bash", "/tests/test.sh"], cwd=env.workdir, env=verifier_env(task, step),
                                 timeout=timeout)
        (out_dir / "test.log").write_text(f"exit code: {res.exit_code} timed out: {res.timed_out} "
                                          f"({res.duration_sec:.1f}s)\n--- stdout\n{res.stdout}"
                                          f"\n--- stderr\n{res.stderr}")
        await sandbox.get("/logs/verifier", out_dir / "logs")
    finally:
        await sandbox.stop()
        writes = witness.stop()
        redact_files(out_dir, secret_values(task, step=step))  # host values of ${VAR} never stay in the job
    rewards, reward_error, excluded = None, None, None
    try:
        rewards = read_rewards(out_dir / "logs")
    except RewardExcluded as exc:
        excluded = str(exc)
    except RewardError as exc:
        reward_error = str(exc)
    junit, rewritten = _witnessed_junit(writes, out_dir)
    redact_files(out_dir, secret_values(task, step=step))  # the witnessed writes too
    run = judge_run(exit_code=res.exit_code, timed_out=res.timed_out, rewards=rewards, junit=junit,
                    f2p=task.lb.f2p, p2p=task.lb.p2p, reward_error=reward_error,
                    excluded=excluded, reward_key=task.lb.reward_key)
    if rewritten:
        run.reason = f"{run.reason}; {rewritten}" if run.reason else rewritten
    return applied, run

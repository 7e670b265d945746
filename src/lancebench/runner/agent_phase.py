"""The pieces of a trial's agent phase that the one step loop (:mod:`lancebench.runner.steps`) and
the controls use: what to run (:class:`TrialSpec`), the agent run under its deadline and how its
failures count (:func:`run_agent`), health checks, sandbox labels; the internal "not the agent's
fault" signal (:class:`TrialInvalid`) and its controls live in :mod:`lancebench.runner.control`."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import dataclasses
import json
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path

from lancebench.agents.base import Agent, AgentContext, AgentOutcome
from lancebench.errors import LancebenchError, ModelAuthError, ModelError, ModelRefused, SandboxError
from lancebench.judging.senior import JudgeSettings
from lancebench.llm.client import ContextWindowError, DeadlineExceeded, LLMClient, resolve_model
from lancebench.llm.meter import metering
from lancebench.results.models import MAX_USAGE_COST_USD, MAX_USAGE_COUNT, TrialConfig, Usage
from lancebench.results.paths import TrialPaths
from lancebench.runner import spend
from lancebench.runner.control import HARNESS, MODEL_PROVIDER, Checkpoint, TrialInvalid, raised_by_model_client
from lancebench.runner.healthcheck import run_healthcheck
from lancebench.sandbox.backend import Backend
from lancebench.sandbox.base import Mount, Sandbox
from lancebench.task.model import Task

AGENT_GRACE_SEC = 30.0  # beyond the agent's budget before the harness cancels it


@dataclass
class TrialSpec:
    """What to run: one ``attempt`` (0-based) of the agent of ``config`` (the job's configuration,
    recorded in the result: agent, its options, model, agent timeout) on ``task`` within job ``job``,
    its files in ``paths``, a host folder ``scratch`` for its sandboxes; ``senior``: senior grading
    (``--judge-model``, :mod:`lancebench.judging.senior`); ``model_endpoint``: the model and server
    the job's agent calls (``-m`` and ``--api-base`` as resolved, a local model server's included;
    None without ``-m``), set by :func:`lancebench.runner.executor.execute_trial`: the agent
    phase's model controls ask it (:func:`run_agent`)."""

    task: Task
    config: TrialConfig
    attempt: int
    job: str
    trial_id: str
    paths: TrialPaths
    scratch: Path
    senior: JudgeSettings | None = None
    model_endpoint: tuple[str, str | None] | None = None

    @property
    def agent_name(self) -> str:
        """The agent as given (``config.agent``)."""
        return self.config.agent

    @property
    def model(self) -> str | None:
        """The ``-m`` model (``config.model``)."""
        return self.config.model

    @property
    def options(self) -> dict:
        """The agent's options (``config.agent_options``)."""
        return self.config.agent_options

    @property
    def agent_timeout_sec(self) -> float | None:
        """The ``--agent-timeout`` budget in seconds, scaled by ``--timeout-multiplier`` (None:
        each task's ``task.toml``)."""
        budget = self.config.agent_timeout_sec
        return budget and budget * self.config.timeout_multiplier


__all__ = ["TrialInvalid", "TrialSpec", "check_health", "run_agent"]


async def check_health(task: Task, sandbox: Sandbox, env: dict[str, str], step=None,
                       point: Checkpoint | None = None) -> None:
    """The task's health check (``[environment.healthcheck]``), or ``step``'s, before the agent
    (or the step's agent) runs, with the health check's ``env`` (resolved once,
    :class:`lancebench.task.settings.TrialSettings`). Raises
    :class:`~lancebench.runner.healthcheck.HealthcheckFailed`; the trial blames it with
    :func:`lancebench.runner.control.blame` (``invalid`` before any agent code ran; after, only
    when a fresh pristine sandbox fails the same check). The check and its table's name are noted
    in ``point``."""
    check = step.healthcheck if step is not None else task.config.environment.healthcheck
    if check is None:
        return
    where = f"steps.{step.name}.healthcheck" if step is not None else "environment.healthcheck"
    if point is not None:
        point.check, point.where = check, where
    await run_healthcheck(sandbox, check, env=env, where=where)
    if point is not None:
        point.check, point.where = None, ""


async def agent_mounts(agent: Agent) -> tuple[Mount, ...]:
    """The host folders an agent needs bound into its sandbox (an installed agent's package and
    the model gateway's socket, :mod:`lancebench.agents.installed`); it installs what is missing
    first. An install that fails raises :class:`AgentError`: the trial is ``invalid``. Only a
    bundled agent is asked (attack pass round 6: a plug-in agent's ``sandbox_mounts`` raising
    ``AgentError`` made every trial of it ``invalid``)."""
    prepare = getattr(agent, "sandbox_mounts", None) if _bundled(agent) else None  # a plug-in's: not asked (round 6)
    return tuple(await prepare()) if prepare is not None else ()


def trial_labels(spec: TrialSpec) -> dict[str, str]:
    """Labels of every sandbox of the trial (``lancebench gc`` finds a crashed job's containers by them)."""
    return {"lancebench.job": spec.job, "lancebench.trial": spec.trial_id}


async def run_agent(agent: Agent, ctx: AgentContext, budget: float, point: Checkpoint | None = None,
                    endpoint: tuple[str, str | None] | None = None) -> AgentOutcome:
    """Run the agent, ending it at its deadline (plus a grace period for its own clean-up); from
    here on agent code has run (``point.agent_ran``). ``endpoint``: the job's model and server
    (:attr:`TrialSpec.model_endpoint`). How what the agent raises counts (issue 20):

    - :class:`ModelAuthError` raised by lancebench's model client for the job's model (or by a
      bundled agent) propagates (the job stops), unless a plain request to the job's model by the
      harness's client is answered (a plug-in agent's client gave credentials of its own: its
      failure); one a plug-in agent raised itself is its failure;
    - a :class:`ModelError` (credentials refused included) raised by lancebench's model client for a
      model or server the job does not name (``ModelError.endpoint``: an agent building its own
      client) is the agent's failure (attack pass round 5: an agent's client aimed at a server
      refusing everything made its failing trial ``invalid``, or stopped the job);
    - the client's :class:`DeadlineExceeded` (the deadline the agent gave a call) and
      :class:`ContextWindowError` (its conversation outgrew the model's window) are the agent's:
      exit ``timeout`` / ``limit``, its work graded (attack pass round 5: a plug-in agent that gave
      a call a deadline already past had its trial ``invalid``, "the model provider failed");
    - a :class:`ModelError` raised in lancebench's model client (after its retries) for the job's
      model is a provider outage: :class:`TrialInvalid` with
      :data:`~lancebench.runner.control.MODEL_PROVIDER`; but a refusal of what the request held
      (:class:`ModelRefused`) whose control, a plain request to the job's model by a client of the
      harness's (none of the agent's arguments), is answered is the agent's failure
      (:func:`_refusal_control`); a plug-in agent's error of any kind counts as the job's model's
      only when that control fails too (its client's settings, a timeout of a millisecond, and the
      error's ``endpoint`` are the agent's to set; one with no ``endpoint`` is the agent's:
      :func:`_model_failure`, attack pass round 6);
    - a :class:`SandboxError` propagates: the trial blames it with a control run;
    - another lancebench error of a built-in agent (an oracle without a solution) is the harness's
      or the task's: :class:`TrialInvalid`;
    - anything else (the agent's own code raising, ``SystemExit`` or a ``CancelledError`` it raised
      itself included: attack pass round 6, a plug-in agent's ``raise SystemExit(0)`` ended the
      whole job with exit 0 and no result; a ``ModelError`` it raised itself, a value that
      is not an :class:`AgentOutcome`, an ``invalid_reason`` of an agent not bundled with
      lancebench, which no control can check) is the agent's failure: an outcome with exit
      ``error`` whose work is captured and graded as any other (the traceback in ``crash.log``).
      "Bundled" is by the class's identity with one the registry names (:func:`_bundled`).

    The trial's usage meter (:mod:`lancebench.runner.spend`) counts its model calls meanwhile.
    """
    if point is not None:
        point.agent_ran = True
    stopping, meter = _stopping(asyncio.current_task()), spend.current()  # this module's first, then spend's
    try:
        with metering(meter) if meter is not None else contextlib.nullcontext():
            outcome = await _within(_no_exit(agent.run(ctx), stopping), budget + AGENT_GRACE_SEC)
    except TimeoutError as exc:
        note = f"; {exc}" if isinstance(exc, LeftBehind) else ""
        return AgentOutcome(exit="timeout", message=f"ended by the harness after {budget:.0f}s{note}",
                            usage=usage_from_trajectory(ctx.logs_dir / "trajectory.json"))
    except SandboxError:
        raise
    except ModelError as exc:
        return await _model_failure(agent, ctx, exc, endpoint)
    except LancebenchError as exc:
        if _bundled(agent):  # its name is the harness's to read (a plug-in's may raise: round 6)
            name = getattr(agent, "name", type(agent).__name__)
            raise TrialInvalid(f"agent {name}: {type(exc).__name__}: {exc}",
                               f"{HARNESS}: lancebench's bundled agent {name} could not run") from exc
        return _crashed(ctx, exc)
    except Exception as exc:
        return _crashed(ctx, exc)
    except asyncio.CancelledError as exc:
        if _cancelled_by_harness():
            raise
        return _crashed(ctx, exc, "it raised CancelledError itself; the harness cancelled nothing")
    except KeyboardInterrupt as exc:  # the harness's SIGTERM lands in whatever frame runs
        if stopping():
            raise
        return _crashed(ctx, exc, "it raised KeyboardInterrupt itself; the harness was not interrupted")
    except BaseException as exc:  # a BaseException of its own: never the job's end (round 6)
        return _crashed(ctx, exc, "an agent ends its own run, never the job")
    return _checked(agent, ctx, outcome)


async def _model_failure(agent: Agent, ctx: AgentContext, exc: ModelError,
                         endpoint: tuple[str, str | None] | None) -> AgentOutcome:
    """How a :class:`ModelError` the agent raised counts (the rules of :func:`run_agent`): an
    outcome when it is the agent's failure; raises :class:`TrialInvalid` (an outage or refusal its
    control confirms) or the error itself (credentials refused: the job stops). A plug-in agent's
    error counts as the job's model's only once a plain request to the job's model by the harness's
    client fails too (attack pass round 6: the error's ``endpoint``, a plain attribute, cleared by
    the agent after a call of its own to a dead server made its losing trial ``invalid``, "the
    model provider failed", with no control)."""
    bundled = _bundled(agent)
    if not raised_by_model_client(exc):
        if isinstance(exc, ModelAuthError) and bundled:
            raise exc
        return _crashed(ctx, exc, "it raised ModelError itself, not lancebench's model client")
    if isinstance(exc, DeadlineExceeded | ContextWindowError):  # the agent's deadline or conversation
        return dataclasses.replace(_crashed(ctx, exc, "not an outage"),
                                   exit="timeout" if isinstance(exc, DeadlineExceeded) else "limit")
    if (exc.endpoint is not None or not bundled) and not _is_job_model(exc.endpoint, endpoint):
        where = (f"{exc.endpoint[0]} at {exc.endpoint[1] or 'its provider'}" if exc.endpoint
                 else "a call whose endpoint was cleared")
        return _crashed(ctx, exc, f"{where} is not the job's model: the agent chose where to send the request")
    if bundled:
        if isinstance(exc, ModelAuthError):
            raise exc
        control = await _refusal_control(exc, endpoint)
    else:  # its client's arguments and settings are its own: the harness's plain request decides
        control = await _control(endpoint)
    if control == ANSWERED:
        why = ("the job's model refused the credentials the agent gave" if isinstance(exc, ModelAuthError)
               else "the provider refused what the agent's request held" if _refusal(exc) is not None
               else "the agent's call failed")
        return _crashed(ctx, exc, f"{why}: {ANSWERED}")
    raise TrialInvalid(f"model error: {exc}", MODEL_PROVIDER + (f"; {control}" if control else "")) from exc


def _checked(agent: Agent, ctx: AgentContext, outcome: object) -> AgentOutcome:
    """The outcome ``agent`` returned, as the trial counts it (the rules of :func:`run_agent`): a
    value that is not an :class:`AgentOutcome`, or one that cannot be read, is its failure; a
    plug-in agent's is copied as plain values (:func:`_plain_outcome`), its ``invalid_reason``
    dropped (its failure)."""
    if not isinstance(outcome, AgentOutcome):
        return AgentOutcome(exit="error", message=f"the agent returned {type(outcome).__name__}, not AgentOutcome",
                            usage=usage_from_trajectory(ctx.logs_dir / "trajectory.json"))
    if not _bundled(agent):
        try:
            outcome = _plain_outcome(outcome)
        except Exception as exc:  # noqa: BLE001 - whatever its values raise is the agent's
            return _crashed(ctx, exc, "its outcome could not be read")
    if outcome.invalid_reason and not _bundled(agent):
        return dataclasses.replace(outcome, exit="error", invalid_reason=None,
                                   message=f"the agent reported a failure not its own, which the harness cannot "
                                           f"check: {outcome.invalid_reason}"[:2000])
    return outcome


def _plain_outcome(outcome: AgentOutcome) -> AgentOutcome:
    """A plain :class:`AgentOutcome` of a plug-in agent's ``outcome``, its values copied as plain
    values (``exit`` one of the four, text, a fresh :class:`Usage`, a JSON ``choice``); raises
    whatever reading them raises (attack pass round 6: a subclass whose ``usage`` property raised
    ended the whole job, "internal error")."""
    exit_, message, applied = outcome.exit, outcome.message, outcome.patch_applied
    if type(exit_) is not str or exit_ not in ("completed", "limit", "timeout", "error"):
        raise ValueError(f"exit {exit_!r} is not completed, limit, timeout or error")
    usage = outcome.usage
    if not isinstance(usage, Usage):
        raise TypeError(f"usage is {type(usage).__name__}, not Usage")
    _check_usage(usage)
    reason = outcome.invalid_reason
    return AgentOutcome(exit=exit_, message=None if message is None else str(message)[:100_000],
                        patch_applied=None if applied is None else applied is True,
                        choice=json.loads(json.dumps(outcome.choice)),
                        usage=Usage.model_validate_json(Usage.model_dump_json(usage)),
                        invalid_reason=None if reason is None else str(reason)[:2000])


MAX_COUNT = MAX_USAGE_COUNT  # tokens, calls or retries an agent may report for one trial
MAX_COST_USD = MAX_USAGE_COST_USD


def _check_usage(usage: Usage) -> Usage:
    """``usage`` as an agent reported it (its outcome, its trajectory), unchanged; raises
    ``ValueError`` when a count is negative or above :data:`MAX_COUNT`, or the cost is not a
    finite number of dollars in [0, :data:`MAX_COST_USD`] (attack pass round 7: a plug-in's report
    of 10**30 tokens was recorded, and ``show`` and ``report`` of the whole job ended in "internal
    error", ``OverflowError`` in the metrics' int64 columns)."""
    counts = (usage.input_tokens, usage.output_tokens, usage.cached_tokens, usage.calls, usage.retries)
    if any(type(n) is not int or not 0 <= n <= MAX_COUNT for n in counts):
        raise ValueError(f"usage counts {counts} are not whole numbers in [0, {MAX_COUNT}]")
    cost = usage.cost_usd
    if cost is not None and not (isinstance(cost, float | int) and 0 <= cost <= MAX_COST_USD):
        raise ValueError(f"usage cost {cost!r} is not a number of dollars in [0, {MAX_COST_USD:.0f}]")
    return usage


class AgentExited(Exception):
    """The agent's code raised ``SystemExit``, or a ``KeyboardInterrupt`` of its own (:func:`_no_exit`)."""


DEAF_SEC = 10.0  # how long an agent cancelled at its deadline has to end before it is left behind
_interrupted = threading.Event()  # set by the command line's SIGTERM handler (note_interrupt)


def note_interrupt() -> None:
    """Note that the harness was asked to stop (the command line's SIGTERM handler calls it before
    raising ``KeyboardInterrupt``): a ``KeyboardInterrupt`` then raised in an agent's code is the
    harness's stop, not the agent's own (:func:`_no_exit`)."""
    _interrupted.set()


def _stopping(trial: asyncio.Task | None):
    """Whether the harness is being stopped: told so (:func:`note_interrupt`), or the trial's task
    ``trial`` cancelled (a first Ctrl-C cancels the job's tasks)."""
    return lambda: _interrupted.is_set() or (trial is not None and trial.cancelling() > 0)


class LeftBehind(TimeoutError):
    """The agent did not end within :data:`DEAF_SEC` of being cancelled at its deadline (:func:`_within`)."""


async def _no_exit(run, stopping):
    """Await the agent's coroutine ``run``, its ``SystemExit`` raised as :class:`AgentExited`: a task
    whose coroutine raises ``SystemExit`` raises it out of the event loop too, ending the whole job
    (attack pass round 6: a plug-in agent's ``raise SystemExit(0)`` ended the job with exit 0 and
    no result). So is a ``KeyboardInterrupt`` the agent raised itself (attack pass round 7: the job
    ended, exit 130, "interrupted", no result); one raised while the harness is being stopped
    (``stopping()`` true: :func:`_stopping`) is passed on."""
    try:
        return await run
    except SystemExit as exc:
        raise AgentExited(f"the agent raised SystemExit({exc.code!r})") from exc
    except KeyboardInterrupt as exc:
        if stopping():
            raise
        raise AgentExited("the agent raised KeyboardInterrupt itself; the harness was not interrupted") from exc


async def _within(run, limit: float):
    """Await the coroutine ``run`` for at most ``limit`` seconds (as ``asyncio.wait_for``), then
    cancel it; raises ``TimeoutError`` when it ran out. An agent that does not end within
    :data:`DEAF_SEC` of being cancelled (it swallows the cancellation) is left behind, no longer
    awaited nor waited for when the event loop closes: :class:`LeftBehind` (attack pass
    round 7: a plug-in agent catching ``BaseException`` in a loop held its trial, and the whole
    job, in the agent phase for ever, past its deadline and a SIGTERM). The same bound applies
    when the trial itself is cancelled (Ctrl-C)."""
    task = asyncio.ensure_future(run)
    try:
        await asyncio.wait({task}, timeout=limit)
    except asyncio.CancelledError:
        await _cancel(task)
        raise
    if task.done():
        return task.result()
    if not await _cancel(task):
        raise LeftBehind(f"it did not end within {DEAF_SEC:.0f}s of being cancelled and was left behind")
    if task.cancelled():
        raise TimeoutError()
    return task.result()


async def _cancel(task: asyncio.Future) -> bool:
    """Cancel ``task`` and wait (:data:`DEAF_SEC` at most) for it to end; whether it ended. One
    that did not is dropped from the tasks the event loop waits for when it closes (a private
    helper of asyncio, ``_unregister_task``, where it exists), so that the job can end, and is
    never freed: a coroutine freed is closed, which runs its ``except`` clauses once more, outside
    any event loop, where one that catches everything and awaits again loops for ever without
    yielding (seen: the job printed its results, then spun at 100% CPU until killed)."""
    task.cancel()
    await asyncio.wait({task}, timeout=DEAF_SEC)
    if task.done():
        return True
    forget = getattr(asyncio.tasks, "_unregister_task", None)
    if forget is not None and isinstance(task, asyncio.Task):
        forget(task)
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(task))  # a reference never dropped: never freed, never closed
    return False


def _cancelled_by_harness() -> bool:
    """Whether the running task was asked to stop (``Task.cancelling()``): a cancellation of the
    harness's (a stopped job, Ctrl-C), not a ``CancelledError`` the agent raised itself."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _bundled(agent: Agent) -> bool:
    """Whether ``agent`` is one of lancebench's own (its code is the harness's): its class is one
    the registry names (:mod:`lancebench.agents.registry`), by identity (attack pass round 6: a
    plug-in class claiming ``__module__ = "lancebench.agents.builtin"`` had its ``invalid_reason``
    trusted, its losing trial ``invalid``)."""
    from lancebench.agents.builtin import ScriptAgent
    from lancebench.agents.registry import BUILTIN, LLM_AGENTS
    from lancebench.plugins import load_object

    cls = type(agent)
    if cls in (*BUILTIN.values(), ScriptAgent):
        return True
    path = f"{cls.__module__}:{cls.__qualname__}"
    return path in LLM_AGENTS.values() and load_object(path, "agent") is cls


ANSWERED = "a plain request to the same model is answered (control)"


def _is_job_model(called: tuple[str, str | None] | None, job: tuple[str, str | None] | None) -> bool:
    """Whether ``called`` (litellm's model name and api base of a failed call; None: unknown) is
    the job's model ``job`` (``-m`` and ``--api-base`` as resolved; None: the job names no model)."""
    if called is None or job is None:
        return False
    try:
        resolved = resolve_model(*job)
    except LancebenchError:
        return False
    return called == (resolved.litellm_model, resolved.api_base)


def _plain_request(endpoint: tuple[str, str | None]) -> None:
    """A plain request to the job's model (``endpoint``) by a client of the harness's, holding
    nothing of the agent's (messages, arguments); raises :class:`ModelError` when it fails."""
    client = LLMClient(*endpoint, max_retries=2, backoff_sec=1.0, max_backoff_sec=5.0, request_timeout_sec=120.0)
    client.complete([{"role": "user", "content": "Reply with the word OK."}], max_tokens=8)


async def _refusal_control(exc: BaseException, endpoint: tuple[str, str | None] | None) -> str | None:
    """The control of a request the provider refused for what it held (a :class:`ModelRefused`
    in ``exc``'s chain): :data:`ANSWERED` when a plain request to the job's model ``endpoint``,
    by a client of the harness's (the refusing client's own arguments could be what is refused,
    attack pass round 5), is answered (the agent's request caused the refusal: its failure, never
    ``invalid``; attack pass round 4: an agent using lancebench's client made a request the
    provider refuses, a content filter or a bad parameter, and its losing trial was ``invalid``),
    a note when it is refused too (the provider's fault), None for any other model error (an
    outage after the client's retries). Raises :class:`ModelAuthError` (the job stops)."""
    if _refusal(exc) is None or endpoint is None:
        return None
    return await _control(endpoint)


def _refusal(exc: BaseException) -> ModelRefused | None:
    """The :class:`ModelRefused` in ``exc``'s chain (``__cause__``/``__context__``), if any."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and not isinstance(current, ModelRefused):
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return current if isinstance(current, ModelRefused) else None


async def _control(endpoint: tuple[str, str | None] | None) -> str:
    """A plain request to the job's model ``endpoint`` by the harness's client
    (:func:`_plain_request`): :data:`ANSWERED`, or a note saying how it failed too. Raises
    :class:`ModelAuthError` when the harness's own credentials are refused (the job stops)."""
    if endpoint is None:
        return "control: the job names no model to send a plain request to"
    try:
        await asyncio.to_thread(_plain_request, endpoint)
    except ModelAuthError:
        raise
    except ModelError as again:
        how = "refused" if isinstance(again, ModelRefused) else "failing"
        return f"control: a plain request to the same model is {how} too: {str(again)[:200]}"
    return ANSWERED


def _crashed(ctx: AgentContext, exc: BaseException, why: str = "") -> AgentOutcome:
    """The outcome of an agent whose own code raised ``exc``: exit ``error`` (the agent's failure),
    the traceback written to ``crash.log`` in its logs folder, its usage from its trajectory."""
    try:
        (ctx.logs_dir / "crash.log").write_text("".join(traceback.format_exception(exc)), errors="replace")
    except OSError:
        pass
    text = f"the agent crashed: {type(exc).__name__}: {exc}" + (f" ({why})" if why else "")
    return AgentOutcome(exit="error", message=text[:2000],
                        usage=usage_from_trajectory(ctx.logs_dir / "trajectory.json"))


def usage_from_trajectory(path: Path) -> Usage:
    """The usage an ended agent's trajectory recorded (empty when it wrote none)."""
    from lancebench.agents.trajectory import read_trajectory
    try:
        return _check_usage(read_trajectory(path).usage()) if path.is_file() else Usage()
    except (LancebenchError, ValueError, OSError):
        return Usage()


async def resume_sandbox(backend: Backend, sandbox: Sandbox) -> None:
    """Make the agent's sandbox usable again after a capture ended its processes
    (:meth:`Backend.resume`; docker: the container is started again, its files stay; local:
    nothing to do)."""
    await backend.resume(sandbox)

"""``invalid`` needs proof: what decides whether a failure that looks like the harness's is the
harness's (``invalid``) or the agent's (``unresolved``), and the control that proved it
(``TrialResult.control``).

Rules (issue 20):

- a failure before any agent code ran (the environment's build, the sandbox's start, the task's
  health check on the environment as built) is the harness's or the task's: :data:`BEFORE_AGENT`;
- a failure outside every sandbox is not the agent's: lancebench's model client giving up after
  its retries (:data:`MODEL_PROVIDER`; a :class:`ModelError` is taken as one only when it was
  raised in ``lancebench.llm``, see :func:`raised_by_model_client`), the harness's own code
  (:data:`HARNESS`);
- a sandbox failure or a failed health check **after** agent code ran in that sandbox (the agent
  deleted its container's shell, killed its keeper, removed what the harness needs to start the
  container again for the next step, or what a step's health check looks at) is graded by a
  control (:func:`pristine_control`): a fresh sandbox of the pristine environment is started and
  the same check runs in it. When that fails too, the environment or the engine is at fault
  (``invalid``, the control's failure recorded); when it works, the agent's work caused the
  failure: ``unresolved`` with reward 0 (:class:`AgentFault`);
- a failed capture of the agent's work is blamed the same way by the backend, at once
  (:func:`lancebench.backends.capture.controlled`: the same capture of the pristine base, in the
  same scratch space): a :class:`SandboxError` that carries its failed control (``control``) is
  ``invalid`` with it, without a second control; a :class:`WorkspaceError` that carries the
  control that worked is the agent's (``unresolved``, the control recorded).
"""

from __future__ import annotations

import dataclasses
import os
import traceback
from pathlib import Path

import lancebench.llm
from lancebench.errors import SandboxError, WorkspaceError
from lancebench.runner.healthcheck import HealthcheckFailed, run_healthcheck
from lancebench.sandbox.backend import Backend, PreparedEnvironment
from lancebench.task.harbor import Healthcheck
from lancebench.task.model import Task
from lancebench.task.settings import NO_NETWORK, NetworkPolicy, TrialSettings, phase_env

BEFORE_AGENT = "before any agent code ran: the environment as built"
MODEL_PROVIDER = "outside every sandbox: lancebench's model client gave up on the model provider after its retries"
HARNESS = "outside every sandbox: the harness itself"
CONTROL_TIMEOUT_SEC = 120.0  # the control sandbox's one command


class TrialInvalid(Exception):
    """Internal: the trial cannot be graded for a reason shown not to be the agent's; ``control``
    says what showed it (recorded as ``TrialResult.control``)."""

    def __init__(self, reason: str, control: str):
        super().__init__(reason)
        self.control = control


class AgentFault(Exception):
    """Internal: a failure that looked like the harness's came from the agent's work (a control
    showed that the harness and the pristine environment work): the trial is ``unresolved`` with
    reward 0 and this reason; ``control`` says which control cleared the harness."""

    def __init__(self, reason: str, control: str):
        super().__init__(reason)
        self.control = control


@dataclasses.dataclass
class Checkpoint:
    """What a trial has done so far, for :func:`blame`: whether agent code has run in a sandbox of
    the trial (``agent_ran``), the prepared environment (``env``), the agent phase's network
    (``network``), the health check being run when it failed (``check``, ``where``), whether the
    work was being captured (``capturing``) and the trial's settings once resolved (``settings``,
    :class:`lancebench.task.settings.TrialSettings`: the control's env comes from them)."""

    agent_ran: bool = False
    env: PreparedEnvironment | None = None
    network: NetworkPolicy | None = None
    check: Healthcheck | None = None
    where: str = ""
    capturing: bool = False  # the failure came while the work was captured: the control captures too
    settings: TrialSettings | None = None


def raised_by_model_client(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) was raised inside ``lancebench.llm``
    (lancebench's model client, after its retries): the innermost frame of its traceback is a file
    of that package. An agent's own ``raise ModelError(...)`` is not."""
    llm_dir = os.path.dirname(os.path.abspath(lancebench.llm.__file__ or ""))
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        frames = traceback.extract_tb(current.__traceback__)
        if frames and os.path.dirname(os.path.abspath(frames[-1].filename)) == llm_dir:
            return True
        current = current.__cause__ or current.__context__
    return False


def verdict_control(verifier_dir: Path) -> str:
    """The control behind an ``invalid`` verdict of :mod:`lancebench.grading.verifier` (which
    calls a broken or excluding run the grader's only when the untouched base fails too):
    the base's run in ``verifier_dir/base`` when it was graded, else the patch was empty (the
    graded run was the untouched repository itself)."""
    if (verifier_dir / "base").is_dir():
        return "the untouched base (no patch), graded in verifier/base, fails the same way"
    return "the patch is empty: the graded run was the untouched base itself"


async def pristine_control(task: Task, backend: Backend, env: PreparedEnvironment, scratch: Path, *,
                           network: NetworkPolicy | None, labels: dict[str, str], check: Healthcheck | None = None,
                           where: str = "", capture: bool = False,
                           settings: TrialSettings | None = None) -> str | None:
    """Start a fresh sandbox of the pristine environment (``env``, the agent phase's variables and
    ``network``), run ``true`` in it and then ``check`` (the health check that failed, named
    ``where``), capture its (unchanged) workspace when ``capture``, and stop it. Returns None
    when all of it works, else what failed (the control's own failure: the environment or the
    engine is broken without the agent's work). ``settings``: the trial's, resolved once (None:
    the agent's and the health check's env are resolved here)."""
    agent_vars = settings.agent.env if settings is not None else phase_env(task, "agent")
    check_env = settings.healthcheck_env if settings is not None else phase_env(task, "healthcheck")
    agent_env = dataclasses.replace(env, variables={**env.variables, **agent_vars})
    failed: str | None = None
    ran = False
    try:  # opening may fail too (a backend that cannot enforce the network raises)
        async with backend.open(task, agent_env, scratch, network=network if network is not None else NO_NETWORK,
                                labels=labels) as box:
            try:
                res = await box.exec(["true"], timeout=CONTROL_TIMEOUT_SEC)
                if not res.ok:
                    failed = f"`true` failed in a fresh sandbox (exit {res.exit_code}): {(res.output or '')[-300:]}"
                elif check is not None:
                    await run_healthcheck(box, check, env=check_env, where=where)
                if capture and failed is None:
                    await backend.capture(task, env, box, scratch.parent / "control-capture")
            except (SandboxError, HealthcheckFailed, WorkspaceError) as exc:
                failed = _said(exc)
            ran = True
    except (SandboxError, HealthcheckFailed, WorkspaceError) as exc:
        if not ran:  # it did not open or start (a failure of stopping it after its checks is ignored)
            return _said(exc)
    return failed


def _said(exc: BaseException) -> str:
    """A control's failure, as recorded: the exception's type and message, cut at 1,000 characters."""
    return f"{type(exc).__name__}: {exc}"[:1000]


async def blame(exc: Exception, point: Checkpoint, task: Task, backend: Backend, scratch: Path,
                labels: dict[str, str]) -> Exception:
    """The verdict on a sandbox failure or failed health check ``exc`` (see the module docstring):
    :class:`TrialInvalid` (before agent code ran, or the pristine control fails too) or
    :class:`AgentFault` (the control works). Never raises itself; returns what to raise."""
    what = f"{type(exc).__name__}: {exc}"[:3000]
    if not point.agent_ran or point.env is None:
        return TrialInvalid(what, BEFORE_AGENT if point.env is not None else f"{BEFORE_AGENT} (preparing it)")
    if isinstance(exc, SandboxError) and exc.control is not None:  # its control ran and failed too (a capture's)
        return TrialInvalid(what, exc.control)
    check = point.check if isinstance(exc, HealthcheckFailed) else None
    failed = await pristine_control(task, backend, point.env, scratch / "control", network=point.network,
                                    labels=labels, check=check, where=point.where, capture=point.capturing,
                                    settings=point.settings)
    if failed is not None:
        return TrialInvalid(what, f"a fresh sandbox of the pristine environment fails too: {failed}")
    done = ("started and passed the same health check" if check is not None else
            "started, and its workspace was captured" if point.capturing else "started and ran a command")
    return AgentFault(f"after the agent's work: {what}",
                      f"a fresh sandbox of the pristine environment {done}: the agent's work caused the failure")

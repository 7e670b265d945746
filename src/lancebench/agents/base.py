"""The Agent protocol: what is evaluated. An agent turns an instruction plus a sandbox into work
(files changed in the workspace, or a choice) and a trajectory."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from lancebench.results.models import Usage
from lancebench.sandbox.base import Limits, Sandbox


@dataclass
class AgentContext:
    """Everything an agent may use. It holds no tests and no right answer.

    - ``instruction``: the task's instruction text (for choice tasks it includes the proposals).
    - ``sandbox``: a started sandbox whose ``workdir`` holds the repository at its base commit.
    - ``timeout_sec``: the agent phase's wall budget in seconds; ``deadline`` is the same as a
      ``time.monotonic()`` value. The harness ends the agent at the deadline whatever it does.
    - ``logs_dir``: a host folder for the agent's own logs; ``trajectory.json`` there is kept.
    - ``model``: the model name given with ``-m`` (None for agents without one).
    - ``options``: agent options from the command line (``--max-steps``, ``--max-cost``, ...).
    - ``kind``: ``code`` or ``choice``; for choice tasks ``proposal_ids`` and ``answer_file``
      (workspace-relative) say where to write ``{"selected_proposal_id": N}``.
    - ``solution_dir``: the task's reference solution folder on the host, given to lancebench's
      ``oracle`` only (None for every other agent; attack pass round 7).
    - ``solution_env``: the task's ``[solution].env`` (host templates filled), for the oracle only
      (empty for every other agent).
    - ``browser``: the task has a browser test, so ``user-tool`` is available in the sandbox.
    - ``attempt``: which attempt of the task this trial is (0-based, as in ``-k``): seeded agents
      draw per attempt, so attempts are independent (pass@k needs them to be).
    """

    task_name: str
    instruction: str
    sandbox: Sandbox
    workdir: str
    timeout_sec: float
    deadline: float
    limits: Limits
    logs_dir: Path
    model: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    kind: Literal["code", "choice"] = "code"
    proposal_ids: list[int] | None = None
    answer_file: str | None = None
    solution_dir: Path | None = None
    solution_env: dict[str, str] = field(default_factory=dict)
    browser: bool = False
    price_usd: float = 0.0
    attempt: int = 0


@dataclass
class AgentOutcome:
    """What an agent reports when it ends.

    ``exit``: ``completed`` (it submitted), ``limit`` (a step/cost limit ended it), ``timeout``
    (the harness ended it at the deadline), ``error`` (it failed). ``choice``: the raw answer of a
    choice task, if the agent returns it directly rather than in the answer file. ``usage``:
    tokens and USD. ``invalid_reason``: set by lancebench's own agents when the failure was not
    the agent's (model outage): the trial becomes ``invalid``; from any other agent it cannot be
    checked and counts as the agent's failure. The patch is never taken from here: the harness
    captures it.
    """

    exit: Literal["completed", "limit", "timeout", "error"] = "completed"
    message: str | None = None
    patch_applied: bool | None = None  # agents that apply a given patch say whether it applied
    choice: Any = None
    usage: Usage = field(default_factory=Usage)
    invalid_reason: str | None = None


@runtime_checkable
class Agent(Protocol):
    """An agent under evaluation. ``name`` labels results; ``run`` does the work.

    ``run`` may let the :class:`lancebench.errors.ModelError` of lancebench's model client
    propagate (a provider outage after retries: trial ``invalid``) or raise
    :class:`lancebench.errors.ModelAuthError` (job stops). Any other exception, a ``ModelError``
    the agent raises itself included, is the agent's failure: exit ``error``, its work graded
    (:func:`lancebench.runner.agent_phase.run_agent`).
    """

    name: str

    async def run(self, ctx: AgentContext) -> AgentOutcome: ...

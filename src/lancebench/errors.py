"""One exception family for lancebench. Every message says what was wrong, where, and what to do."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


class LancebenchError(Exception):
    """Base of every error lancebench raises on purpose."""


class TaskError(LancebenchError):
    """A task folder is broken.

    Attributes: ``path`` (the file at fault), ``key`` (the TOML key or field, or None),
    ``problem`` (what is wrong) and ``fix`` (what to do). ``str()`` joins them in one line.
    """

    def __init__(self, path: Path | str, problem: str, *, key: str | None = None, fix: str | None = None,
                 task_dir: Path | str | None = None):
        self.path = Path(path)
        self.task_dir = Path(task_dir) if task_dir else self.path
        self.key = key
        self.problem = problem
        self.fix = fix
        where = f"{self.path}" + (f": key '{key}'" if key else "")
        msg = f"{where}: {problem}"
        if fix:
            msg += f" ({fix})"
        super().__init__(msg)


class TaskErrors(LancebenchError):
    """Several problems found in one or more task folders; ``errors`` holds each TaskError."""

    def __init__(self, errors: list[TaskError]):
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


class ConfigError(LancebenchError):
    """A command-line option or configuration value is wrong."""


class SandboxError(LancebenchError):
    """The sandbox backend failed (not the code running inside it). Trials that hit it are invalid
    once a control shows it is not the agent's doing (:mod:`lancebench.runner.control`).
    ``control``: set when the raiser already ran that control and it failed too (a capture of the
    pristine base, :func:`lancebench.backends.capture.controlled`): what it showed, recorded as the
    trial's ``control``; None when no control ran yet."""

    control: str | None = None


class EnvironmentBuildError(SandboxError):
    """Building a task's environment failed; the message ends with the tail of the build log."""


class WorkspaceError(LancebenchError):
    """What the agent left in its workspace cannot be captured or graded (a nested repository git
    refuses, a patch over the size cap, a tree git cannot read): the agent's doing, so the trial
    is ``unresolved`` with this message as reason, never ``invalid``. ``control``: set when a
    control cleared the harness first (the same capture of the pristine base worked,
    :func:`lancebench.backends.capture.controlled`): what it showed, recorded as the trial's
    ``control``; None when the failure is decided by the agent's files alone (a size cap)."""

    control: str | None = None


class AgentError(LancebenchError):
    """The agent could not run for a reason outside the model's control (a broken agent, not a wrong answer)."""


class ModelError(LancebenchError):
    """A model call failed after retries (outage, server errors): the trial is invalid, not failed.
    ``endpoint``: the model and server the failed call went to (litellm's model name, api base
    or None), set by lancebench's model client; None when raised elsewhere."""

    endpoint: tuple[str, str | None] | None = None


class ModelRefused(ModelError):
    """The provider refused one request for what it holds (a 4xx that is neither a credential,
    quota nor context-window refusal: a content filter, a request it cannot read), not retried.
    Whether the harness or the request's content (which may hold an agent's patch) is at fault
    takes a control: the same request without that content. ``control``, when the client set it:
    sends a plain request to the same model (returns when it is answered, raises
    :class:`ModelError` when it is refused too)."""

    def __init__(self, message: str, control: Callable[[], object] | None = None):
        super().__init__(message)
        self.control = control


class ModelAuthError(ModelError):
    """The model provider refused the credentials. Stops the job early; never retried."""


class ModelQuotaError(ModelAuthError):
    """The provider says the account's quota or credit is used up (a 429 ``insufficient_quota``,
    HTTP 402, a billing refusal): no retry can succeed, so it stops the job like a refused key
    (a :class:`ModelAuthError`, exit 3); finished trials are kept and a rerun resumes."""


class RunStopped(LancebenchError):
    """A run-level control stopped the job (``--max-total-cost``, ``--max-total-tokens``,
    ``--max-invalid-rate``): finished trials are kept, the trials in flight were cancelled (their
    spend is kept), and ``not_run`` lists the trials without a result (``task#attempt``); running
    the same command again, with the control raised, runs them."""

    def __init__(self, reason: str, not_run: list[str]):
        self.reason = reason
        self.not_run = not_run
        shown = ", ".join(not_run[:20]) + (f", ... ({len(not_run) - 20} more)" if len(not_run) > 20 else "")
        super().__init__(f"{reason}. {len(not_run)} trial(s) not run" + (f": {shown}" if not_run else "")
                         + ". Finished trials are kept; raise the limit and run the same command to run the rest")


class DatasetError(LancebenchError):
    """A dataset name or source is unknown or unreadable."""


class ResultsError(LancebenchError):
    """A job folder or one of its ``result.json`` files cannot be read.

    ``path`` is the file or folder at fault; the message says what is wrong and what to do."""

    def __init__(self, path: Path | str, problem: str, fix: str | None = None):
        self.path = Path(path)
        self.problem = problem
        self.fix = fix
        msg = f"{self.path}: {problem}"
        if fix:
            msg += f" ({fix})"
        super().__init__(msg)


class MissingComponentError(LancebenchError):
    """Something the chosen options need is not installed or not running: an optional extra
    (the message names it), the Docker SDK or engine, Ray, bubblewrap."""


class ModelAccessError(LancebenchError):
    """The model cannot be used before any trial starts: its API key is missing, or nothing
    answers at the API base (the message names the variable or the URL)."""

"""A browser task's app server, run beside its test runner under another uid (issue 12).

In a browser task the code under test runs in a process of its own, the app server, while the
runner (``tests/test.sh``: pytest, Playwright's driver, Chromium) drives it over 127.0.0.1. When
both run as the same user, the server (agent code) may ``ptrace`` the runner, write its memory
(``/proc/<pid>/mem``), signal it, or write its report and trace folders, and so change the
verdict. A task that names its app server (``[lancebench] app_server``, docs/tasks.md) has it
started by the harness instead, with :meth:`lancebench.sandbox.base.Sandbox.exec_with_app`:
another uid, the agent phase's environment (never the verifier's secrets), the repository
read-only (local), and none of the runner's folders: ``/tests``, ``/logs/verifier``, the user
tool's trace folder and lancebench's start-up files are hidden (local) or sealed to the runner's
uid with no access for anyone else (:func:`lancebench.sandbox.fstree.seal_tree`; docker, one
container). ``tests/test.sh`` sees ``LANCEBENCH_APP_SERVER=1`` and does not start the server
itself (it still does outside lancebench, e.g. under Harbor).

Where the code under test is imported into the runner itself (plain pytest tasks) no uid split
can help; see docs/security.md.
"""

from __future__ import annotations

from pathlib import Path

from lancebench.sandbox.base import AppProcess, ExecResult, Sandbox
from lancebench.sandbox.fstree import seal_tree
from lancebench.task.model import Task
from lancebench.task.settings import phase_env

#: Set in ``tests/test.sh``'s environment when the harness runs the task's app server.
STARTED_VAR = "LANCEBENCH_APP_SERVER"


def app_process(task: Task, hidden: tuple[str, ...], step: str | None = None) -> AppProcess | None:
    """The task's app server (``[lancebench] app_server``) with the agent phase's environment and
    the runner's mount targets ``hidden``; None when the task names none. Raises
    :class:`lancebench.errors.TaskError` when an env template has no value."""
    if not task.lb.app_server:
        return None
    return AppProcess(command=task.lb.app_server, env=phase_env(task, "agent", step=step), hidden=hidden)


async def run_verifier(sandbox: Sandbox, task: Task, command: list[str], *, cwd: str, env: dict[str, str],
                       timeout: float | None, sealed: tuple[Path, ...], hidden: tuple[str, ...],
                       user: str | None = None, step: str | None = None) -> tuple[ExecResult, str | None]:
    """Run the verifier ``command`` in the started ``sandbox`` as ``user`` (None: the default);
    when the task names an app server, first seal the runner's host folders ``sealed`` (given to
    the uid ``user`` runs as, closed to everyone else) and run the server beside it
    (:func:`app_process`, ``hidden`` being the targets of those folders). Returns (the command's
    result, the app server's output or None when there is none). Raises :class:`SandboxError`
    when the backend fails and ``OSError`` when a folder cannot be sealed."""
    app = app_process(task, hidden, step)
    if app is None:
        return await sandbox.exec(command, cwd=cwd, env=env, timeout=timeout, user=user), None
    uid = await sandbox.host_uid(user)
    for folder in sealed:
        seal_tree(folder, uid)
    return await sandbox.exec_with_app(command, app, cwd=cwd, env={**env, STARTED_VAR: "1"}, timeout=timeout,
                                       user=user)

"""Helpers shared by commands: selecting tasks, printing errors, running async code."""

from __future__ import annotations

import asyncio
import fnmatch
import hashlib
import os
import re
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import typer
from rich.markup import escape

from lancebench.backends.options import BackendOptions
from lancebench.datasets.registry import load_dataset
from lancebench.errors import (
    ConfigError,
    LancebenchError,
    MissingComponentError,
    ModelAccessError,
    ModelAuthError,
    RunStopped,
    TaskError,
)
from lancebench.report.terminal import terminal_console
from lancebench.results.load import JobResults, load_jobs
from lancebench.task.load import load_tasks
from lancebench.task.model import Task
from lancebench.task.settings import missing_host_vars

LOG_WIDTH = 200  # columns of standard output off a terminal (a log file, CI) without COLUMNS


def output_width(is_terminal: bool, environ: Mapping[str, str]) -> int | None:
    """The width of standard output or error: None (rich's own: ``COLUMNS``, else the terminal's) on a
    terminal or with ``COLUMNS`` set, else :data:`LOG_WIDTH`, so that a log file holds tables in
    full (issue 28: reasons were cut at rich's default of 80 columns off a terminal)."""
    return None if is_terminal or environ.get("COLUMNS") else LOG_WIDTH


# agent text never drives the terminal (report/terminal.py); off a terminal (a log) standard error's
# messages are never broken into lines, and its tables are as wide as standard output's
console = terminal_console(stderr=True, width=output_width(sys.stderr.isatty(), os.environ),
                           soft_wrap=not sys.stderr.isatty())
out = terminal_console(width=output_width(sys.stdout.isatty(), os.environ))

# Exit codes of every command (docs/cli.md lists them).
EXIT_OK = 0
EXIT_FINDINGS = 1        # tasks validate / check / calibrate found problems; or a command module cannot load
EXIT_INTERNAL = 70       # a bug in lancebench (sysexits' EX_SOFTWARE; the traceback is saved, see lancebench.cli)
EXIT_USAGE = 2           # a wrong option or input, a refused job (busy, other configuration)
EXIT_MODEL = 3           # the model cannot be used: key missing or refused, API base unreachable
EXIT_MISSING = 4         # an extra, bubblewrap, the Docker SDK or engine, or Ray is missing
EXIT_SKIPPED = 5         # the run finished, but some tasks or predictions had errors and were left out
EXIT_STOPPED = 6         # a run-level control (budget, invalid rate) stopped the job; the rest resumable
EXIT_INTERRUPTED = 130   # Ctrl-C or SIGTERM; finished trials are kept


def exit_code(exc: LancebenchError) -> int:
    """The exit code for an error a command stops on (see the ``EXIT_*`` constants)."""
    if isinstance(exc, (ModelAuthError, ModelAccessError)):
        return EXIT_MODEL
    if isinstance(exc, RunStopped):
        return EXIT_STOPPED
    if isinstance(exc, MissingComponentError):
        return EXIT_MISSING
    return EXIT_USAGE


def fail(exc: LancebenchError) -> typer.Exit:
    """Print ``exc`` as one ``error:`` line (``stopped:`` for model errors) and return the
    :class:`typer.Exit` to raise, with the code of :func:`exit_code`."""
    code = exit_code(exc)
    label = "stopped" if code in (EXIT_MODEL, EXIT_STOPPED) else "error"
    console.print(f"[red]{label}:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def select_tasks(paths: list[Path] | None, dataset: str | None, globs: list[str] | None, limit: int | None,
                 source: Path | None = None, repo_path: Path | None = None,
                 lenient: bool = False, excludes: list[str] | None = None) -> tuple[list[Task], list[TaskError], str]:
    """Tasks from ``-p`` paths or ``-d`` dataset, filtered by ``-t`` globs, then ``-x`` globs
    (``excludes``: tasks whose name matches one are left out, as Harbor's ``-x``), then the ``-l``
    limit; with ``lenient``, keys of ``-p`` tasks unknown to Harbor's model are ignored instead of
    refused. Returns (tasks, task errors, a short label of the source). Raises ConfigError, also
    when ``-x`` leaves out every task."""
    if bool(paths) == bool(dataset):
        raise ConfigError("pass exactly one of -p PATH (a task folder or a folder of tasks) or -d DATASET")
    if repo_path is not None and not dataset:
        raise ConfigError("--repo-path goes with -d swelancer[:manager] "
                          "(it is the product repository its tasks browse)")
    if dataset:
        tasks, errors = load_dataset(dataset, source=source, repo_path=repo_path, names=globs)
        label = dataset
    else:
        paths = list(paths or [])
        tasks, errors = load_tasks(paths, lenient=lenient)
        label = "+".join(Path(p).resolve().name for p in paths)
    unique: dict[Path, Task] = {}
    for t in tasks:  # the same folder named twice (-p tasks -p tasks/x) runs once
        unique.setdefault(t.paths.root, t)
    tasks, twins = one_task_per_name(list(unique.values()))
    errors = errors + twins
    if globs:
        known = sorted(t.name for t in tasks)
        tasks = [t for t in tasks if any(fnmatch.fnmatch(t.name, g) for g in globs)]
        errors = [e for e in errors if any(fnmatch.fnmatch(e.task_dir.name, g) for g in globs)]
        if known and not tasks and not errors:
            shown = ", ".join(known[:8]) + (f", ... ({len(known)} in all)" if len(known) > 8 else "")
            raise ConfigError(f"no task of {label} matches -t {' '.join(globs)} (globs over task names: {shown})")
    if excludes:
        tasks, errors = exclude_tasks(tasks, errors, excludes, label)
    tasks = sorted(tasks, key=lambda t: t.name)
    if limit is not None:
        tasks = tasks[:limit]
    unfilled = {t.paths.root: missing_host_vars(t) for t in tasks}  # ${VAR} the host must give: a plan-time error
    errors = errors + [e for t in tasks for e in unfilled[t.paths.root]]
    tasks = [t for t in tasks if not unfilled[t.paths.root]]
    return tasks, errors, label


def one_task_per_name(tasks: list[Task]) -> tuple[list[Task], list[TaskError]]:
    """``tasks`` with one folder per task name (the first by path) and a :class:`TaskError` for each
    other folder of a name already taken: trials, results and reports are keyed by task name, so
    two folders named ``x`` (``-p a -p b`` holding ``a/x`` and ``b/x``) would share one trial folder
    when their files are the same, and count as two attempts 0 of one task when not."""
    first: dict[str, Task] = {}
    errors: list[TaskError] = []
    for t in sorted(tasks, key=lambda t: str(t.paths.root)):
        if t.name in first:
            errors.append(TaskError(t.paths.root, f"task name {t.name!r} is taken by {first[t.name].paths.root}",
                                    fix="task names must be unique in a job: rename one of the folders, "
                                        "or pass only one of them with -p"))
        else:
            first[t.name] = t
    return [t for t in tasks if first.get(t.name) is t], errors


def exclude_tasks(tasks: list[Task], errors: list[TaskError], excludes: list[str],
                  label: str) -> tuple[list[Task], list[TaskError]]:
    """``tasks`` and ``errors`` without those whose task name matches a glob of ``excludes``
    (``-x``/``--exclude``). Raises :class:`ConfigError` when no task is left, since a run of
    nothing is a mistake."""
    def out_(name: str) -> bool:
        return any(fnmatch.fnmatch(name, g) for g in excludes)
    kept = [t for t in tasks if not out_(t.name)]
    kept_errors = [e for e in errors if not out_(e.task_dir.name)]
    if (tasks or errors) and not kept and not kept_errors:
        raise ConfigError(f"-x {' '.join(excludes)} leaves out every task of {label}; exclude fewer")
    return kept, kept_errors


def backend_options(ca_bundle: Path | None = None, repo_path: Path | None = None) -> BackendOptions:
    """The backend's settings from the command line: ``--ca-bundle`` (a file trusted by environment
    builds) and ``--repo-path`` (a host repository that task checkouts may snapshot). Raises
    :class:`typer.BadParameter` when the CA bundle is not a file."""
    if ca_bundle is not None and not ca_bundle.is_file():
        raise typer.BadParameter(f"{ca_bundle} is not a file", param_hint="--ca-bundle")
    return BackendOptions(ca_bundle=ca_bundle.resolve() if ca_bundle is not None else None,
                          checkout_repos=(repo_path.expanduser().resolve(),) if repo_path is not None else ())


def runnable(tasks: list[Task], errors: list[TaskError], backend: str) -> tuple[list[Task], list[TaskError]]:
    """(the tasks ``backend`` can run, ``errors`` plus one line for each it cannot): a plan-time
    check, so no invalid trial is recorded for a task that could never run there."""
    from lancebench.backends.registry import cannot_run
    problems = {t.paths.root: cannot_run(t, backend) for t in tasks}
    return ([t for t in tasks if problems[t.paths.root] is None],
            errors + [p for p in problems.values() if p is not None])


def print_task_errors(errors: list[TaskError]) -> None:
    for e in errors:
        console.print(f"[red]task error[/red] {escape(str(e))}", highlight=False, soft_wrap=True)


def slug(*parts: str | None, max_len: int = 100) -> str:
    """A file-name-safe join of ``parts``; long ones are cut and end with a hash of the whole."""
    text = "__".join(re.sub(r"[^A-Za-z0-9_.-]+", "-", p).strip("-") for p in parts if p)
    if len(text) > max_len:
        text = text[: max_len - 13] + "-" + hashlib.sha256(text.encode()).hexdigest()[:12]
    return text


def _sigterm(signum, frame):
    phase = sys.modules.get("lancebench.runner.agent_phase")  # loaded once an agent can run
    if phase is not None:
        phase.note_interrupt()  # a KeyboardInterrupt raised in an agent's code is then the harness's stop
    raise KeyboardInterrupt


def run_async(coro):
    """Run a coroutine; Ctrl-C or SIGTERM cancels it (so sandboxes are stopped) and exits 130."""
    signal.signal(signal.SIGTERM, _sigterm)
    try:
        return asyncio.run(coro)
    except KeyboardInterrupt:
        console.print("[yellow]interrupted: finished trials are kept; run the same command to resume[/yellow]")
        raise typer.Exit(EXIT_INTERRUPTED) from None


def load_finished_jobs(job_dirs: Sequence[Path | str]) -> list[JobResults]:
    """:func:`lancebench.results.load.load_jobs`, raising :class:`ConfigError` when no job has a
    finished trial (nothing to report, analyse or show)."""
    jobs = load_jobs(job_dirs)
    if not any(j.results for j in jobs):
        raise ConfigError("no finished trial (trials/*/result.json) in "
                          + ", ".join(str(j.path) for j in jobs) + ": run or resume the job first")
    return jobs

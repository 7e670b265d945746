"""``lancebench resume JOB``: run a job folder again with the settings it recorded (``JOB/job.yaml``,
written by ``run`` before its first trial), as Harbor's ``jobs resume -p JOB``. Trials with a
result are kept; the others (interrupted, never started, or ``invalid`` with ``--retry-invalid``)
run. Only how the run goes may be changed: concurrency, retrying invalid trials, the env file,
a dry run, quiet output."""

from __future__ import annotations

from pathlib import Path

import typer

from lancebench.commands.aliases import aliased
from lancebench.commands.common import EXIT_SKIPPED, fail
from lancebench.commands.run import HELP, run_job_file
from lancebench.errors import ConfigError, LancebenchError


def job_file(job_dir: Path) -> Path:
    """``JOB/job.yaml``. Raises :class:`ConfigError` naming the folder and the fix when ``job_dir`` is
    not a job folder, or one an older lancebench wrote without the settings."""
    if not job_dir.is_dir():
        raise ConfigError(f"{job_dir}: no such job folder; name a folder made by `lancebench run` (e.g. jobs/NAME)")
    spec = job_dir / "job.yaml"
    if spec.is_file():
        return spec
    if (job_dir / "job.json").is_file():
        raise ConfigError(f"{job_dir}: has no job.yaml (the settings resume reads): `lancebench grade` or an older "
                          "lancebench made it; run its original command again, which resumes it as well "
                          "(job.json names its agent, model and tasks)")
    raise ConfigError(f"{job_dir}: is not a job folder (no job.json); name a folder made by `lancebench run`")


def resume(
    job_dir: Path = typer.Argument(..., metavar="JOB", help="A job folder made by `lancebench run`."),
    concurrency: int | None = typer.Option(None, "-n", "--concurrency", min=1,
                                           help="Trials at once (default: as recorded)."),
    retry_invalid: bool = typer.Option(False, "--retry-invalid", help=HELP["retry_invalid"]),
    env_file: Path | None = typer.Option(None, "--env-file", help=HELP["env_file"]),
    dry_run: bool = typer.Option(False, "--dry-run", help=HELP["dry_run"]),
    quiet: bool = typer.Option(False, "-q", "--quiet", help=HELP["quiet"]),
    heartbeat: float | None = typer.Option(None, "--heartbeat", help=HELP["heartbeat"]),
) -> None:
    """Resume a job with the settings it was run with (JOB/job.yaml): recorded trials are kept, the
    rest run. Exit codes as for run (docs/cli.md).

    Examples:
      lancebench resume jobs/calc__oracle
      lancebench resume jobs/mini__mini-swe-agent__local -n 4 --retry-invalid
    """
    given = {k: v for k, v in locals().items() if k != "job_dir" and v is not None and v is not False}
    try:
        spec = job_file(job_dir)
        root = job_dir.resolve()
        skipped = run_job_file(spec, {**given, "jobs_dir": root.parent, "job_name": root.name})
    except LancebenchError as exc:
        raise fail(exc) from None
    if skipped:
        raise typer.Exit(EXIT_SKIPPED)


def register(app: typer.Typer) -> None:
    """Add the ``resume`` command to the ``lancebench`` app."""
    app.command("resume", cls=aliased("resume"))(resume)

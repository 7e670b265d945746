"""``lancebench resume JOB``: run a job folder again with the settings it recorded (``JOB/job.yaml``,
written by ``run`` before its first trial), as Harbor's ``jobs resume -p JOB``. Trials with a
result are kept; the others (interrupted, never started, or ``invalid`` with ``--retry-invalid``)
run. Only how the run goes may be changed: concurrency, retrying invalid trials, the env file,
a dry run, quiet output."""

from __future__ import annotations

from pathlib import Path

import typer

from lancebench.commands.aliases import aliased
from lancebench.commands.common import EXIT_SKIPPED, console, fail
from lancebench.commands.old_job import command_line, settings_from_job_json
from lancebench.commands.run import HELP, run_job_file
from lancebench.errors import ConfigError, LancebenchError
from lancebench.results.harbor_jobs import is_harbor_job
from lancebench.runner.job import ConfigMismatchError


def job_file(job_dir: Path) -> Path | None:
    """``JOB/job.yaml``, or None for a job folder without one (an older lancebench's, or one
    ``lancebench grade`` made: :mod:`lancebench.commands.old_job` reads its ``job.json``). Raises
    :class:`ConfigError` naming the folder and the fix when ``job_dir`` is not a job folder."""
    if not job_dir.is_dir():
        raise ConfigError(f"{job_dir}: no such job folder; name a folder made by `lancebench run` (e.g. jobs/NAME)")
    spec = job_dir / "job.yaml"
    if spec.is_file():
        return spec
    if (job_dir / "job.json").is_file():
        return None
    if is_harbor_job(job_dir):
        raise ConfigError(f"{job_dir}: is a Harbor job folder: lancebench reads it (show, report) but resumes only "
                          f"the jobs it ran; resume it with Harbor (harbor jobs resume -p {job_dir}), or run its "
                          "tasks with `lancebench run`")
    raise ConfigError(f"{job_dir}: is not a job folder (no job.json); name a folder made by `lancebench run`")


def resume_old_job(job_dir: Path, given: dict) -> bool:
    """Resume a job folder without ``job.yaml`` with the settings its ``job.json`` records, after
    saying so on standard error with the equivalent ``lancebench run`` command and the flags
    ``job.json`` does not record (their defaults apply). The run records ``job.yaml`` as any run
    does. Returns whether some tasks had errors and were left out; raises what ``run`` raises."""
    doc, missing = settings_from_job_json(job_dir)
    console.print(f"note: {job_dir} has no job.yaml (an older lancebench made it): resuming with the settings its "
                  f"job.json records, as\n  {command_line(doc)}\njob.json does not record {', '.join(missing)}: "
                  "if the job's first run gave any of them, run the command above with them added instead (it "
                  "resumes the job as well; --dry-run shows the plan first)", highlight=False, soft_wrap=True,
                  markup=False)
    return run_job_file(job_dir / "job.json", given, doc=doc)


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
    """Resume a job with the settings it was run with (JOB/job.yaml; for a job of an older
    lancebench, those JOB/job.json records): recorded trials are kept, the rest run. Exit codes as
    for run (docs/cli.md).

    Examples:
      lancebench resume jobs/calc__oracle
      lancebench resume jobs/mini__mini-swe-agent__local -n 4 --retry-invalid
    """
    given = {k: v for k, v in locals().items() if k != "job_dir" and v is not None and v is not False}
    try:
        spec = job_file(job_dir)
        root = job_dir.resolve()
        given = {**given, "jobs_dir": root.parent, "job_name": root.name}
        skipped = run_job_file(spec, given) if spec is not None else resume_old_job(job_dir, given)
    except ConfigMismatchError as exc:  # run's hint (--new-job, --job-name) is no option of resume
        raise fail(_mismatch(job_dir, spec, exc)) from None
    except LancebenchError as exc:
        raise fail(exc) from None
    if skipped:
        raise typer.Exit(EXIT_SKIPPED)


def _mismatch(job_dir: Path, spec: Path | None, exc: ConfigMismatchError) -> ConfigError:
    """The error of a resume whose settings (``spec``: ``JOB/job.yaml``, None for an older job's
    ``job.json``) differ from what the job's trials recorded, with the fixes ``resume`` has."""
    new_job = f"lancebench run -c {spec} --new-job" if spec else "the `lancebench run` command above with --new-job"
    return ConfigError(f"{job_dir}: its settings ({spec or job_dir / 'job.json'}) differ from the configuration its "
                       f"trials recorded ({'; '.join(exc.differences)}): put the recorded values back to resume it, "
                       f"or run the new settings as a job of their own: {new_job}")


def register(app: typer.Typer) -> None:
    """Add the ``resume`` command to the ``lancebench`` app."""
    app.command("resume", cls=aliased("resume"))(resume)

"""``lancebench report``: pass@k, pass^k, dollars, cost savings and quality across job folders."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from pathlib import Path

import typer
from rich.console import Console

from lancebench.commands.common import load_finished_jobs
from lancebench.errors import ConfigError, LancebenchError
from lancebench.metrics.exclusions import EXCLUSION_RULES, exclusion_note, under_rule
from lancebench.report.build import ReportOptions, build_report
from lancebench.report.compare_render import render_common, render_comparisons
from lancebench.report.render import check_format, render_table, to_csv, to_json, write_parquet
from lancebench.report.terminal import terminal_console
from lancebench.results.load import JobResults

EXAMPLES = """Examples:

  lancebench report jobs/run-1

  lancebench report jobs/gpt-a jobs/gpt-b jobs/local --format json --out report.json

  lancebench report jobs/ --by price --format csv

  lancebench report jobs/swelancer --by variant --k 3 --format parquet --out report.parquet

  lancebench report jobs/ --html site/     (then open site/index.html; or: lancebench view jobs/)

  lancebench report jobs/agent-a jobs/agent-b --cluster repository --detect 0.1

A folder of job folders (jobs/) stands for every job in it. One row per (agent, model, dataset)
across all the job folders; --by FIELD breaks each row down by a
task field (kind, split, price, task, variant, or a taxonomy key). Every pair of rows is compared
on the tasks both have (paired difference, interval, p-value, Holm-adjusted), with the smallest
difference the tasks can detect and the tasks a --detect difference needs. Definitions: docs/metrics.md."""


def report(
    job_dirs: list[Path] = typer.Argument(..., metavar="JOB_DIR...",
                                          help="Job folders (each holds job.json and trials/), or folders of them."),
    fmt: str = typer.Option("table", "--format", "-f", help="table, json, csv or parquet (needs pyarrow and --out)."),
    by: str | None = typer.Option(None, "--by", help="Break rows down by a task field: kind, split, price, "
                                                        "task, variant or a taxonomy key."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Write to this file instead of standard output."),
    k: int | None = typer.Option(None, "--k", min=1, help="Largest k for pass@k, pass^k and cost savings "
                                                             "(default: the most valid attempts of a task)."),
    confidence: float = typer.Option(0.95, "--confidence", help="Confidence level of the intervals."),
    bootstrap: int = typer.Option(1000, "--bootstrap", min=1, help="Bootstrap resamples (over tasks)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap and of the permutation tests."),
    cluster: str | None = typer.Option(None, "--cluster", metavar="KEY",
                                       help="Taxonomy key whose tasks are correlated (repository, variant...): "
                                            "standard errors and comparison intervals clustered by it."),
    power: float = typer.Option(0.8, "--power", help="Power of the comparisons' power analysis."),
    detect: float = typer.Option(0.05, "--detect", metavar="DIFF",
                                 help="pass@1 difference (a fraction) the power analysis says the tasks or "
                                      "attempts needed for."),
    html: Path | None = typer.Option(None, "--html", metavar="OUT_DIR",
                                        help="Also write a static site (leaderboard, plots, tasks, a page for every "
                                             "trial) into this folder; open OUT_DIR/index.html, no network needed."),
    errors_as_failures: bool = typer.Option(False, "--errors-as-failures",
                                            help="Count invalid trials as unresolved with reward 0 (the conservative "
                                                 "number); each row's notes say so."),
    exclusions: str = typer.Option("control", "--exclusions",
                                   help="control: lancebench's rule (an exclusion only the patched run shows is "
                                        "unresolved); task: every trial the task's verifier excluded is left out, "
                                        "as Harbor and the leaderboard count. The report records which applied."),
) -> None:
    """Report pass@k, pass^k, dollars earned, cost savings and quality, with confidence intervals."""
    try:
        check_format(fmt, out)
        if not 0.0 < confidence < 1.0:
            raise ConfigError(f"--confidence {confidence}: give a level between 0 and 1, such as 0.95")
        if not 0.0 < power < 1.0:
            raise ConfigError(f"--power {power}: give a probability between 0 and 1, such as 0.8")
        if not 0.0 < detect <= 1.0:
            raise ConfigError(f"--detect {detect}: give a pass@1 difference as a fraction in (0, 1], such as 0.05")
        if exclusions not in EXCLUSION_RULES:
            raise ConfigError(f"--exclusions {exclusions}: give one of {', '.join(EXCLUSION_RULES)}")
        options = ReportOptions(by=by, kmax=k, confidence=confidence, n_boot=bootstrap, seed=seed, cluster=cluster,
                                power=power, wanted_diff=detect)
        if html is not None:
            from lancebench.report.html.site import build_site
            jobs, _, _ = _counted(load_finished_jobs(job_dirs), exclusions, errors_as_failures)
            index = build_site(jobs, html, options)
            typer.echo(f"site: {index.resolve()}")
            if out is None:  # the site was asked for; a table or file too only with --out
                return
        data = report_data(job_dirs, options, exclusions, errors_as_failures)
        _write(data, fmt, out)
    except LancebenchError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc


def _apply_exclusions(jobs: list[JobResults], rule: str) -> tuple[list[JobResults], str | None]:
    """``jobs`` counted under the exclusion ``rule`` (:func:`lancebench.metrics.exclusions.under_rule`)
    and the note saying what the rule changed (None when no task excluded a trial)."""
    recorded = [r for j in jobs for r in j.results]
    return [dataclasses.replace(j, results=under_rule(j.results, rule)) for j in jobs], exclusion_note(recorded, rule)


def _count_errors(jobs: list[JobResults]) -> tuple[list[JobResults], str]:
    """``jobs`` with every invalid trial counted as unresolved (``--errors-as-failures``, see
    :mod:`lancebench.results.conservative`), and the note saying how many."""
    from lancebench.results.conservative import counted_note, errors_as_failures
    note = counted_note([r for j in jobs for r in j.results])
    return [dataclasses.replace(j, results=errors_as_failures(j.results)) for j in jobs], note


def _counted(jobs: list[JobResults], exclusions: str,
             errors_as_failures: bool) -> tuple[list[JobResults], str | None, str | None]:
    """(``jobs`` counted under the exclusion rule, then with errors as failures when asked; the
    exclusions note; the errors-as-failures note)."""
    jobs, excluded_note = _apply_exclusions(jobs, exclusions)
    note = None
    if errors_as_failures:
        jobs, note = _count_errors(jobs)
    return jobs, excluded_note, note


def _computed(jobs: list[JobResults], options: ReportOptions, exclusions: str, errors_as_failures: bool) -> dict:
    """The report's data (:func:`build_report`) with the counting rule and its notes."""
    jobs, excluded_note, note = _counted(jobs, exclusions, errors_as_failures)
    data = build_report(jobs, options)
    data["exclusion_rule"] = exclusions
    if excluded_note is not None:
        data["exclusions_note"] = excluded_note
        for row in data["rows"]:
            row["notes"].append(excluded_note)
    if note is not None:
        data["errors_as_failures"] = note
        for row in data["rows"]:
            row["notes"].append(note)
    return json.loads(json.dumps(data, default=str))  # the same values, kept or not


def report_data(job_dirs: list[Path], options: ReportOptions, exclusions: str, errors_as_failures: bool) -> dict:
    """The report of ``job_dirs`` (folders of job folders expanded): computed once per state of
    every job's files and kept in the first job's results index
    (:meth:`lancebench.results.index.IndexedTrials.derived`, keyed by the options, the counting,
    lancebench's version and every job's path as given, state and unfinished count), so reporting
    a finished job again
    parses none of its results. Harbor job folders are read whole each time. Raises
    :class:`ConfigError` when no job has a finished trial, :class:`LancebenchError` as
    :func:`lancebench.results.load.open_job`."""
    from lancebench import __version__
    from lancebench.results.harbor_jobs import is_harbor_job
    from lancebench.results.load import expand_job_dirs, open_job
    dirs = list({d.resolve(): d for d in expand_job_dirs(job_dirs)}.values())
    if not dirs or any(is_harbor_job(d) or not (d / "trials").is_dir() for d in dirs):
        return _computed(load_finished_jobs(job_dirs), options, exclusions, errors_as_failures)
    opened = [open_job(d) for d in dirs]
    try:
        key = json.dumps([__version__, dataclasses.asdict(options), exclusions, errors_as_failures,
                          [(str(j.path), j.trials.state, len(j.unfinished)) for j in opened]])
        key = "report\0" + hashlib.sha256(key.encode()).hexdigest()
        cached = opened[0].trials.derived(key)
        if cached is not None:
            return json.loads(cached)
        jobs = [JobResults(j.path, j.config, j.trials.results(), j.unfinished) for j in opened]
        if not any(j.results for j in jobs):
            return _computed(load_finished_jobs(job_dirs), options, exclusions, errors_as_failures)  # the error
        data = _computed(jobs, options, exclusions, errors_as_failures)
        opened[0].trials.store(key, json.dumps(data))
        return data
    finally:
        for j in opened:
            j.trials.close()


def _write(data: dict, fmt: str, out: Path | None) -> None:
    try:
        if fmt == "parquet":
            assert out is not None, "check_format requires --out for parquet"
            write_parquet(data, out)
        elif fmt == "table":
            if out is not None:
                with out.open("w", encoding="utf-8") as fh:
                    _table(data, terminal_console(file=fh, width=200, color_system=None))
            else:
                _table(data, terminal_console(width=None if sys.stdout.isatty() else 200))
        else:
            text = to_json(data) if fmt == "json" else to_csv(data)
            if out is not None:
                out.write_text(text, encoding="utf-8")
            else:
                sys.stdout.write(text)
    except OSError as exc:
        raise ConfigError(f"--out {out}: cannot write the report: {exc.strerror or exc} "
                          f"(check that the folder exists and is writable)") from exc


def _table(data: dict, console: Console) -> None:
    """The table output: rows, then the common-task rates and the paired comparisons."""
    render_table(data, console)
    render_common(data, console)
    render_comparisons(data, console)


def register(app: typer.Typer) -> None:
    """Add the ``report`` command to the ``lancebench`` app."""
    app.command("report", epilog=EXAMPLES, help=report.__doc__)(report)

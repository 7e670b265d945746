"""``lancebench show``: a job's trials and summary, one block per configuration (never mixed), the
unfinished trials counted; ``--trial ID`` prints one trial in full; ``--format csv|parquet|jsonl``
writes one row per trial (:mod:`lancebench.results.export`)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import typer
from rich import box
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from lancebench.commands.common import console, fail, out
from lancebench.errors import ConfigError, LancebenchError
from lancebench.metrics.exclusions import EXCLUSION_RULES, under_rule
from lancebench.metrics.rewards import reward_cell
from lancebench.results.load import JobResults, load_job, unfinished_usage
from lancebench.results.models import TrialResult
from lancebench.results.text import ascii_json

STATUS_STYLE = {"resolved": "green", "unresolved": "red", "invalid": "yellow"}
UNRECORDED = "(not recorded: results of an older lancebench)"


def judges_cell(r: TrialResult) -> str:
    """Senior grading of one trial in a few words: validation score, rubric mean, taste medians
    (practice/relative), each judge's status when not ok, and the tasteful flag."""
    parts = []
    for name, key in (("validation", "score"), ("rubric", "mean")):
        rec = r.judges.get(name)
        if rec is not None:
            parts.append(f"{name} {rec.scores[key]:.2g}" if rec.ok else f"{name} {rec.status}")
    taste = r.judges.get("taste")
    if taste is not None:
        parts.append(f"taste {taste.scores['practice_alignment']:g}/{taste.scores['relative_taste']:g}" if taste.ok
                     else f"taste {taste.status}")
    if r.quality is not None and r.quality.tasteful is not None:
        parts.append("tasteful" if r.quality.tasteful else "not tasteful")
    return ", ".join(parts)


TASK_WIDTH = 26


def short_task(name: str, width: int = TASK_WIDTH) -> str:
    """``name`` cut to ``width`` characters in the middle (``boltons-byte…ndary-manager``), so
    names that differ only at the end (a task and its ``-manager`` variant) stay apart."""
    if len(name) <= width:
        return name
    tail = (width - 1) // 2
    return f"{name[:width - 1 - tail]}…{name[-tail:]}"


def _cut(text: str) -> Text:
    """A one-line cell that ends in an ellipsis when cut (the column itself may shrink, so the
    numbers of the other columns always show)."""
    return Text(" ".join(text.split())[:200], no_wrap=True, overflow="ellipsis")


def results_table(results: list[TrialResult], title: str) -> Table:
    """One line per trial: task (cut in the middle), attempt, status, reward, model cost (USD),
    wall time (seconds), judges and reason (cut with an ellipsis to the terminal's width; the full
    text is in ``show --trial ID`` and ``--json``). The numeric columns never shrink."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    judged = any(r.judges for r in results)
    table.add_column("task", no_wrap=True, min_width=12, max_width=TASK_WIDTH)
    for col, width in (("try", 3), ("status", 10), ("reward", 6), ("$", 5), ("time", 5)):
        table.add_column(col, no_wrap=True, min_width=width, justify="left" if col == "status" else "right")
    if judged:
        table.add_column("judges", min_width=6)
    table.add_column("reason", min_width=6)
    for r in sorted(results, key=lambda r: (r.task, r.attempt)):
        cost = "?" if r.usage.cost_usd is None else f"{r.usage.cost_usd:.3f}"
        table.add_row(escape(short_task(r.task)), str(r.attempt), f"[{STATUS_STYLE[r.status]}]{r.status}[/]",
                      escape(reward_cell(r.rewards)), cost, f"{r.timings.total_sec:.0f}s",
                      *((_cut(judges_cell(r)),) if judged else ()), _cut(reason_cell(r)))
    return table


def reason_cell(r: TrialResult) -> str:
    """The trial's reason, and for an ``invalid`` trial the control that proved the fault is not
    the agent's (``TrialResult.control``): ``reason [control: ...]``."""
    reason = r.reason or ""
    return f"{reason} [control: {r.control}]" if r.status == "invalid" and r.control else reason


def summary_line(summary: dict) -> str:
    """``key=value`` pairs of a summary: counts, pass@1 and earn rate as %, USD with 2 decimals."""
    keys = ("trials", "resolved", "unresolved", "invalid", "invalid_rate", "unfinished", "pass_at_1", "earned_usd",
            "available_usd", "earn_rate", "cost_usd")
    parts = []
    for k in keys:
        if k not in summary:
            continue
        v = summary[k]
        if v is None:
            parts.append(f"{k}=n/a")
        elif isinstance(v, float):
            percent = k in ("pass_at_1", "earn_rate", "invalid_rate")
            parts.append(f"{k}={v:,.2f}" if k.endswith("_usd") else f"{k}={v:.1%}" if percent else f"{k}={v:.4g}")
        else:
            parts.append(f"{k}={v}")
    return "  ".join(parts)


def _print_summary(summary: dict) -> None:
    """The summary line, the quality line (judges) and the invalid-rate warning, if any."""
    from lancebench.report.render import quality_line
    out.print(summary_line(summary), highlight=False)
    line = quality_line(summary)
    if line:
        out.print(line, highlight=False)
    for note in summary.get("notes", []):
        if note.startswith("warning: invalid rate"):
            out.print(f"[yellow]{escape(note)}[/]", highlight=False)


def _one_summary(results: list[TrialResult]) -> dict:
    from lancebench.metrics import summarize
    from lancebench.report.swelancer import is_swelancer, variant_breakdown
    summary = summarize(results)
    if is_swelancer(results):
        summary["by_variant"] = variant_breakdown(results)
    return summary


def config_label(r: TrialResult) -> str:
    """How ``show`` names the configuration of ``r``: :meth:`TrialConfig.label` (or
    :data:`UNRECORDED`), and the dataset when there is one."""
    base = r.config.label() if r.config else UNRECORDED
    return f"{base} on {r.dataset}" if r.dataset else base


def by_config(results: list[TrialResult]) -> dict[str, list[TrialResult]]:
    """Trials grouped by :meth:`TrialResult.configuration` (agent, model, dataset, settings: the
    key ``report`` and the HTML report pool by), first-seen order, each group named by
    :func:`config_label`; results without a recorded configuration are grouped by agent, model
    and dataset, labelled with :data:`UNRECORDED`."""
    keyed: dict[tuple, list[TrialResult]] = {}
    for r in results:
        keyed.setdefault(r.configuration(), []).append(r)
    groups: dict[str, list[TrialResult]] = {}
    for rs in keyed.values():
        label = config_label(rs[0])
        if label in groups:  # unrecorded results of different agents or models
            label = f"{label} ({rs[0].agent}{' ' + rs[0].model if rs[0].model else ''})"
        groups[label] = rs
    return groups


def job_summary(job: JobResults) -> dict:
    """The summary of a job (:func:`lancebench.metrics.summarize`, plus ``unfinished``: planned
    trials without a result). A job holding trials of several configurations (made before runs
    were refused on a change) gets no pooled numbers: ``configurations`` lists
    ``{"config": label, "summary": ...}`` per configuration instead."""
    groups = by_config(job.results)
    if len(groups) <= 1:
        summary = _one_summary(job.results)
        if job.results and job.results[0].config:
            summary["config"] = job.results[0].config.model_dump()
    else:
        summary = {"trials": len(job.results),
                   "configurations": [{"config": label, "summary": _one_summary(rs)} for label, rs in groups.items()]}
    summary["unfinished"] = len(job.unfinished)
    spent = unfinished_usage(job)
    if spent.calls or spent.retries:  # billed by trials that have no result (yet): never dropped
        summary["unfinished_usage"] = spent.model_dump()
    return summary


def print_job(job: JobResults, summary: dict) -> None:
    """The job's table(s) and summary line(s), and a note on unfinished trials."""
    from lancebench.report.swelancer import breakdown_table
    blocks = summary.get("configurations") or [{"config": None, "summary": summary}]
    groups = by_config(job.results)
    for block in blocks:
        label = block["config"]
        results = groups[label] if label is not None else job.results
        title = f"job {job.path.name}" + (f" — configuration: {label}" if label else "")
        out.print(results_table(results, title))
        if "by_variant" in block["summary"]:
            out.print(breakdown_table(block["summary"]["by_variant"]))
        _print_summary(block["summary"])
    if len(blocks) > 1:
        out.print(f"[yellow]note:[/yellow] {len(blocks)} configurations in one job: their numbers are shown apart")
    if job.unfinished:
        out.print(f"[yellow]unfinished:[/yellow] {len(job.unfinished)} planned trial(s) have no result: a run "
                  "is still writing the job, or was interrupted (then run the same command again to finish them)")
    spent = summary.get("unfinished_usage")
    if spent:
        cost = "unknown" if spent["cost_usd"] is None else f"{spent['cost_usd']:.4f} USD"
        out.print(f"spent by unfinished trials: {cost}, {spent['input_tokens']} input and {spent['output_tokens']} "
                  f"output tokens in {spent['calls']} call(s) (not in the numbers above)", highlight=False)
    config = job.results[0].config if len(blocks) == 1 and job.results else None
    if config is not None:
        out.print(f"configuration: {escape(config.label())} (lancebench {config.lancebench_version})", highlight=False)


def _print_trial(job: JobResults, trial: str) -> None:
    found = [r for r in job.results if r.trial_id == trial or r.trial_id.startswith(trial)]
    if len(found) != 1:
        ids = ", ".join(r.trial_id for r in (found or job.results)[:5])  # the matches, when several
        raise ConfigError(f"--trial {trial}: {'no' if not found else len(found)} trial(s) of {job.path} match; "
                          f"give a trial id (e.g. {ids or 'none recorded'})")
    print(ascii_json(found[0].model_dump_json(indent=2, ensure_ascii=True)))  # agent text: results/text.py


def show(job_dir: Path = typer.Argument(..., help="A job folder made by `lancebench run`."),
         as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
         trial: str | None = typer.Option(None, "--trial", help="Print one trial's result in full (id or prefix)."),
         fmt: str | None = typer.Option(None, "-f", "--format", help="Write one row per trial: csv, parquet or jsonl."),
         out_path: Path | None = typer.Option(None, "-o", "--out", help="File for --format (default: standard "
                                                 "output; parquet needs it)."),
         exclusions: str = typer.Option("control", "--exclusions",
                                        help="control: lancebench's rule (an exclusion only the patched run shows "
                                             "is unresolved); task: every trial the task's verifier excluded is "
                                             "left out, as Harbor and the leaderboard count."),
         errors_as_failures: bool = typer.Option(False, "--errors-as-failures",
                                                 help="Count invalid trials as unresolved with reward 0 (the "
                                                      "conservative number); the summary says so.")) -> None:
    """Print a job's summary and trials (one block per configuration; unfinished trials counted).

    Examples:
      lancebench show jobs/mini__oracle
      lancebench show jobs/mini__oracle --json
      lancebench show jobs/mini__oracle --trial calc__0
      lancebench show jobs/mini__oracle --format csv -o trials.csv
      lancebench show jobs/mini__oracle --errors-as-failures
    """
    try:
        job = load_job(job_dir)
        if exclusions not in EXCLUSION_RULES:
            raise ConfigError(f"--exclusions {exclusions}: give one of {', '.join(EXCLUSION_RULES)}")
        job.results = under_rule(job.results, exclusions)
        note = None
        if errors_as_failures:
            from lancebench.results.conservative import counted_note, errors_as_failures as count_errors
            note = counted_note(job.results)
            job = dataclasses.replace(job, results=count_errors(job.results))
        if trial is not None:
            _print_trial(job, trial)
            return
        if fmt is not None:
            from lancebench.results.export import write_trials
            write_trials(job.results, fmt, out_path)
            return
        summary = job_summary(job) | {"exclusion_rule": exclusions}
        if note is not None:
            summary["errors_as_failures"] = note
        if as_json:
            print(ascii_json(json.dumps(summary, indent=2, default=str)))
            return
        print_job(job, summary)
        if exclusions == "task":
            out.print("exclusions: the task's rule (every trial its verifier excluded is left out, as Harbor "
                      "and the leaderboard count)", highlight=False)
        if note is not None:
            out.print(f"[yellow]note:[/yellow] {note}", highlight=False)
    except LancebenchError as exc:
        raise fail(exc) from None
    if not job.results and not job.unfinished:
        console.print(f"no trials in {job_dir}")


def register(app: typer.Typer) -> None:
    app.command("show")(show)

"""``lancebench show``: a job's trials and summary, one block per configuration (never mixed), the
unfinished trials counted; ``--trial ID`` prints one trial in full; ``--format csv|parquet|jsonl``
writes one row per trial (:mod:`lancebench.results.export`)."""

from __future__ import annotations

import dataclasses
import fnmatch
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
from lancebench.results.harbor_jobs import is_harbor_job
from lancebench.results.load import IndexedJob, JobResults, load_job, open_job, unfinished_usage
from lancebench.results.models import TrialConfig, TrialResult
from lancebench.results.paths import JobPaths
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


CELL_CHARS = 200  # characters of a reason or judges cell in one line (the rest: "…")


def _cut(text: str, wide: bool = False) -> Text:
    """A one-line cell that ends in an ellipsis when cut, to :data:`CELL_CHARS` or to its column
    (which may shrink, so the numbers of the other columns always show); ``wide``: the whole
    text, wrapped in its column."""
    text = " ".join(text.split())
    if wide:
        return Text(text, overflow="fold")
    if len(text) > CELL_CHARS:
        text = text[:CELL_CHARS - 1] + "…"
    return Text(text, no_wrap=True, overflow="ellipsis")


def results_table(results: list[TrialResult], title: str, wide: bool = False) -> Table:
    """One line per trial: task (cut in the middle), attempt, status, reward, model cost (USD),
    wall time (seconds), judges and reason (cut with an ellipsis to the terminal's width, or
    ``wide``: whole, wrapped; the full text is in ``show --trial ID`` and ``--json``). The numeric
    columns never shrink."""
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
                      *((_cut(judges_cell(r), wide),) if judged else ()), _cut(reason_cell(r), wide))
    return table


def print_table(table: Table) -> bool:
    """Print ``table`` (of :func:`results_table`) on standard output; returns whether a cell of its
    last column (the reason) was cut: a rendered line that ends in "…"."""
    lines = out.render_lines(table, out.options, pad=False)
    out.print(table)
    return any("".join(seg.text for seg in line).rstrip().endswith("…") for line in lines)


def reason_cell(r: TrialResult) -> str:
    """The trial's reason, and for an ``invalid`` trial the control that proved the fault is not
    the agent's (``TrialResult.control``): ``reason [control: ...]``."""
    reason = r.reason or ""
    return f"{reason} [control: {r.control}]" if r.status == "invalid" and r.control else reason


def _with_k(summary: dict) -> dict:
    """``summary`` with ``pass_at_K`` and ``pass_hat_K`` at K = the most valid attempts of a task
    (``attempts_max``, as the report's table shows them) when K > 1, from ``pass_at_k`` and
    ``pass_hat_k``."""
    k = summary.get("attempts_max") or 1
    if k <= 1 or not isinstance(summary.get("pass_at_k"), dict):
        return summary
    return {**summary, f"pass_at_{k}": summary["pass_at_k"].get(str(k)),
            f"pass_hat_{k}": (summary.get("pass_hat_k") or {}).get(str(k))}


def summary_line(summary: dict) -> str:
    """``key=value`` pairs of a summary: counts, pass@1 (and with several attempts pass@k and pass^k
    at k = the most valid attempts of a task, ``pass_at_K`` and ``pass_hat_K``) and earn rate as %,
    USD with 2 decimals."""
    summary = _with_k(summary)
    k = summary.get("attempts_max") or 1
    at_k = (f"pass_at_{k}", f"pass_hat_{k}") if k > 1 else ()
    keys = ("trials", "resolved", "unresolved", "invalid", "invalid_rate", "unfinished", "pass_at_1", *at_k,
            "earned_usd", "available_usd", "earn_rate", "cost_usd")
    parts = []
    for key in keys:
        if key not in summary:
            continue
        v = summary[key]
        if v is None:
            parts.append(f"{key}=n/a")
        elif isinstance(v, float):
            percent = key in ("pass_at_1", "earn_rate", "invalid_rate", *at_k)
            parts.append(f"{key}={v:,.2f}" if key.endswith("_usd") else f"{key}={v:.1%}" if percent
                         else f"{key}={v:.4g}")
        else:
            parts.append(f"{key}={v}")
    return "  ".join(parts)


def selection_line(selection: dict) -> str:
    """What a filtered summary counts (``show --task``/``--status``): ``summary of the N trial(s)
    matching --task GLOB --status S (M recorded in the job)``."""
    filters = ([f"--task {selection['task']}"] if selection.get("task") is not None else []) + \
        [f"--status {s}" for s in selection.get("status", [])]
    return (f"summary of the {selection['trials_matching']} trial(s) matching {' '.join(filters)} "
            f"({selection['trials_recorded']} recorded in the job)")


def _print_summary(summary: dict) -> None:
    """The summary line (after what it counts, when filtered), the quality line (judges) and the
    invalid-rate warning, if any."""
    from lancebench.report.render import quality_line
    if "selection" in summary:
        out.print(selection_line(summary["selection"]), highlight=False, markup=False)
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


def results_summary(results: list[TrialResult]) -> dict:
    """The summary of a job's recorded results (:func:`lancebench.metrics.summarize`). A job
    holding trials of several configurations (made before runs were refused on a change) gets no
    pooled numbers: ``configurations`` lists ``{"config": label, "summary": ...}`` per
    configuration instead."""
    groups = by_config(results)
    if len(groups) <= 1:
        summary = _one_summary(results)
        if results and results[0].config:
            summary["config"] = results[0].config.model_dump()
        return summary
    return {"trials": len(results),
            "configurations": [{"config": label, "summary": _one_summary(rs)} for label, rs in groups.items()]}


def _with_unfinished(summary: dict, job: JobResults) -> dict:
    """``summary`` plus ``unfinished`` (planned trials without a result) and, when they billed
    anything, ``unfinished_usage`` (never dropped)."""
    summary["unfinished"] = len(job.unfinished)
    spent = unfinished_usage(job)
    if spent.calls or spent.retries:  # billed by trials that have no result (yet)
        summary["unfinished_usage"] = spent.model_dump()
    return summary


def job_summary(job: JobResults) -> dict:
    """:func:`results_summary` of the job's results, plus ``unfinished`` (planned trials without
    a result) and ``unfinished_usage`` when they billed anything."""
    return _with_unfinished(results_summary(job.results), job)


def _print_blocks(job: JobResults, summary: dict, heading: str = "", wide: bool = False) -> None:
    """A table of ``job.results`` and its summary line(s) per configuration, then how to see a cut
    reason whole and an invalid trial's runner output (:func:`_print_hints`)."""
    from lancebench.report.swelancer import breakdown_table
    blocks = summary.get("configurations") or [{"config": None, "summary": summary}]
    groups = by_config(job.results)
    cut = False
    for block in blocks:
        label = block["config"]
        results = groups.get(label, []) if label is not None else job.results
        title = f"job {job.path.name}" + (f" — configuration: {label}" if label else "") + heading
        cut = print_table(results_table(results, title, wide)) or cut
        if "by_variant" in block["summary"]:
            out.print(breakdown_table(block["summary"]["by_variant"]))
        _print_summary(block["summary"])
    if len(blocks) > 1:
        out.print(f"[yellow]note:[/yellow] {len(blocks)} configurations in one job: their numbers are shown apart")
    _print_hints(job, cut)


def _print_hints(job: JobResults, cut: bool) -> None:
    """Say how to see whole what the table cut (``--wide``, ``--trial ID``) and, when an invalid
    trial is listed, where its test runner's output is (``--trial ID`` prints its end and the
    trial's folder)."""
    if cut:
        out.print(f"a reason ending in … is cut: lancebench show {job.path} --wide shows them whole, --trial ID "
                  "one trial in full", highlight=False, markup=False)
    invalid = sorted(r.trial_id for r in job.results if r.status == "invalid")
    if invalid:
        out.print(f"an invalid trial in full, with the end of its test runner's output when the runner ran: "
                  f"lancebench show {job.path} --trial {invalid[0]} (its folder: {job.path / 'trials' / invalid[0]})",
                  highlight=False, markup=False)


def _print_footer(job: JobResults, summary: dict, config: TrialConfig | None) -> None:
    if job.unfinished:
        out.print(f"[yellow]unfinished:[/yellow] {len(job.unfinished)} planned trial(s) have no result: a run "
                  "is still writing the job, or was interrupted (then run the same command again to finish them)")
    spent = summary.get("unfinished_usage")
    if spent:
        cost = "unknown" if spent["cost_usd"] is None else f"{spent['cost_usd']:.4f} USD"
        out.print(f"spent by unfinished trials: {cost}, {spent['input_tokens']} input and {spent['output_tokens']} "
                  f"output tokens in {spent['calls']} call(s) (not in the numbers above)", highlight=False)
    if config is not None and "configurations" not in summary:
        out.print(f"configuration: {escape(config.label())} (lancebench {config.lancebench_version})", highlight=False)


def print_job(job: JobResults, summary: dict, wide: bool = False) -> None:
    """The job's table(s) of every trial and summary line(s), and a note on unfinished trials
    (``wide``: reasons whole, see :func:`results_table`)."""
    _print_blocks(job, summary, wide=wide)
    _print_footer(job, summary, job.results[0].config if job.results else None)


STATUSES = tuple(STATUS_STYLE)
DEFAULT_ROWS = 50  # rows of the table when no --limit is given; a job with at most this many shows every trial


@dataclasses.dataclass(frozen=True)
class Selection:
    """What ``show`` reads and prints: the exclusion rule and ``errors_as_failures`` (how results
    count), which trials the table lists and the summary counts: ``statuses`` (any when empty),
    ``task_glob`` (SQLite GLOB on the task name), then the page of the table: ``offset`` and
    ``limit`` (None: :data:`DEFAULT_ROWS`; 0: all); ``wide``: reasons whole in the table."""

    exclusions: str = "control"
    errors_as_failures: bool = False
    statuses: tuple[str, ...] = ()
    task_glob: str | None = None
    offset: int = 0
    limit: int | None = None
    wide: bool = False

    def counted(self, results: list[TrialResult]) -> list[TrialResult]:
        """``results`` as this selection counts them (exclusion rule, then errors as failures)."""
        results = under_rule(results, self.exclusions)
        if self.errors_as_failures:
            from lancebench.results.conservative import errors_as_failures
            results = errors_as_failures(results)
        return results

    @property
    def recounts(self) -> bool:
        return self.exclusions != "control" or self.errors_as_failures

    @property
    def filtered(self) -> bool:
        """Whether ``--status`` or ``--task`` chose some trials (the summary counts those only)."""
        return bool(self.statuses) or self.task_glob is not None


def _selected(job: IndexedJob, sel: Selection) -> tuple[list[TrialResult], list[TrialResult]]:
    """(the recorded trials ``sel`` chooses, the same counted under its rules): every trial, or
    those whose task matches ``--task`` and whose status, as counted, is one of ``--status``."""
    recorded = job.trials.page(task_glob=sel.task_glob) if sel.filtered else job.trials.results()
    counted = sel.counted(recorded)
    if sel.statuses:
        counted = [r for r in counted if r.status in sel.statuses]
        ids = {r.trial_id for r in counted}
        recorded = [r for r in recorded if r.trial_id in ids]
    return recorded, counted


def _unfinished(job: IndexedJob, sel: Selection) -> list[Path]:
    """The job's unfinished trials ``sel`` chooses: all of them unfiltered, none with ``--status``
    (they have none), with ``--task`` those whose id's task part (``<task>__<attempt>__<key>``)
    matches it."""
    if not sel.filtered:
        return job.unfinished
    if sel.statuses or sel.task_glob is None:
        return []
    return [p for p in job.unfinished if fnmatch.fnmatchcase(p.name.rsplit("__", 2)[0], sel.task_glob)]


def indexed_summary(job: IndexedJob, sel: Selection) -> dict:
    """The summary ``show`` prints for ``job`` under ``sel``'s counting (:func:`job_summary`, plus
    ``exclusion_rule`` and ``errors_as_failures`` when set) of the trials ``sel`` chooses (every
    trial, or those ``--task``/``--status`` match: then ``selection`` says which and how many of
    the recorded ones, and ``unfinished`` counts the matching ones), computed once per
    state of the job's files and kept in its index (:meth:`IndexedTrials.derived`); the unfinished
    trials' part is read each time (their ``usage.json`` changes without a result)."""
    from lancebench import __version__
    key = (f"show-summary\0{__version__}\0{sel.exclusions}\0{sel.errors_as_failures}\0{','.join(sel.statuses)}"
           f"\0{sel.task_glob}")
    cached = job.trials.derived(key)
    if cached is not None:
        part = json.loads(cached)
    else:
        recorded, counted = _selected(job, sel)
        part = {"summary": results_summary(counted), "matching": len(counted)}
        if sel.errors_as_failures:
            from lancebench.results.conservative import counted_note
            part["note"] = counted_note(under_rule(recorded, sel.exclusions))
        part = json.loads(json.dumps(part, default=str))  # the same values, cached or not
        job.trials.store(key, json.dumps(part))
    summary = _with_unfinished(part["summary"], JobResults(job.path, job.config, [], _unfinished(job, sel)))
    if sel.filtered:
        summary["selection"] = {"task": sel.task_glob, "status": list(sel.statuses),
                                "trials_matching": part["matching"], "trials_recorded": len(job.trials.ids)}
    summary["exclusion_rule"] = sel.exclusions
    if "note" in part:
        summary["errors_as_failures"] = part["note"]
    return summary


def _table_rows(job: IndexedJob, sel: Selection) -> tuple[list[TrialResult], int]:
    """(the trials of the table, how many match the filters), read from the index: only the
    rows shown are parsed, unless a recount changes the statuses filtered on."""
    limit = DEFAULT_ROWS if sel.limit is None else (sel.limit or None)
    if sel.statuses and sel.recounts:
        matching = [r for r in sel.counted(job.trials.page(task_glob=sel.task_glob)) if r.status in sel.statuses]
        end = None if limit is None else sel.offset + limit
        return matching[sel.offset:end], len(matching)
    total = job.trials.count(sel.statuses, sel.task_glob)
    return sel.counted(job.trials.page(sel.statuses, sel.task_glob, sel.offset, limit)), total


def print_indexed(job: IndexedJob, summary: dict, sel: Selection) -> None:
    """``show``'s text: the table of the selected trials (a page of at most :data:`DEFAULT_ROWS`
    by default, saying which and how to see others), the summary line(s) of the trials selected
    (the whole job without ``--task``/``--status``), notes on unfinished trials and the
    configuration. A job of several configurations prints a block of every selected trial per
    configuration."""
    if "configurations" in summary:
        print_job(JobResults(job.path, job.config, _selected(job, sel)[1], job.unfinished), summary, sel.wide)
        return
    rows, total = _table_rows(job, sel)
    recorded = len(job.trials.ids)
    heading = ""
    if len(rows) < recorded:
        first = sel.offset + 1 if rows else sel.offset
        heading = f" — trials {first}–{sel.offset + len(rows)} of {total}"
        heading += f" matching (of {recorded})" if total != recorded else ""
    _print_blocks(JobResults(job.path, job.config, rows, job.unfinished), summary, heading, sel.wide)
    if len(rows) < total:
        out.print(f"{total - len(rows)} more trial(s) not listed: --offset N / --limit N (0: all), --status S, "
                  "--task GLOB choose the trials listed; --trial ID prints one in full", highlight=False)
    first_result = job.trials.find(job.trials.ids[0]) if job.trials.ids else []
    _print_footer(JobResults(job.path, job.config, rows, job.unfinished), summary,
                  first_result[0].config if first_result else None)


def _print_trial(found: list[TrialResult], job_path: Path, trial: str, recorded: list[str]) -> None:
    """Print the one trial of ``found`` (the trials whose id is ``trial`` or starts with it);
    raises :class:`ConfigError` giving up to five ids (matches, or ``recorded`` ones) otherwise. A
    task's exact name wins over longer names it begins (``funcy-split-keys`` is not
    ``funcy-split-keys-manager``)."""
    found = [r for r in found if r.task == trial] or found
    if len(found) != 1:
        ids = ", ".join([r.trial_id for r in found][:5] or recorded[:5])  # the matches, when several
        raise ConfigError(f"--trial {trial}: {'no' if not found else len(found)} trial(s) of {job_path} match; "
                          f"give a trial id (e.g. {ids or 'none recorded'})")
    print(ascii_json(found[0].model_dump_json(indent=2, ensure_ascii=True)), flush=True)  # agent text: text.py
    _print_trial_logs(job_path, found[0])


def _print_trial_logs(job_path: Path, r: TrialResult) -> None:
    """On standard error, after the trial's JSON (standard output stays JSON): the trial's folder
    and, for a trial that is not resolved, the end of its test runner's output (the newest graded
    run's ``test.log``, :func:`lancebench.results.trial_logs.runner_tail`), which an ``invalid``
    reason (``no JUnit report ... (exit code 4)``) does not hold."""
    from lancebench.results.trial_logs import runner_tail
    folder = JobPaths(job_path).trial(r.trial_id).root
    if not folder.is_dir():  # a Harbor job's trial folders are named otherwise
        return
    console.print(f"trial folder: {folder}", highlight=False, markup=False, soft_wrap=True)
    found = runner_tail(folder) if r.status != "resolved" else None
    if found is None:
        return
    which = f"its last {len(found.lines)} lines" if found.cut else "all of it"
    console.print(f"the test runner's output ({which}, {found.path.relative_to(folder)}):", highlight=False,
                  markup=False, soft_wrap=True)
    for line in found.lines:
        console.print(f"  {line}", highlight=False, markup=False, soft_wrap=True)

def _show_loaded(job: JobResults, sel: Selection, as_json: bool, trial: str | None, fmt: str | None,
                 out_path: Path | None) -> None:
    """``show`` of a job read whole (a Harbor job folder, or ``--format``)."""
    results = sel.counted(job.results)
    if trial is not None:
        found = [r for r in results if r.trial_id == trial] or [r for r in results if r.trial_id.startswith(trial)]
        _print_trial(found, job.path, trial, [r.trial_id for r in results])
        return
    if fmt is not None:
        from lancebench.results.export import write_trials
        write_trials(results, fmt, out_path)
        return
    counted = JobResults(job.path, job.config, results, job.unfinished)
    summary = job_summary(counted) | {"exclusion_rule": sel.exclusions}
    if sel.errors_as_failures:
        from lancebench.results.conservative import counted_note
        summary["errors_as_failures"] = counted_note(under_rule(job.results, sel.exclusions))
    if as_json:
        print(ascii_json(json.dumps(summary, indent=2, default=str)))
        return
    print_job(counted, summary, sel.wide)
    _print_notes(summary, sel)


def _print_notes(summary: dict, sel: Selection) -> None:
    if sel.exclusions == "task":
        out.print("exclusions: the task's rule (every trial its verifier excluded is left out, as Harbor "
                  "and the leaderboard count)", highlight=False)
    if "errors_as_failures" in summary:
        out.print(f"[yellow]note:[/yellow] {summary['errors_as_failures']}", highlight=False)


def _show_indexed(job_dir: Path, sel: Selection, as_json: bool, trial: str | None) -> bool:
    """``show`` through the job's index; returns whether the job has any trial."""
    with open_job(job_dir) as job:
        if trial is not None:
            _print_trial(sel.counted(job.trials.find(trial)), job.path, trial, job.trials.ids)
            return True
        summary = indexed_summary(job, sel)
        if as_json:
            print(ascii_json(json.dumps(summary, indent=2, default=str)))
        else:
            print_indexed(job, summary, sel)
            _print_notes(summary, sel)
        return bool(job.trials.ids or job.unfinished)


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
                                                      "conservative number); the summary says so."),
         status: list[str] | None = typer.Option(None, "--status", help="List and count only trials with this "
                                                  "status (resolved, unresolved, invalid; repeatable)."),
         task: str | None = typer.Option(None, "--task", help="List and count only trials whose task matches this "
                                                             "glob."),
         limit: int | None = typer.Option(None, "--limit", min=0, help=f"Trials listed (default {DEFAULT_ROWS}; "
                                          "0: all). The summary counts every trial --task and --status choose."),
         offset: int = typer.Option(0, "--offset", min=0, help="Skip this many trials of the list (paging)."),
         wide: bool = typer.Option(False, "--wide", help="Every reason whole in the table (wrapped), not cut to the "
                                                         "terminal's width.")) -> None:
    """Print a job's summary and its trials, a page at a time (one block per configuration;
    unfinished trials counted).

    Examples:
      lancebench show jobs/mini__oracle
      lancebench show jobs/mini__oracle --json
      lancebench show jobs/mini__oracle --status invalid --limit 0
      lancebench show jobs/mini__oracle --offset 50
      lancebench show jobs/mini__oracle --trial calc__0
      lancebench show jobs/mini__oracle --format csv -o trials.csv
      lancebench show jobs/mini__oracle --errors-as-failures
      lancebench show jobs/mini__oracle --wide --task "boltons-*"
    """
    try:
        if exclusions not in EXCLUSION_RULES:
            raise ConfigError(f"--exclusions {exclusions}: give one of {', '.join(EXCLUSION_RULES)}")
        wrong = [s for s in status or [] if s not in STATUSES]
        if wrong:
            raise ConfigError(f"--status {wrong[0]}: give one of {', '.join(STATUSES)}")
        sel = Selection(exclusions, errors_as_failures, tuple(status or ()), task, offset, limit, wide)
        if fmt is not None or (Path(job_dir).is_dir() and is_harbor_job(Path(job_dir))):
            job = load_job(job_dir)
            _show_loaded(job, sel, as_json, trial, fmt, out_path)
            any_trial = bool(job.results or job.unfinished)
        else:
            any_trial = _show_indexed(job_dir, sel, as_json, trial)
    except LancebenchError as exc:
        raise fail(exc) from None
    if not any_trial:
        console.print(f"no trials in {job_dir}")


def register(app: typer.Typer) -> None:
    app.command("show")(show)

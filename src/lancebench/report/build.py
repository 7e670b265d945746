"""Rows of a report: one per configuration (agent, model, dataset, settings) across any number of
job folders, optionally broken down by a task field (``--by``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lancebench.errors import ConfigError
from lancebench.metrics.money import price_bucket
from lancebench.metrics.summary import CI_METHOD, compute_metrics, invalid_warning
from lancebench.metrics.table import TrialTable
from lancebench.results.load import JobResults
from lancebench.results.models import TrialResult

# Task fields ``--by`` accepts besides taxonomy keys; ``variant`` is ``kind`` unless the tasks'
# taxonomy has its own ``variant`` (SWE-Lancer's IC SWE / SWE Manager split).
BY_FIELDS: tuple[str, ...] = ("kind", "split", "price", "task", "variant")
ALL = "(all)"
NONE = "(none)"


@dataclass(frozen=True)
class ReportOptions:
    """How to compute a report: ``by`` field or None; ``kmax`` (None: each row's most valid
    attempts of a task); ``confidence`` of the intervals; ``n_boot`` bootstrap resamples; ``seed``."""

    by: str | None = None
    kmax: int | None = None
    confidence: float = 0.95
    n_boot: int = 1000
    seed: int = 0


def _value_str(value: Any) -> str:
    if value is None:
        return NONE
    if isinstance(value, (list, tuple)):
        return "+".join(str(v) for v in value) or NONE
    return str(value)


def _natural(value: str) -> list:
    """Sort key that orders numbers inside labels by value ("$250-500" before "$1000-2000")."""
    return [int(part) if i % 2 else part for i, part in enumerate(re.split(r"(\d+)", value))]


def field_getter(field: str, results: list[TrialResult]):
    """A function trial -> the string value of task field ``field`` (see :data:`BY_FIELDS`; any
    other name is a taxonomy key, optionally written ``taxonomy.KEY``). Raises :class:`ConfigError`
    naming the allowed fields when ``field`` is neither a known field nor in any task's taxonomy."""
    key = field.removeprefix("taxonomy.")
    in_taxonomy = any(key in r.taxonomy for r in results)
    if field.startswith("taxonomy.") or (key not in BY_FIELDS) or (key == "variant" and in_taxonomy):
        if not in_taxonomy:
            seen = sorted({k for r in results for k in r.taxonomy})
            raise ConfigError(
                f"--by {field}: no task has this field; use one of {', '.join(BY_FIELDS)}"
                + (f" or a taxonomy key ({', '.join(seen)})" if seen else " (the tasks have no taxonomy keys)"))
        return lambda r: _value_str(r.taxonomy.get(key))
    if key == "price":
        return lambda r: str(price_bucket([r.price_usd])[0])
    if key == "variant":
        key = "kind"
    return lambda r: _value_str(getattr(r, key))


def group_results(jobs: list[JobResults]) -> dict[tuple, tuple[list[TrialResult], list[str]]]:
    """Trials of all ``jobs`` grouped by configuration
    (:meth:`lancebench.results.models.TrialResult.configuration`: agent, model, dataset and the
    rest of the configuration, "" when not recorded) -> (trials, job names), in first-seen order:
    two configurations are never pooled in one row."""
    groups: dict[tuple, tuple[list[TrialResult], list[str]]] = {}
    for job in jobs:
        for r in job.results:
            trials, names = groups.setdefault(r.configuration(), ([], []))
            trials.append(r)
            if r.job not in names:
                names.append(r.job)
    return groups


def build_rows(jobs: list[JobResults], options: ReportOptions = ReportOptions()) -> list[dict[str, Any]]:
    """Report rows as JSON-ready dicts, one per configuration: ``agent``, ``model``, ``dataset``,
    ``settings`` (the rest of the configuration, see :func:`group_results`), ``jobs`` (names), with
    ``--by``: ``by`` and ``by_value`` (``"(all)"`` for the row's total, first), then every key of
    :func:`lancebench.metrics.compute_metrics` (rates, USD, tokens, intervals, notes)."""
    rows: list[dict[str, Any]] = []
    everything = [r for job in jobs for r in job.results]
    getter = field_getter(options.by, everything) if options.by else None
    for (agent, model, dataset, settings), (trials, names) in group_results(jobs).items():
        rows += _rows(agent, model, dataset, settings, trials, names, getter, options)
    _flag_invalid_outliers(rows)
    return rows


def _rows(agent: str, model: str | None, dataset: str | None, settings: str, trials: list[TrialResult],
          names: list[str], getter, options: ReportOptions) -> list[dict[str, Any]]:
    """The rows of one configuration: its total, then one per ``--by`` value."""
    parts: list[tuple[str | None, list[TrialResult]]] = [(ALL if getter else None, trials)]
    if getter:
        split: dict[str, list[TrialResult]] = {}
        for r in trials:
            split.setdefault(getter(r), []).append(r)
        ordered = sorted(split.items(), key=lambda item: _natural(item[0]))
        parts += ordered
    rows: list[dict[str, Any]] = []
    for value, subset in parts:
        row: dict[str, Any] = {"agent": agent, "model": model, "dataset": dataset, "settings": settings,
                               "jobs": names}
        if getter:
            row.update(by=options.by, by_value=value)
        row.update(compute_metrics(TrialTable.from_results(subset), kmax=options.kmax, intervals=True,
                                   confidence=options.confidence, n_boot=options.n_boot, seed=options.seed))
        rows.append(row)
    return rows


def _flag_invalid_outliers(rows: list[dict[str, Any]]) -> None:
    """Note on each total row whose invalid rate is at least 5 points and twice the pooled rate
    of the other total rows (an agent whose trials end invalid more than the others' do)."""
    totals = [r for r in rows if r.get("by_value", ALL) == ALL and r["trials"]]
    for row in totals:
        rest = [r for r in totals if r is not row]
        if not rest or any(n.startswith("warning: invalid rate") for n in row["notes"]):
            continue
        others = sum(r["invalid"] for r in rest) / sum(r["trials"] for r in rest)
        rate = row["invalid"] / row["trials"]
        if rate >= 0.05 and rate >= 2 * others:
            row["notes"].append(invalid_warning(rate, row["invalid"], row["trials"], others=others))


def build_report(jobs: list[JobResults], options: ReportOptions = ReportOptions()) -> dict[str, Any]:
    """The whole report: ``rows`` (:func:`build_rows`) plus how it was computed (``jobs`` paths,
    ``confidence``, ``bootstrap`` resamples, ``seed``, ``ci_method``) and ``unfinished_trials``
    (trial folders without a result.json, per job path)."""
    return {
        "lancebench_report": 1,
        "jobs": [str(j.path) for j in jobs],
        "confidence": options.confidence,
        "bootstrap": options.n_boot,
        "seed": options.seed,
        "ci_method": CI_METHOD,
        "unfinished_trials": {str(j.path): len(j.unfinished) for j in jobs if j.unfinished},
        "rows": build_rows(jobs, options),
    }

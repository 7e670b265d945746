"""Rows of a report: one per configuration (agent, model, dataset, settings) across any number of
job folders, optionally broken down by a task field (``--by``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lancebench.errors import ConfigError
from lancebench.metrics.compare import CompareOptions
from lancebench.metrics.money import price_bucket
from lancebench.metrics.summary import CI_METHOD, compute_metrics, invalid_warning
from lancebench.metrics.table import TrialTable
from lancebench.report.compare import Config, common_task_rates, compare_configs
from lancebench.report.render import row_label
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
    attempts of a task); ``confidence`` of the intervals; ``n_boot`` bootstrap resamples; ``seed``;
    ``cluster`` (a taxonomy key: standard errors clustered by it); ``power`` and ``wanted_diff`` of
    the comparisons' power analysis."""

    by: str | None = None
    kmax: int | None = None
    confidence: float = 0.95
    n_boot: int = 1000
    seed: int = 0
    cluster: str | None = None  # taxonomy key whose tasks are correlated: SEs clustered by it
    power: float = 0.8  # power of the comparisons' power analysis
    wanted_diff: float = 0.05  # pass@1 difference (fraction) the power analysis plans for


def _value_str(value: Any) -> str:
    if value is None:
        return NONE
    if isinstance(value, (list, tuple)):
        return "+".join(str(v) for v in value) or NONE
    return str(value)


def natural_key(value: str) -> list:
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


def check_cluster(cluster: str | None, results: list[TrialResult]) -> None:
    """Raise :class:`ConfigError` when ``cluster`` is given and no task has it in its taxonomy."""
    if cluster is None or any(cluster in r.taxonomy for r in results):
        return
    seen = sorted({k for r in results for k in r.taxonomy})
    raise ConfigError(f"--cluster {cluster}: no task has this taxonomy key; "
                      + (f"use one of {', '.join(seen)}" if seen else "the tasks have no taxonomy keys")
                      + " (or leave --cluster out: standard errors are then clustered by task)")


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
    check_cluster(options.cluster, everything)
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
        ordered = sorted(split.items(), key=lambda item: natural_key(item[0]))
        parts += ordered
    rows: list[dict[str, Any]] = []
    for value, subset in parts:
        row: dict[str, Any] = {"agent": agent, "model": model, "dataset": dataset, "settings": settings,
                               "jobs": names}
        if getter:
            row.update(by=options.by, by_value=value)
        row.update(compute_metrics(TrialTable.from_results(subset), kmax=options.kmax, intervals=True,
                                   confidence=options.confidence, n_boot=options.n_boot, seed=options.seed,
                                   cluster=options.cluster))
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


def configs_of(jobs: list[JobResults]) -> list[Config]:
    """The report's configurations (:func:`group_results`), in row order, with their labels."""
    return [Config(key=key, label=row_label({"agent": key[0], "model": key[1], "dataset": key[2],
                                             "settings": key[3]}), trials=trials)
            for key, (trials, _) in group_results(jobs).items()]


def comparison_options(options: ReportOptions) -> CompareOptions:
    """The :class:`CompareOptions` of a report's options (same confidence, seed and cluster)."""
    return CompareOptions(confidence=options.confidence, power=options.power, wanted_diff=options.wanted_diff,
                          cluster=options.cluster, seed=options.seed)


def build_report(jobs: list[JobResults], options: ReportOptions = ReportOptions()) -> dict[str, Any]:
    """The whole report: ``rows`` (:func:`build_rows`) plus how it was computed (``jobs`` paths,
    ``confidence``, ``bootstrap`` resamples, ``seed``, ``ci_method``, ``cluster``), ``unfinished_trials``
    (trial folders without a result.json, per job path), ``comparisons`` (every pair of
    configurations on their common tasks, :func:`lancebench.report.compare.compare_configs`;
    ``comparison_method`` says how) and ``common_tasks`` (the rates over the tasks all rows share
    when their task sets differ, :func:`lancebench.report.compare.common_task_rates`)."""
    configs = configs_of(jobs)
    return {
        "lancebench_report": 1,
        "jobs": [str(j.path) for j in jobs],
        "confidence": options.confidence,
        "bootstrap": options.n_boot,
        "seed": options.seed,
        "ci_method": CI_METHOD,
        "cluster": options.cluster,
        "unfinished_trials": {str(j.path): len(j.unfinished) for j in jobs if j.unfinished},
        "rows": build_rows(jobs, options),
        "comparison_method": COMPARISON_METHOD,
        "comparisons": compare_configs(configs, comparison_options(options)),
        "common_tasks": common_task_rates(configs, confidence=options.confidence, n_boot=options.n_boot,
                                          seed=options.seed),
    }


COMPARISON_METHOD = (
    "pairs of configurations on the tasks both have a valid trial on; difference A - B. pass@1 with one attempt "
    "per task: exact McNemar test, Newcombe's paired score interval; otherwise, and for earned USD and tasteful "
    "solve rate: paired sign-flip permutation test (exact up to 16 differing tasks, else 10000 seeded random sign "
    "patterns; per cluster with --cluster) and a normal interval on the SE clustered by task (or by --cluster). "
    "p_holm: Holm's adjustment over all pairs of one metric; better is marked only when p_holm < 1 - confidence. "
    "Power: normal approximation (Miller 2024, section 5). docs/metrics.md")

"""Comparisons between the configurations of a report: each pair on the tasks both have
(:func:`lancebench.metrics.compare.compare_tables`), with Holm's adjustment over all the pairs of
one metric, and every rate again over the tasks all configurations share when their task sets
differ (docs/metrics.md, "Comparing two configurations")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lancebench.metrics.compare import CompareOptions, compare_tables
from lancebench.metrics.paired import holm
from lancebench.metrics.summary import compute_metrics
from lancebench.metrics.table import TrialTable
from lancebench.results.models import TrialResult

COMPARED = ("pass_at_1", "earned_usd", "tasteful_solve_rate")
COMMON_KEYS = ("tasks", "pass_at_1", "pass_at_1_ci", "pass_at_k", "earned_usd", "earned_usd_ci", "available_usd",
               "earn_rate", "earn_rate_ci", "tasteful_solve_rate", "tasteful_solve_rate_ci", "ci_kinds")


@dataclass(frozen=True)
class Config:
    """One configuration of the report: its ``key`` (agent, model, dataset, settings), ``label``
    (:func:`lancebench.report.render.row_label` style) and its ``trials``."""

    key: tuple
    label: str
    trials: list[TrialResult]


def _valid_tasks(trials: list[TrialResult]) -> set[tuple]:
    return {(r.dataset, r.task, r.task_digest) for r in trials if r.status != "invalid"}


def compare_configs(configs: list[Config], opts: CompareOptions) -> list[dict[str, Any]]:
    """Every pair ``(a, b)``, a before b in report order: ``a`` and ``b`` (row numbers from 1),
    ``a_label``, ``b_label`` and :func:`compare_tables`'s fields; for each metric of
    :data:`COMPARED`, ``p_holm`` (Holm over all pairs of that metric), ``significant`` (``p_holm``
    < 1 - confidence) and ``better`` (``"a"``, ``"b"`` or None when not significant)."""
    tables = [TrialTable.from_results(c.trials) for c in configs]
    pairs: list[dict[str, Any]] = []
    for i in range(len(configs)):
        for j in range(i + 1, len(configs)):
            cmp = compare_tables(tables[i], tables[j], opts)
            pairs.append({"a": i + 1, "b": j + 1, "a_label": configs[i].label, "b_label": configs[j].label} | cmp)
    alpha = 1.0 - opts.confidence
    for metric in COMPARED:
        having = [p for p in pairs if metric in p]
        adjusted = holm([p[metric]["p_value"] for p in having])
        for p, adj in zip(having, adjusted, strict=True):
            m = p[metric]
            m["p_holm"] = adj
            m["significant"] = adj < alpha
            m["better"] = ("a" if (m["diff"] or 0) > 0 else "b") if m["significant"] and m["diff"] else None
    return pairs


def common_task_rates(configs: list[Config], *, confidence: float, n_boot: int, seed: int) -> dict[str, Any]:
    """``{"uneven": bool, "tasks": [per-row valid task counts], "common": n, "warning": str | None,
    "rows": [per config: the rates of :data:`COMMON_KEYS` over the common tasks]}``. A task is
    counted for a row when it has a valid trial there; ``rows`` is empty when the sets are equal."""
    sets = [_valid_tasks(c.trials) for c in configs]
    common = set.intersection(*sets) if sets else set()
    uneven = len({frozenset(s) for s in sets}) > 1
    out: dict[str, Any] = {"uneven": uneven, "tasks": [len(s) for s in sets], "common": len(common),
                           "warning": None, "rows": []}
    if not uneven:
        return out
    out["warning"] = (f"warning: the rows were run on different task sets ({', '.join(map(str, out['tasks']))} "
                      f"tasks with a valid trial; {len(common)} shared by all): their rates are not comparable as "
                      f"they stand; compare them over the common tasks, or pairwise (comparisons)")
    for c in configs:
        subset = [r for r in c.trials if (r.dataset, r.task, r.task_digest) in common]
        m = compute_metrics(TrialTable.from_results(subset), confidence=confidence, n_boot=n_boot, seed=seed) \
            if subset else {"tasks": 0}
        out["rows"].append({k: m.get(k) for k in COMMON_KEYS})
    return out

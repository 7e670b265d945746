"""SWE-Lancer's headline metrics per variant (arXiv 2502.12115, section 3 and table 1): pass@1,
dollars earned, dollars available and earn rate, for IC SWE tasks, SWE Manager tasks and both
together, computed with :func:`lancebench.metrics.compute_metrics` (so invalid trials are left
out of the rates and a task's payout is weighted by its success rate over its valid attempts).

A trial's variant is its task's ``taxonomy.variant`` (``ic_swe`` or ``swe_manager``, as the
``swelancer`` adapter writes it); a trial without one counts by its kind (``choice`` tasks are
manager tasks, ``code`` tasks IC tasks), so the breakdown also reads any Harbor-format copy.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.table import Table

from lancebench.datasets.swelancer.table import IC, MANAGER
from lancebench.metrics.summary import compute_metrics
from lancebench.metrics.table import TrialTable
from lancebench.results.models import TrialResult

TOTAL = "total"
LABELS = {IC: "IC SWE", MANAGER: "SWE Manager", TOTAL: "Total"}
KEYS = ("tasks", "trials", "resolved", "unresolved", "invalid", "pass_at_1", "earned_usd", "available_usd",
        "earn_rate", "cost_usd")


def variant_of(result: TrialResult) -> str:
    """``ic_swe`` or ``swe_manager`` for one trial (see the module docstring)."""
    v = result.taxonomy.get("variant") if isinstance(result.taxonomy, dict) else None
    if v in (IC, MANAGER):
        return v
    return MANAGER if result.kind == "choice" else IC


def variant_breakdown(results: Iterable[TrialResult]) -> dict[str, dict[str, Any]]:
    """``{"ic_swe": {...}, "swe_manager": {...}, "total": {...}}``: for each variant present (and
    always the total), ``tasks``, ``trials``, ``resolved``, ``unresolved``, ``invalid`` (counts),
    ``pass_at_1`` (fraction of tasks, mean over valid attempts), ``earned_usd`` and
    ``available_usd`` (USD), ``earn_rate`` (earned / available) and ``cost_usd`` (model cost,
    None when unknown). A variant with no trial is left out; an empty input gives an empty total
    with zeros and None rates."""
    results = list(results)
    groups: dict[str, list[TrialResult]] = {IC: [], MANAGER: []}
    for r in results:
        groups[variant_of(r)].append(r)
    out: dict[str, dict[str, Any]] = {}
    for name, subset in ((IC, groups[IC]), (MANAGER, groups[MANAGER]), (TOTAL, results)):
        if not subset and name != TOTAL:
            continue
        if not subset:
            out[name] = {k: (None if k in ("pass_at_1", "earn_rate") else 0) for k in KEYS}
            out[name].update(earned_usd=0.0, available_usd=0.0, cost_usd=0.0)
            continue
        m = compute_metrics(TrialTable.from_results(subset), intervals=False)
        out[name] = {k: m.get(k) for k in KEYS}
    return out


def breakdown_table(breakdown: dict[str, dict[str, Any]], title: str = "SWE-Lancer by variant") -> Table:
    """A rich table of :func:`variant_breakdown` (one row per variant, then the total)."""
    table = Table(title=title)
    for col in ("variant", "tasks", "trials", "invalid", "pass@1", "earned", "available", "earn rate"):
        table.add_column(col, justify="left" if col == "variant" else "right")
    for name, row in breakdown.items():
        p1, rate = row.get("pass_at_1"), row.get("earn_rate")
        table.add_row(LABELS.get(name, name), str(row["tasks"]), str(row["trials"]), str(row["invalid"]),
                      "-" if p1 is None else f"{100 * p1:.1f}%", f"${row['earned_usd']:,.0f}",
                      f"${row['available_usd']:,.0f}", "-" if rate is None else f"{100 * rate:.1f}%")
    return table


def is_swelancer(results: Iterable[TrialResult]) -> bool:
    """True when any trial comes from the ``swelancer`` dataset (a caller's cue to print the breakdown)."""
    return any(r.dataset == "swelancer" for r in results)

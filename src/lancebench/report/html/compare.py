"""The site's comparison section (a matrix of paired pass@1 differences, the better configuration
marked only when the Holm-adjusted p-value is significant, and each pair's power), the rates over
the tasks every configuration shares, and the breakdowns by task field (price bucket and every
taxonomy key): pass@1 with its interval and counts per cell."""

from __future__ import annotations

from typing import Any

import numpy as np

from lancebench.metrics.kinds import rate_interval
from lancebench.metrics.table import TrialTable
from lancebench.report.build import ReportOptions, comparison_options, configs_of, field_getter, natural_key
from lancebench.report.compare import Config, common_task_rates, compare_configs
from lancebench.report.compare_render import p_text, power_line
from lancebench.results.load import JobResults
from lancebench.results.models import TrialResult

MAX_VALUES = 30  # a taxonomy key with more distinct values than this gets no breakdown (an id, a count)


def comparison_matrix(pairs: list[dict[str, Any]], n: int) -> list[list[dict[str, Any] | None]]:
    """``n`` x ``n`` cells; cell (i, j) reads "row i - column j" in pass@1 (fraction): ``diff``,
    ``ci`` ``[lo, hi]``, ``ci_kind``, ``p`` and ``p_holm`` (text), ``tasks`` (common), ``mark``
    (``"better"`` / ``"worse"`` only when significant after Holm, else ""). None on the diagonal
    and where a pair has no common task."""
    cells: list[list[dict[str, Any] | None]] = [[None] * n for _ in range(n)]
    for p in pairs:
        m = p.get("pass_at_1")
        if not m:
            continue
        i, j = p["a"] - 1, p["b"] - 1
        for row, col, sign in ((i, j, 1.0), (j, i, -1.0)):
            ci = m["ci"] and ([sign * m["ci"][0], sign * m["ci"][1]] if sign > 0 else [-m["ci"][1], -m["ci"][0]])
            won = m.get("better") == ("a" if sign > 0 else "b")
            cells[row][col] = {"diff": sign * m["diff"] + 0.0, "ci": ci, "ci_kind": m["ci_kind"], "test": m["test"],
                               "p": p_text(m["p_value"]), "p_holm": p_text(m.get("p_holm")), "tasks": p["tasks"],
                               "mark": ("better" if won else "worse") if m.get("better") else ""}
    return cells


def breakdown_fields(jobs: list[JobResults]) -> list[str]:
    """``price`` and every taxonomy key with at most :data:`MAX_VALUES` distinct values, sorted."""
    values: dict[str, set[str]] = {}
    for job in jobs:
        for r in job.results:
            for k, v in r.taxonomy.items():
                values.setdefault(k, set()).add(str(v))
    return ["price"] + sorted(k for k, vs in values.items() if len(vs) <= MAX_VALUES)


def breakdowns(jobs: list[JobResults], options: ReportOptions, configs: list[Config]) -> list[dict[str, Any]]:
    """One table per field of :func:`breakdown_fields`: ``field``, ``values`` (sorted naturally),
    ``cells`` (value -> one per configuration: ``pass_at_1``, ``ci``, ``kind``, ``wilson``,
    ``tasks`` (with a valid trial), ``resolved``, ``trials``, ``invalid``; None where a
    configuration has no trial of that value)."""
    everything = [r for job in jobs for r in job.results]
    out = []
    for field in breakdown_fields(jobs):
        getter = field_getter(field if field == "price" else f"taxonomy.{field}", everything)
        split: list[dict[str, list[TrialResult]]] = []
        for c in configs:
            parts: dict[str, list[TrialResult]] = {}
            for r in c.trials:
                parts.setdefault(getter(r), []).append(r)
            split.append(parts)
        values = sorted({v for parts in split for v in parts}, key=natural_key)
        cells = {v: [_cell(parts.get(v), options) for parts in split] for v in values}
        out.append({"field": field, "values": values, "cells": cells})
    return out


def _cell(trials: list[TrialResult] | None, options: ReportOptions) -> dict[str, Any] | None:
    if not trials:
        return None
    table = TrialTable.from_results(trials)
    n, c = table.counts()
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = np.where(n > 0, c / np.where(n > 0, n, 1), np.nan)
    mean, lo, hi, kind = rate_interval(rates, options.confidence, options.n_boot, options.seed)
    return {"pass_at_1": None if np.isnan(mean) else mean, "ci": None if np.isnan(lo) else [lo, hi],
            "kind": kind or "", "wilson": (kind or "").startswith("Wilson"), "tasks": int((n > 0).sum()),
            "resolved": int(table.success.sum()), "trials": table.n_trials, "invalid": int((~table.valid).sum())}


def compare_context(jobs: list[JobResults], options: ReportOptions) -> dict[str, Any]:
    """What the comparison and breakdown sections of ``index.html`` need: ``pairs`` (with
    ``power_line``), ``matrix`` (:func:`comparison_matrix`), ``common`` (the common-task rates),
    ``breakdowns``."""
    configs = configs_of(jobs)
    pairs = compare_configs(configs, comparison_options(options))
    for p in pairs:
        p["power_line"] = power_line(p)
    common = common_task_rates(configs, confidence=options.confidence, n_boot=options.n_boot, seed=options.seed)
    return {"pairs": pairs, "matrix": comparison_matrix(pairs, len(configs)), "common": common,
            "breakdowns": breakdowns(jobs, options, configs)}

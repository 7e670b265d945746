"""The site's comparison section (a matrix of paired pass@1 differences, the better configuration
marked only when the Holm-adjusted p-value is significant, and each pair's power), the rates over
the tasks every configuration shares, and the breakdowns by task field (price bucket and every
taxonomy key): pass@1 with its interval and counts per cell."""

from __future__ import annotations

from typing import Any

from lancebench.report.build import ALL, ReportOptions, build_rows, comparison_options, configs_of
from lancebench.report.compare import common_task_rates, compare_configs
from lancebench.report.compare_render import p_text, power_line
from lancebench.results.load import JobResults

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


def breakdowns(jobs: list[JobResults], options: ReportOptions, n_configs: int) -> list[dict[str, Any]]:
    """One table per field of :func:`breakdown_fields`: ``field``, ``values`` (sorted), ``cells``
    (value -> one per configuration: ``pass_at_1``, ``ci``, ``kind_mark``, ``tasks``, ``resolved``,
    ``trials``, ``invalid``; None where a configuration has no trial of that value)."""
    out = []
    for field in breakdown_fields(jobs):
        rows = build_rows(jobs, ReportOptions(by=field, kmax=options.kmax, confidence=options.confidence,
                                              n_boot=options.n_boot, seed=options.seed))
        configs: list[dict[str, dict[str, Any]]] = []
        for r in rows:
            if r["by_value"] == ALL:
                configs.append({})
            else:
                configs[-1][r["by_value"]] = r
        values: list[str] = []
        for r in rows:  # first seen order: build_rows sorts each configuration's values naturally
            if r["by_value"] != ALL and r["by_value"] not in values:
                values.append(r["by_value"])
        cells = {v: [_cell(c.get(v)) for c in configs[:n_configs]] for v in values}
        out.append({"field": field, "values": values, "cells": cells})
    return out


def _cell(r: dict[str, Any] | None) -> dict[str, Any] | None:
    if r is None:
        return None
    kind = (r.get("ci_kinds") or {}).get("pass_at_1_ci") or ""
    return {"pass_at_1": r["pass_at_1"], "ci": r.get("pass_at_1_ci"), "kind": kind,
            "wilson": kind.startswith("Wilson"), "tasks": r["tasks"], "resolved": r["resolved"],
            "trials": r["trials"], "invalid": r["invalid"]}


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
            "breakdowns": breakdowns(jobs, options, len(configs))}

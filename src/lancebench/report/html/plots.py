"""Chart.js configurations of the report's plots, one dataset per leaderboard row (plus
reference series marked ``"role": "reference"``). Pure functions of report rows."""

from __future__ import annotations

from typing import Any

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#7f7f7f", "#bcbd22")


def color(i: int) -> str:
    """The colour of leaderboard row ``i`` (the same in every plot)."""
    return PALETTE[i % len(PALETTE)]


def cost_per_task(row: dict) -> float | None:
    """USD per task of a row: ``cost_usd / tasks``; None when the cost is unknown or there is no task."""
    return None if row.get("cost_usd") is None or not row.get("tasks") else row["cost_usd"] / row["tasks"]


def pareto_front(points: list[tuple[float, float]]) -> list[int]:
    """Indices of the points on the Pareto front of (cost, score): no other point costs no more and
    scores no less while being better in one of them. Sorted by cost. ``points``: (USD, fraction)."""
    front = []
    for i, (c, s) in enumerate(points):
        dominated = any((c2 <= c and s2 >= s) and (c2 < c or s2 > s) for j, (c2, s2) in enumerate(points) if j != i)
        if not dominated:
            front.append(i)
    return sorted(front, key=lambda i: (points[i][0], points[i][1]))


def _axes(x: str, y: str, *, y_max: float | None = 1.0, x_type: str = "linear") -> dict[str, Any]:
    y_axis: dict[str, Any] = {"title": {"display": True, "text": y}, "beginAtZero": True}
    if y_max is not None:
        y_axis["max"] = y_max
    return {"x": {"type": x_type, "title": {"display": True, "text": x}, "beginAtZero": True}, "y": y_axis}


def pareto_chart(rows: list[dict], labels: list[str]) -> dict[str, Any]:
    """Scatter of cost per task (USD) against pass@1, one point per row with a known cost, and the
    Pareto front as a reference line. Rows with unknown cost are listed in ``lancebench.missing``."""
    measured = [(i, cost_per_task(r), r.get("pass_at_1")) for i, r in enumerate(rows)]
    known = [(i, c, s) for i, c, s in measured if c is not None and s is not None]
    datasets: list[dict[str, Any]] = [
        {"label": labels[i], "data": [{"x": c, "y": s}], "backgroundColor": color(i), "borderColor": color(i),
         "pointRadius": 6, "clip": 10, "row": i} for i, c, s in known]
    front = pareto_front([(c, s) for _, c, s in known])
    if front:
        datasets.append({"label": "Pareto front", "role": "reference", "type": "line", "showLine": True,
                         "data": [{"x": known[k][1], "y": known[k][2]} for k in front], "borderColor": "#999",
                         "borderDash": [6, 4], "pointRadius": 0, "fill": False, "clip": 10})
    return {"type": "scatter", "data": {"datasets": datasets},
            "options": {"scales": _axes("cost per task (USD)", "pass@1")},
            "lancebench": {"missing": [labels[i] for i, r in enumerate(rows) if cost_per_task(r) is None
                                       or r.get("pass_at_1") is None]}}


def passk_chart(rows: list[dict], labels: list[str]) -> dict[str, Any]:
    """pass@k against k, one line per row (k from 1 to the row's largest k with a value); the k axis
    runs over whole numbers from 1 to the largest k of any row (at least 2, so one attempt does not
    stretch a tenth of a k across the plot)."""
    datasets, largest = [], 1
    for i, r in enumerate(rows):
        pts = [{"x": int(k), "y": v} for k, v in sorted(r.get("pass_at_k", {}).items(), key=lambda kv: int(kv[0]))
               if v is not None]
        largest = max([largest, *(p["x"] for p in pts)])
        datasets.append({"label": labels[i], "data": pts, "borderColor": color(i), "backgroundColor": color(i),
                         "showLine": True, "pointRadius": 4, "clip": 10, "row": i})
    return {"type": "scatter", "data": {"datasets": datasets},
            "options": {"scales": {**_axes("k (attempts)", "pass@k"),
                                   "x": {"type": "linear", "title": {"display": True, "text": "k (attempts)"},
                                         "ticks": {"stepSize": 1, "precision": 0}, "min": 1,
                                         "max": max(2, largest)}}}}


def earnings_chart(bucket_rows: list[list[dict]], labels: list[str], buckets: list[str]) -> dict[str, Any]:
    """Dollars earned per price bucket, one bar series per row, with the dollars available in each
    bucket (the most any row could earn) as a reference: an outlined bar behind each group.
    ``bucket_rows[i]``: row ``i``'s per-bucket report rows (``by_value`` a bucket label,
    ``earned_usd``, ``available_usd``)."""
    datasets: list[dict[str, Any]] = []
    available = {b: 0.0 for b in buckets}
    for i, parts in enumerate(bucket_rows):
        by = {p["by_value"]: p for p in parts}
        datasets.append({"label": labels[i], "data": [by[b]["earned_usd"] if b in by else 0.0 for b in buckets],
                         "backgroundColor": color(i), "order": 1, "row": i})
        for b in buckets:
            if b in by:
                available[b] = max(available[b], by[b]["available_usd"])
    datasets.append({"label": "available", "role": "reference", "data": [available[b] for b in buckets],
                     "grouped": False, "order": 10, "barPercentage": 0.95, "categoryPercentage": 0.9,
                     "borderColor": "#555", "borderWidth": 1.5, "backgroundColor": "rgba(120, 120, 120, 0.08)"})
    return {"type": "bar", "data": {"labels": buckets, "datasets": datasets},
            "options": {"scales": {"x": {"title": {"display": True, "text": "task price bucket"}},
                                   "y": {"title": {"display": True, "text": "USD"}, "beginAtZero": True}}}}

"""The comparison part of ``lancebench report``'s table output: the rates over the tasks all rows
share (when their task sets differ) and the paired comparison of every pair of rows, with the
power of each comparison."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from lancebench.report.compare import COMPARED
from lancebench.report.render import row_label

METRIC_NAMES = {"pass_at_1": "pass@1", "earned_usd": "earned", "tasteful_solve_rate": "tasteful solve"}


def _pct(x: float | None) -> str:
    return "?" if x is None else f"{100 * x:.1f}%"


def _pts(x: float | None) -> str:
    return "?" if x is None else f"{100 * x:+.1f} pts"


def _value(metric: str, x: float | None, *, diff: bool = False) -> str:
    if x is None:
        return "?"
    if metric == "earned_usd":
        return f"{x:+,.2f} USD" if diff else f"${x:,.2f}"
    return _pts(x) if diff else _pct(x)


def _interval(metric: str, pair: list | None) -> str:
    if not pair:
        return ""
    if metric == "earned_usd":
        return f" [{pair[0]:+,.2f}, {pair[1]:+,.2f}]"
    return f" [{100 * pair[0]:+.1f}, {100 * pair[1]:+.1f}]"


def p_text(p: float | None) -> str:
    """A p-value in 3 significant digits ("<0.0001" below that)."""
    if p is None:
        return "?"
    return "<0.0001" if p < 1e-4 else f"{p:.3g}"


def render_common(report: dict[str, Any], console: Console) -> None:
    """The warning about uneven task sets and every row's rates over the common tasks."""
    common = report.get("common_tasks") or {}
    if not common.get("uneven"):
        return
    console.print(common["warning"], highlight=False)
    if not common["common"]:
        return
    t = Table(title=f"over the {common['common']} task(s) every row has", show_lines=False)
    for name in ("row", "configuration", "tasks", "pass@1", "earned", "earn rate", "tasteful solve"):
        t.add_column(name, justify="left" if name == "configuration" else "right", overflow="fold")
    totals = [row_label(r) for r in report["rows"] if r.get("by_value", "(all)") == "(all)"]
    for i, r in enumerate(common["rows"], 1):
        ci = r.get("pass_at_1_ci")
        t.add_row(str(i), totals[i - 1] if i <= len(totals) else "", str(r.get("tasks")),
                  _pct(r.get("pass_at_1")) + (f" [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]" if ci else ""),
                  _value("earned_usd", r.get("earned_usd")), _pct(r.get("earn_rate")),
                  "-" if r.get("tasteful_solve_rate") is None else _pct(r.get("tasteful_solve_rate")))
    console.print(t)


def render_comparisons(report: dict[str, Any], console: Console) -> None:
    """One line per pair and metric: A, B, the difference A - B with its interval and kind, the
    test, p and Holm-adjusted p, and which is better (only when significant); then each pair's
    power line."""
    pairs = report.get("comparisons") or []
    if not pairs:
        return
    conf = report.get("confidence", 0.95)
    t = Table(title=f"paired comparisons on common tasks: A - B, {conf:.0%} intervals, Holm-adjusted p",
              caption="better: marked only when the Holm-adjusted p is below "
                      f"{1 - conf:.2g}; method: comparison_method in --format json, docs/metrics.md")
    for name in ("A", "B", "tasks", "metric", "A value", "B value", "A - B [interval]", "interval", "test", "p",
                 "p (Holm)", "better"):
        t.add_column(name, justify="left" if name in ("interval", "test", "metric") else "right", overflow="fold")
    for p in pairs:
        for metric in COMPARED:
            m = p.get(metric)
            if not m:
                continue
            better = {"a": "A", "b": "B"}.get(m.get("better") or "", "-")
            t.add_row(p["a_label"], p["b_label"], str(m.get("tasks", p["tasks"])), METRIC_NAMES[metric],
                      _value(metric, m["a"]), _value(metric, m["b"]),
                      _value(metric, m["diff"], diff=True) + _interval(metric, m["ci"]), m["ci_kind"], m["test"],
                      p_text(m["p_value"]), p_text(m.get("p_holm")), better)
    console.print(t)
    for p in pairs:
        console.print(power_line(p), highlight=False)


def power_line(pair: dict[str, Any]) -> str:
    """``A vs B: 30 common task(s) (1 only in the first, 0 only in the second); power 80% at alpha
    0.05: smallest detectable pass@1 difference ...; a difference of 5.0 pts needs ... tasks``."""
    w = pair.get("power")
    head = (f"{pair['a_label']} vs {pair['b_label']}: {pair['tasks']} common task(s) ({pair['tasks_only_a']} only "
            f"in the first, {pair['tasks_only_b']} only in the second)")
    if not w:
        return head + ": nothing to compare"
    attempts = (f", or {w['attempts_needed']} attempts per task on these tasks" if w.get("attempts_needed")
                else (", more attempts alone are not enough (or one attempt cannot tell)"
                      if pair.get("attempts") == "several" else ""))
    mdd = w["minimum_detectable_diff"]
    detectable = ("none (it would exceed 100 pts)" if mdd is not None and mdd > 1
                  else _pts(mdd).replace("+", "±"))
    return (f"{head}; power {w['power']:.0%} at alpha {w['alpha']:.2g}: smallest detectable pass@1 difference "
            f"{detectable}; a difference of "
            f"{100 * w['wanted_diff']:.1f} pts needs {w['tasks_needed']} tasks{attempts} "
            f"(variance: {w['variance_source']})")

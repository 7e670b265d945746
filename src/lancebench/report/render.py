"""Output formats of ``lancebench report``: a rich table, JSON, CSV and Parquet (needs pyarrow)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from lancebench.errors import ConfigError

FORMATS = ("table", "json", "csv", "parquet")


def flatten_row(row: dict[str, Any]) -> dict[str, Any]:
    """One flat record per row for CSV and Parquet: nested objects become dotted columns
    (``pass_at_k.2``, ``quality_scores.taste``), ``[lo, hi]`` pairs become ``.lo`` / ``.hi``, the
    ``jobs`` list is joined with ``;`` and ``notes`` with `` | ``."""
    flat: dict[str, Any] = {}

    def put(name: str, value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                put(f"{name}.{k}", v)
        elif "_ci" in name and (value is None or isinstance(value, list)):
            lo, hi = value if value is not None else (None, None)
            flat[f"{name}.lo"], flat[f"{name}.hi"] = lo, hi
        elif isinstance(value, list):
            flat[name] = (" | " if name == "notes" else ";").join(str(v) for v in value)
        else:
            flat[name] = value

    for key, value in row.items():
        put(key, value)
    return flat


def _columns(records: list[dict[str, Any]]) -> list[str]:
    cols: dict[str, None] = {}
    for rec in records:
        for k in rec:
            cols.setdefault(k, None)
    return list(cols)


def to_json(report: dict[str, Any]) -> str:
    """The report as indented JSON (``None`` for unknown numbers)."""
    return json.dumps(report, indent=2, allow_nan=False) + "\n"


def to_csv(report: dict[str, Any]) -> str:
    """The report's rows as CSV, one flattened row per line (see :func:`flatten_row`); unknown is empty."""
    records = [flatten_row(r) for r in report["rows"]]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=_columns(records), lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    return buf.getvalue()


def write_parquet(report: dict[str, Any], path: Path) -> None:
    """Write the report's flattened rows to a Parquet file (needs pyarrow)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise ConfigError("--format parquet needs pyarrow, which is not installed: pip install pyarrow, "
                          "or use --format csv or json") from exc
    records = [flatten_row(r) for r in report["rows"]]
    cols = _columns(records)
    table = pa.Table.from_pylist([{c: rec.get(c) for c in cols} for rec in records])
    pq.write_table(table, path)


def _pct(x: float | None) -> str:
    return "?" if x is None else f"{100 * x:.1f}%"


def _ci(pair: list | None) -> str:
    return "" if not pair else f" [{100 * pair[0]:.1f}, {100 * pair[1]:.1f}]"


def kind_mark(row: dict[str, Any], name: str) -> str:
    """`` W`` after an interval that is a Wilson score interval (``ci_kinds``: where the bootstrap
    would be a point, 0 or n of n), else ""."""
    kind = (row.get("ci_kinds") or {}).get(name) or ""
    return " W" if kind.startswith("Wilson") else ""


def _usd(x: float | None) -> str:
    return "unknown" if x is None else f"${x:,.2f}"


QUALITY_MEDIANS = ("taste.practice_alignment", "taste.relative_taste", "rubric.mean", "validation.score", "patch_bloat")


def quality_line(metrics: dict[str, Any]) -> str | None:
    """One line of senior-grading numbers from a summary or report row: the tasteful solve rate
    with its interval (bootstrap when present, else closed form) and, when both flagged trials, the
    rate by the task's own taste keys and by lancebench's judges, the median of each taste group,
    rubric mean, validation score and patch bloat, then every other dimension's median. None when
    no trial was judged."""
    medians = metrics.get("quality_medians") or {}
    if metrics.get("tasteful_solve_rate") is None and not medians:
        return None
    ci = metrics.get("tasteful_solve_rate_ci") or metrics.get("tasteful_solve_rate_ci_closed")
    parts = [f"tasteful solve {_pct(metrics.get('tasteful_solve_rate'))}{_ci(ci)}"]
    by_source = metrics.get("tasteful_solve_rate_by_source") or {}
    if len(by_source) > 1:  # the task's own taste keys and lancebench's judges both flagged trials
        parts[0] += " (" + ", ".join(f"by the {k}: {_pct(v)}" for k, v in sorted(by_source.items(), reverse=True)) + ")"
    names = [n for n in QUALITY_MEDIANS if n in medians] + sorted(n for n in medians if n not in QUALITY_MEDIANS)
    parts += [f"{n} {'?' if medians[n] is None else format(medians[n], '.3g')}" for n in names]
    if metrics.get("quality_missing"):
        parts.append(f"{metrics['quality_missing']} resolved trial(s) without a verdict")
    return "quality (medians): " + "; ".join(parts)


def row_label(row: dict[str, Any]) -> str:
    """A report row's configuration in a few words, as the table's first columns show it:
    ``oracle (backend=docker), -, mini`` (agent with its distinguishing settings, model, dataset)."""
    agent = row["agent"] + (f" ({row['settings']})" if row.get("settings") else "")
    return f"{agent}, {row['model'] or '-'}, {row['dataset'] or '-'}"


def render_table(report: dict[str, Any], console: Console) -> None:
    """Print the report as a rich table (success with bootstrap intervals, dollars, cost, savings),
    then each row's notes. pass@k and pass^k are shown at k = the row's most valid attempts."""
    rows = report["rows"]
    by = any("by" in r for r in rows)
    t = Table(title=f"lancebench report: {report['confidence']:.0%} bootstrap intervals over tasks",
              caption="pass@k and pass^k at k = most valid attempts of a task; invalid: trials (share of "
                      "trials); cost: model spend of every trial (USD); savings: AI-first with 1 try "
                      "(docs/metrics.md); W: Wilson score interval (every task has the same value, the "
                      "bootstrap would be a point)",
              show_lines=False)
    headers = ["agent", "model", "dataset", *((rows[0]["by"],) if by else ()), "tasks", "trials", "invalid",
               "pass@1", "k", "pass@k", "pass^k", "earned", "available", "earn rate", "cost", "savings@1"]
    for name in headers:
        t.add_column(name, justify="left" if name in ("agent", "model", "dataset") else "right", overflow="fold")
    for r in rows:
        k = str(max(r["attempts_max"], 1))
        without = r["tasks_without_valid_trial"]
        tasks = str(r["tasks"]) + (f" ({without} w/o valid)" if without else "")
        t.add_row(
            r["agent"] + (f" ({r['settings']})" if r.get("settings") else ""), r["model"] or "-", r["dataset"] or "-",
            *((r.get("by_value", ""),) if by else ()),
            tasks, str(r["trials"]), f"{r['invalid']} ({_pct(r.get('invalid_rate'))})",
            _pct(r["pass_at_1"]) + _ci(r.get("pass_at_1_ci")) + kind_mark(r, "pass_at_1_ci"), k,
            _pct(r["pass_at_k"].get(k)), _pct(r["pass_hat_k"].get(k)),
            _usd(r["earned_usd"]), _usd(r["available_usd"]),
            _pct(r["earn_rate"]) + _ci(r.get("earn_rate_ci")) + kind_mark(r, "earn_rate_ci"),
            _usd(r["cost_usd"]), _pct(r["cost_savings"].get("1")),
        )
    console.print(t)
    for i, r in enumerate(rows, 1):
        line = quality_line(r)
        if line:
            console.print(f"row {i} {line}", highlight=False)
    for i, r in enumerate(rows, 1):
        for note in r["notes"]:
            console.print(f"row {i} ({row_label(r)}" + (f", {r.get('by_value')}" if by else "") + f"): {note}",
                          highlight=False)
    for path, count in report.get("unfinished_trials", {}).items():
        console.print(f"{path}: {count} trial folder(s) have no result.json yet (running or interrupted): "
                      f"not counted", highlight=False)


def check_format(fmt: str, out: Path | None) -> None:
    """Raise :class:`ConfigError` for an unknown format, or parquet without ``--out``."""
    if fmt not in FORMATS:
        raise ConfigError(f"--format {fmt}: unknown format; use one of {', '.join(FORMATS)}")
    if fmt == "parquet" and out is None:
        raise ConfigError("--format parquet writes a binary file: give its path with --out FILE.parquet")

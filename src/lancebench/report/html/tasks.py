"""The task table of the report: one row per task (dataset, name), its filter fields (split,
kind, price bucket, every taxonomy key) and each configuration's trials of it."""

from __future__ import annotations

import re

from lancebench.metrics.money import price_bucket
from lancebench.results.models import TrialResult

FIXED_FIELDS = ("split", "kind", "price")
MARK = {"resolved": "✓", "unresolved": "✗", "invalid": "!"}


def _values(value) -> list[str]:
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value] or ["(none)"]
    return ["(none)" if value is None else str(value)]


def page_href(job: str, trial_id: str) -> str:
    """Path of a trial's page inside the site: ``trials/<job>/<trial_id>.html`` (names made
    file-name-safe)."""
    job = re.sub(r"[^A-Za-z0-9_.-]+", "-", job).strip(".-") or "job"
    trial = re.sub(r"[^A-Za-z0-9_.-]+", "-", trial_id).strip(".-") or "trial"
    return f"trials/{job}/{trial}.html"


def trial_href(r: TrialResult) -> str:
    """:func:`page_href` of a result."""
    return page_href(r.job, r.trial_id)


def task_rows(results: list[TrialResult], configs: list[tuple]) -> tuple[list[dict], dict[str, list[str]]]:
    """(rows, filters). ``configs``: the configurations, as :meth:`TrialResult.configuration` keys.
    A row: ``task``, ``dataset``, ``price_usd``, ``fields`` (field -> list of values; taxonomy keys
    as ``taxonomy.KEY``), ``cells`` (one per configuration in ``configs``: list of ``{"status",
    "mark", "href", "attempt"}``, by attempt). ``filters``: field -> sorted values seen, for the
    filter menus."""
    rows: dict[tuple, dict] = {}
    index = {c: i for i, c in enumerate(configs)}
    for r in results:
        key = (r.dataset, r.task)
        row = rows.get(key)
        if row is None:
            fields = {"split": [r.split], "kind": [r.kind], "price": [str(price_bucket([r.price_usd])[0])]}
            fields.update({f"taxonomy.{k}": _values(v) for k, v in sorted(r.taxonomy.items())})
            row = rows[key] = {"task": r.task, "dataset": r.dataset, "price_usd": r.price_usd, "fields": fields,
                               "cells": [[] for _ in configs]}
        row["cells"][index[r.configuration()]].append(
            {"status": r.status, "mark": MARK[r.status], "href": trial_href(r), "attempt": r.attempt,
             "reason": (r.reason or "")[:200]})
    for row in rows.values():
        for cell in row["cells"]:
            cell.sort(key=lambda t: t["attempt"])
    names = {name for row in rows.values() for name in row["fields"]}
    filters: dict[str, set[str]] = {}
    for row in rows.values():
        for name in names:  # a task without a taxonomy key can be picked as "(none)"
            filters.setdefault(name, set()).update(row["fields"].setdefault(name, ["(none)"]))
    order = [*FIXED_FIELDS, *sorted(k for k in filters if k not in FIXED_FIELDS)]
    ordered = sorted(rows.values(), key=lambda r: (str(r["dataset"]), r["task"]))
    return ordered, {k: sorted(filters[k]) for k in order if k in filters}


TASKS_PER_PAGE = 100  # rows of the task table the page draws at once (static/site.js pages through the rest)


def _usd(x: float | None) -> str:
    return "unknown" if x is None else f"${x:,.2f}"


def task_table_data(rows: list[dict]) -> dict:
    """The task table as the index page's data island, drawn a page at a time by ``static/site.js``
    (a table of 50,000 trials is never in the page as elements): ``{"per_page": N, "rows": [[task,
    dataset, price text, fields, cells], ...]}``, a cell being the list of ``[status, attempt,
    href, reason]`` of one configuration's trials of the task (see :func:`task_rows`)."""
    return {"per_page": TASKS_PER_PAGE,
            "rows": [[t["task"], t["dataset"], _usd(t["price_usd"]), t["fields"],
                      [[[c["status"], c["attempt"], c["href"], c["reason"]] for c in cell] for cell in t["cells"]]]
                     for t in rows]}

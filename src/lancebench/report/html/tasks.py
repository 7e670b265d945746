"""The task table of the report: one row per task (dataset, name), its filter fields (split,
kind, price bucket, every taxonomy key) and each configuration's trials of it."""

from __future__ import annotations

import re
from collections.abc import Iterable

from lancebench.metrics.money import price_bucket
from lancebench.results.models import TrialResult

FIXED_FIELDS = ("split", "kind", "price")
MARK = {"resolved": "✓", "unresolved": "✗", "invalid": "!"}


def _values(value) -> list[str]:
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value] or ["(none)"]
    return ["(none)" if value is None else str(value)]


CHUNK_TRIALS = 50  # trials per data file of the trial pages (one file, not one per trial: disk blocks)
TRIAL_PAGE = "trial.html"  # the one page that shows every trial, from its data file


def _safe(text: str, default: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip(".-") or default


def trial_chunks(results: Iterable[TrialResult]) -> dict[str, list[TrialResult]]:
    """The trials' data files: path inside the site (``trials/<job>/<n>.js``, names made
    file-name-safe) -> its trials, :data:`CHUNK_TRIALS` at most, each job's trials in (task,
    attempt, id) order so that the attempts of a task share a file (and their instruction)."""
    by_job: dict[str, list[TrialResult]] = {}
    for r in results:
        by_job.setdefault(_safe(r.job, "job"), []).append(r)
    chunks: dict[str, list[TrialResult]] = {}
    for job, rs in by_job.items():
        rs.sort(key=lambda r: (r.task, r.attempt, r.trial_id))
        for start in range(0, len(rs), CHUNK_TRIALS):
            chunks[f"trials/{job}/{start // CHUNK_TRIALS}.js"] = rs[start:start + CHUNK_TRIALS]
    return chunks


def trial_key(trial_id: str) -> str:
    """A trial's key inside its data file (its id made file-name-safe)."""
    return _safe(trial_id, "trial")


def page_href(chunk: str, trial_id: str) -> str:
    """Address of a trial's page inside the site: the shared page with the trial named in its query,
    ``trial.html?t=<job>/<n>/<trial>`` for the trial ``trial_id`` of data file
    ``trials/<job>/<n>.js`` (see :func:`trial_chunks`)."""
    job, n = chunk.removeprefix("trials/").removesuffix(".js").split("/")
    return f"{TRIAL_PAGE}?t={job}/{n}/{trial_key(trial_id)}"


def trial_links(chunks: dict[str, list[TrialResult]]) -> dict[tuple[str, str], str]:
    """(job, trial id) -> :func:`page_href` of every trial of ``chunks``."""
    return {(r.job, r.trial_id): page_href(chunk, r.trial_id) for chunk, rs in chunks.items() for r in rs}


def task_rows(results: list[TrialResult], configs: list[tuple],
              links: dict[tuple[str, str], str]) -> tuple[list[dict], dict[str, list[str]]]:
    """(rows, filters). ``configs``: the configurations, as :meth:`TrialResult.configuration` keys;
    ``links``: each trial's page (:func:`trial_links`).
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
            {"status": r.status, "mark": MARK[r.status], "href": links[(r.job, r.trial_id)], "attempt": r.attempt,
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


STATUS_CODE = {"resolved": "r", "unresolved": "u", "invalid": "i"}


def task_table_data(rows: list[dict]) -> dict:
    """The task table as the index page's data island, drawn a page at a time by ``static/site.js``
    (a table of 50,000 trials is never in the page as elements), compact because every trial of
    the site is in it: ``{"per_page": N, "jobs": [job folder name in the site, ...], "rows":
    [[task, dataset, price text, fields, cells], ...]}``, a cell being the list of ``[status code
    (:data:`STATUS_CODE`), attempt, job (index into "jobs"), data file number, trial key,
    reason]`` of one configuration's trials of the task; a trial's page is
    ``trial.html?t=<job>/<n>/<key>`` (:func:`page_href`; cells of :func:`task_rows`)."""
    jobs: dict[str, int] = {}

    def cell(c: dict) -> list:
        job, n, key = c["href"].split("?t=", 1)[1].split("/")
        return [STATUS_CODE[c["status"]], c["attempt"], jobs.setdefault(job, len(jobs)), int(n), key, c["reason"]]

    table = [[t["task"], t["dataset"], _usd(t["price_usd"]), t["fields"], [[cell(c) for c in cl] for cl in t["cells"]]]
             for t in rows]
    return {"per_page": TASKS_PER_PAGE, "jobs": list(jobs), "rows": table}

"""The ``swelancer`` dataset: SWE-Lancer Diamond (arXiv 2502.12115) from its task table.

``task_folders(filter, source)`` reads the table (``--source PATH``, or a copy downloaded once and
checked; see :mod:`lancebench.datasets.swelancer.source`) and writes each selected row as a task
folder in Harbor's layout under ``<lancebench home>/datasets/swelancer/<table sha256 prefix>/
<question_id>/``, atomically, reusing folders already there with the same content:

- manager rows (``swe_manager``) become ``kind = "choice"`` tasks: ``instruction.md`` (our own
  wording: the issue, its payout, the proposals, how to answer), ``tests/choice.json`` (the right
  id, which only the harness reads) and ``solution/solve.sh`` (writes the right answer, so the
  ``oracle`` agent validates the task). The agent's workspace is an empty repository, or, with
  ``repo_path`` (``--repo-path``), the product's tree at the parent of ``manager_commit``.
- IC rows (``ic_swe``) run on SWE-Lancer's official per-task images (the product's checkout with
  the bug reintroduced, the hidden Playwright test), which must be in the local Docker engine;
  :mod:`lancebench.datasets.swelancer.ic` writes their folders, or refuses with a
  :class:`DatasetError` giving the ``docker pull`` commands of the missing images.

Filters: ``manager``, ``ic``, and the generic ``public``/``private``/``code``/``choice``.
``summary(source)`` counts tasks and dollars per variant without writing anything.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from collections import Counter
from pathlib import Path

import tomli_w

from lancebench.caches.cache import sub
from lancebench.datasets.swelancer.prompt import ANSWER_FILE, manager_instruction
from lancebench.datasets.swelancer.repo import parents
from lancebench.datasets.swelancer.source import locate_table
from lancebench.datasets.swelancer.table import IC, KIND, MANAGER, SwelancerRow, read_table, split_of
from lancebench.datasets.task_folder import write_task
from lancebench.errors import DatasetError

FILTERS = ("manager", "ic")
GENERIC = ("public", "private", "code", "choice")


def task_toml(row: SwelancerRow, checkout: tuple[str, str] | None = None) -> str:
    """The ``task.toml`` of a manager row (written by tomli-w); ``checkout`` = (repository path,
    commit) adds a ``[lancebench.local.checkout]`` that fills the workdir with that commit's tree."""
    lb: dict = {"price_usd": row.price, "kind": KIND[row.variant], "split": split_of(row),
                "choice": {"proposal_ids": list(row.proposal_ids), "answer_file": ANSWER_FILE}}
    if checkout:
        lb["local"] = {"setup": "", "checkout": {"repo": checkout[0], "rev": checkout[1]}}
    return tomli_w.dumps({
        "version": "1.0",
        "metadata": {"benchmark": "swelancer", "upstream": "SWE-Lancer Diamond (arXiv 2502.12115)",
                     "question_id": row.question_id, "variant": row.variant, "manager_commit": row.manager_commit,
                     "set": row.set, "taxonomy": {"variant": row.variant, "proposals": len(row.proposals)}},
        "agent": {"timeout_sec": 1800},
        "lancebench": lb,
    })


def solve_sh(row: SwelancerRow) -> str:
    """The oracle's script for a manager task: writes the accepted proposal's id (``correct_id``, set on
    every manager row; raises ValueError for a row without one)."""
    if row.correct_id is None:
        raise ValueError(f"task {row.question_id}: a manager row without correct_id has no reference answer")
    return ("#!/usr/bin/env bash\n# Reference answer: the proposal the real manager accepted.\nset -euo pipefail\n"
            f"printf '%s\\n' '{{\"selected_proposal_id\": {int(row.correct_id)}}}' > {ANSWER_FILE}\n")


def task_files(row: SwelancerRow, checkout: tuple[str, str] | None = None) -> dict[str, tuple[str, int]]:
    """The files of manager ``row``'s task folder: relative path -> (text, mode). ``checkout``: see
    :func:`task_toml`."""
    return {
        "task.toml": (task_toml(row, checkout), 0o644),
        "instruction.md": (manager_instruction(row, checkout=checkout is not None), 0o644),
        "tests/choice.json": (json.dumps({"correct_proposal_id": row.correct_id}) + "\n", 0o644),
        "solution/solve.sh": (solve_sh(row), 0o755),
    }


def write_manager_task(row: SwelancerRow, dest: Path, checkout: tuple[str, str] | None = None) -> Path:
    """Write the task folder of manager ``row`` at ``dest`` (with ``checkout``, see :func:`task_toml`)
    and return ``dest``; atomically, reusing a folder already there with the same content
    (:func:`lancebench.datasets.task_folder.write_task`). Raises :class:`DatasetError`."""
    return write_task({rel: (text.encode("utf-8"), mode) for rel, (text, mode) in task_files(row, checkout).items()},
                      dest)


def _select(rows: list[SwelancerRow], filt: str | None) -> list[SwelancerRow]:
    if filt is None:
        return rows
    if filt == "manager":
        return [r for r in rows if r.variant == MANAGER]
    if filt == "ic":
        return [r for r in rows if r.variant == IC]
    if filt in ("public", "private"):
        return [r for r in rows if split_of(r) == filt]
    if filt in ("code", "choice"):
        return [r for r in rows if KIND[r.variant] == filt]
    raise DatasetError(f"dataset 'swelancer' has no filter '{filt}'; use one of {', '.join(FILTERS + GENERIC)} "
                       f"(e.g. -d swelancer:manager)")


def cache_root(sha256: str) -> Path:
    """Where the task folders made from the table with digest ``sha256`` go."""
    return sub("datasets") / "swelancer" / sha256[:16]


def task_folders(filt: str | None, source: Path | None, repo_path: Path | None = None,
                 names: list[str] | None = None) -> list[Path]:
    """Task folders of ``swelancer[:filt]`` (see the module docstring). ``repo_path``: a clone of
    Expensify/App; each manager task's workdir is then its tree at the parent of ``manager_commit``
    (:mod:`lancebench.datasets.swelancer.repo`), and its folder goes under ``repo-<hash of the path>/``.
    ``names``: question-id globs (``-t``); only those tasks are written (so IC tasks need only
    their own images, and a clone only their commits).
    Raises :class:`DatasetError` for an unknown filter, an unreadable or missing table, IC tasks
    whose images are missing, or a clone that lacks a needed commit."""
    _select([], filt)  # an unknown filter fails before any reading or download
    path, digest = locate_table(source)
    rows = _select(read_table(path), filt)
    if names:
        rows = [r for r in rows if any(fnmatch.fnmatch(r.question_id, g) for g in names)]
    root = cache_root(digest)
    ic_rows = [r for r in rows if r.variant == IC]
    managers = [r for r in rows if r.variant == MANAGER]
    if repo_path is not None and managers:
        repo = repo_path.expanduser().resolve()
        base = parents(repo, managers, ANSWER_FILE)
        where = root / f"repo-{hashlib.sha256(str(repo).encode()).hexdigest()[:12]}"
        folders = [write_manager_task(r, where / r.question_id, (str(repo), base[r.question_id])) for r in managers]
    else:
        folders = [write_manager_task(r, root / r.question_id) for r in managers]
    if ic_rows:
        from lancebench.datasets.swelancer.ic import ic_task_folders  # the Docker SDK, only when needed
        folders += ic_task_folders(ic_rows, root)
    return sorted(folders)


def summary(source: Path | None) -> dict:
    """Counts of the table without writing any task: ``tasks``, ``by_kind``, ``by_split``,
    ``by_variant`` (variant -> ``tasks``, ``price_usd``, ``runnable``: the number of tasks whose
    environment is at hand here: every manager task; the IC tasks whose official image the local
    Docker engine holds, 0 without an engine), ``total_price_usd``,
    ``browser`` (IC tasks are graded in a browser), ``errors`` (0: a broken table raises),
    ``source`` and ``sha256``. Raises :class:`DatasetError` when the table cannot be had."""
    path, digest = locate_table(source)
    rows = read_table(path)
    from lancebench.datasets.swelancer.ic import missing_images
    by_variant: dict[str, dict] = {}
    for v in (MANAGER, IC):
        chosen = [r for r in rows if r.variant == v]
        missing = missing_images(chosen) if v == IC else []
        by_variant[v] = {"tasks": len(chosen), "price_usd": sum(r.price for r in chosen),
                         "runnable": len(chosen) - len(missing) if missing is not None else 0}
    return {"name": "swelancer", "tasks": len(rows), "by_kind": dict(Counter(KIND[r.variant] for r in rows)),
            "by_split": dict(Counter(split_of(r) for r in rows)), "by_variant": by_variant,
            "browser": sum(r.variant == IC for r in rows), "total_price_usd": sum(r.price for r in rows),
            "errors": 0, "source": str(path), "sha256": digest}

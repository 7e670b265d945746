"""Read a job's results folder: ``job.json`` (JobConfig) and every ``trials/*/result.json`` (TrialResult).

Nothing is skipped silently: a trial folder without ``result.json`` is a trial still running or
never finished and is reported in :attr:`JobResults.unfinished`; a ``result.json`` that cannot be
read or validated is an error naming the file."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from lancebench.errors import ResultsError
from lancebench.results.harbor_jobs import is_harbor_job, load_harbor_trials
from lancebench.results.index import IndexedTrials
from lancebench.results.models import JobConfig, TrialResult, Usage
from lancebench.results.result_file import (
    load_result as load_result,  # re-exported: the readers' import
    read_json,
)


@dataclass
class JobResults:
    """One job folder: ``path``, its ``config`` (None when ``job.json`` is absent), its ``results``
    (in trial-folder order) and ``unfinished`` (planned trial folders without a ``result.json``,
    whether or not the folder exists)."""

    path: Path
    config: JobConfig | None
    results: list[TrialResult] = field(default_factory=list)
    unfinished: list[Path] = field(default_factory=list)


def load_job_config(path: Path) -> JobConfig:
    """Read and validate a ``job.json``; raises :class:`ResultsError` naming the file."""
    try:
        return JobConfig.model_validate(read_json(path))
    except ValidationError as exc:
        raise ResultsError(path, f"is not a valid job config ({exc.error_count()} problem(s): "
                                 f"{exc.errors()[0]['msg']})", "fix or restore job.json") from exc


@dataclass
class IndexedJob:
    """One job folder read through its index (:mod:`lancebench.results.index`) without parsing
    every result: ``path``, ``config`` (None without ``job.json``), ``trials`` (the recorded
    trials of the plan, synchronised with their folders) and ``unfinished`` (planned trial
    folders without a ``result.json``). Close it (or use it as a context manager) when done."""

    path: Path
    config: JobConfig | None
    trials: IndexedTrials
    unfinished: list[Path]

    def __enter__(self) -> IndexedJob:
        return self

    def __exit__(self, *exc: object) -> None:
        self.trials.close()


def open_job(job_dir: Path | str) -> IndexedJob:
    """Read ``job_dir/job.json`` (optional) and the job's plan (``plan.json``: every trial any run
    of the job planned, except trials of an older version of a task, which stay on disk but are not
    read; without a plan, every trial folder), and bring the index up to date with the planned
    trials' ``result.json`` files (:class:`lancebench.results.index.IndexedTrials`).

    Raises :class:`ResultsError` when ``job_dir`` is not a job folder (no ``trials/``; a Harbor
    job folder is read by :func:`load_job` only), or when ``job.json``, ``plan.json`` or a
    ``result.json`` that had to be read cannot be read or validated."""
    job_dir = Path(job_dir)
    trials = job_dir / "trials"
    if not job_dir.is_dir():
        raise ResultsError(job_dir, "is not a folder", "pass a job folder such as jobs/<job>")
    if not trials.is_dir():
        raise ResultsError(job_dir, "has no trials/ folder, so it is not a job folder",
                           "pass a job folder (one holding job.json and trials/), such as jobs/<job>")
    job_json = job_dir / "job.json"
    config = load_job_config(job_json) if job_json.exists() else None
    planned = read_plan(job_dir)
    names = sorted(set(planned) if planned is not None else {p.name for p in trials.iterdir() if p.is_dir()})
    index = IndexedTrials(job_dir, names)
    return IndexedJob(path=job_dir, config=config, trials=index,
                      unfinished=[trials / name for name in index.unfinished])


def load_job(job_dir: Path | str) -> JobResults:
    """Every recorded result of a job's plan (see :func:`open_job`), in trial-id order, read from
    the job's index; a planned trial without a ``result.json`` (interrupted, or never started) is
    listed in ``unfinished``. A Harbor job folder is read too
    (:mod:`lancebench.results.harbor_jobs`).

    Raises :class:`ResultsError` as :func:`open_job` does."""
    job_dir = Path(job_dir)
    if job_dir.is_dir() and is_harbor_job(job_dir):  # a Harbor job folder, read for side-by-side comparison
        _, results, unfinished = load_harbor_trials(job_dir)
        return JobResults(path=job_dir, config=None, results=results, unfinished=unfinished)
    with open_job(job_dir) as job:
        return JobResults(path=job.path, config=job.config, results=job.trials.results(), unfinished=job.unfinished)


def unfinished_usage(job: JobResults) -> Usage:
    """The model spend of the job's unfinished trials (cancelled, interrupted, killed), from each
    one's ``usage.json`` (see :class:`lancebench.results.paths.TrialPaths`); a trial without one
    spent nothing that was seen. Unreadable files count as nothing."""
    total = Usage()
    for folder in job.unfinished:
        try:
            total = total + Usage.model_validate(json.loads((folder / "usage.json").read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return total


def plan_key(trial_id: str) -> str:
    """The (task, attempt) part of a trial id ``<task>__<attempt>__<key>``: two trials with the
    same plan key are two versions of one planned trial (the later supersedes the earlier)."""
    return trial_id.rsplit("__", 1)[0]


def read_plan(job_dir: Path) -> list[str] | None:
    """The trial ids of the job's plan (``plan.json``), or None for a job without one.
    Raises :class:`ResultsError` when the file is unreadable or not a list of strings."""
    path = Path(job_dir) / "plan.json"
    if not path.is_file():
        return None
    data = read_json(path)
    if not isinstance(data, list) or not all(isinstance(t, str) for t in data):
        raise ResultsError(path, "is not a list of trial ids", "delete plan.json; the next run writes it again")
    return data


def expand_job_dirs(paths: Sequence[Path | str]) -> list[Path]:
    """Job folders named by ``paths``: a job folder (holding ``trials/``) stands for itself; a folder
    of job folders (such as ``jobs/``) stands for every child folder holding ``trials/``, in name
    order. Anything else is returned as is, so that :func:`load_job` reports what is wrong with it."""
    out: list[Path] = []
    for p in map(Path, paths):
        if not (p / "trials").is_dir() and p.is_dir() and not is_harbor_job(p):
            children = sorted(c for c in p.iterdir() if (c / "trials").is_dir() or is_harbor_job(c))
            if children:
                out.extend(children)
                continue
        out.append(p)
    return out


def load_jobs(job_dirs: Sequence[Path | str]) -> list[JobResults]:
    """:func:`load_job` for each job folder (folders of job folders are expanded, see
    :func:`expand_job_dirs`); the same folder given twice is read once."""
    seen: set[Path] = set()
    jobs = []
    for d in expand_job_dirs(job_dirs):
        real = d.resolve()
        if real in seen:
            continue
        seen.add(real)
        jobs.append(load_job(d))
    return jobs

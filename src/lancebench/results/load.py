"""Read a job's results folder: ``job.json`` (JobConfig) and every ``trials/*/result.json`` (TrialResult).

Nothing is skipped silently: a trial folder without ``result.json`` is a trial still running or
never finished and is reported in :attr:`JobResults.unfinished`; a ``result.json`` that cannot be
read or validated is an error naming the file."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lancebench.errors import ResultsError
from lancebench.results.harbor_jobs import is_harbor_job, load_harbor_trials
from lancebench.results.models import JobConfig, TrialResult, Usage


@dataclass
class JobResults:
    """One job folder: ``path``, its ``config`` (None when ``job.json`` is absent), its ``results``
    (in trial-folder order) and ``unfinished`` (planned trial folders without a ``result.json``,
    whether or not the folder exists)."""

    path: Path
    config: JobConfig | None
    results: list[TrialResult] = field(default_factory=list)
    unfinished: list[Path] = field(default_factory=list)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ResultsError(path, f"cannot be read: {exc.strerror or exc}", "check the file's permissions") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ResultsError(path, f"is not valid JSON: {exc}",
                           "the file is corrupt; delete this trial's folder and resume the job to re-run it") from exc


def load_result(path: Path | str) -> TrialResult:
    """Read and validate one ``result.json``; raises :class:`ResultsError` naming the file."""
    path = Path(path)
    data = _read_json(path)
    try:
        return TrialResult.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors())
        raise ResultsError(path, f"is not a valid trial result ({problems})",
                           "it was written by another lancebench version or edited by hand; re-run the trial "
                           "by deleting its folder and resuming the job") from exc


def load_job_config(path: Path) -> JobConfig:
    """Read and validate a ``job.json``; raises :class:`ResultsError` naming the file."""
    try:
        return JobConfig.model_validate(_read_json(path))
    except ValidationError as exc:
        raise ResultsError(path, f"is not a valid job config ({exc.error_count()} problem(s): "
                                 f"{exc.errors()[0]['msg']})", "fix or restore job.json") from exc


def load_job(job_dir: Path | str) -> JobResults:
    """Read ``job_dir/job.json`` (optional) and every ``job_dir/trials/*/result.json`` of the
    job's plan (``plan.json``: every trial any run of the job planned, except trials of an older
    version of a task, which stay on disk but are not read). A planned trial without a
    ``result.json`` (interrupted, or never started) is listed in ``unfinished``.

    A Harbor job folder is read too (:mod:`lancebench.results.harbor_jobs`).

    Raises :class:`ResultsError` when ``job_dir`` has no ``trials/`` folder (not a job folder), or
    when ``job.json`` or any ``result.json`` cannot be read or validated."""
    job_dir = Path(job_dir)
    trials = job_dir / "trials"
    if not job_dir.is_dir():
        raise ResultsError(job_dir, "is not a folder", "pass a job folder such as jobs/<job>")
    if is_harbor_job(job_dir):  # a Harbor job folder, read for side-by-side comparison
        _, results, unfinished = load_harbor_trials(job_dir)
        return JobResults(path=job_dir, config=None, results=results, unfinished=unfinished)
    if not trials.is_dir():
        raise ResultsError(job_dir, "has no trials/ folder, so it is not a job folder",
                           "pass a job folder (one holding job.json and trials/), such as jobs/<job>")
    job_json = job_dir / "job.json"
    config = load_job_config(job_json) if job_json.exists() else None
    out = JobResults(path=job_dir, config=config)
    planned = read_plan(job_dir)
    present = {p.name for p in trials.iterdir() if p.is_dir()}
    for name in sorted(present if planned is None else set(planned)):
        result = trials / name / "result.json"
        if result.exists():
            out.results.append(load_result(result))
        else:
            out.unfinished.append(trials / name)
    return out


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
    data = _read_json(path)
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

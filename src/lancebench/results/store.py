"""Atomic writes and reading a job's recorded results (for resume and reports)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from lancebench.results.index import index_written
from lancebench.results.load import load_job, load_result
from lancebench.results.models import TrialResult


def atomic_write(path: Path, text: str, *, errors: str = "strict") -> None:
    """Write ``text`` (UTF-8; ``errors="surrogateescape"`` writes undecodable bytes back as they
    were) to ``path`` so that readers see the old file or the whole new one, never a part
    (temporary file in the same folder, fsync, rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors=errors) as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_result(path: Path, result: TrialResult, text: str | None = None) -> None:
    """Record a trial: write its ``result.json`` at ``path`` (``JOB/trials/<trial_id>/result.json``;
    ``text``, the result's JSON as received, or else ``result`` dumped with indent 2) atomically,
    then add its row to the job's results index (:func:`lancebench.results.index.index_written`,
    best effort: the file is the record)."""
    atomic_write(path, text if text is not None else result.model_dump_json(indent=2))
    index_written(path, result)


def trial_key(task_digest: str, agent: str, model: str | None, attempt: int) -> str:
    """The identity of a trial: sha256 of (task content digest, agent, model, attempt), 12 hex digits."""
    return hashlib.sha256(f"{task_digest}\0{agent}\0{model or ''}\0{attempt}".encode()).hexdigest()[:12]


def trial_id(task_name: str, task_digest: str, agent: str, model: str | None, attempt: int) -> str:
    """Folder name of a trial: ``<task>__<attempt>__<key>`` (task name made filesystem-safe)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", task_name)[:80]
    return f"{safe}__{attempt}__{trial_key(task_digest, agent, model, attempt)}"


def read_result(path: Path) -> TrialResult:
    """Read one ``result.json`` (see :func:`lancebench.results.load.load_result`)."""
    return load_result(path)


def read_results(job_dir: Path) -> list[TrialResult]:
    """The finished trials of a job's latest plan (see :func:`lancebench.results.load.load_job`)."""
    return load_job(job_dir).results


def write_json(path: Path, data) -> None:
    atomic_write(path, json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")

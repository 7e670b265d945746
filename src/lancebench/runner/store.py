"""Atomic writes and reading a job's recorded results (for resume and reports)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from pydantic import ValidationError

from lancebench.errors import LancebenchError
from lancebench.runner.models import TrialResult
from lancebench.runner.paths import JobPaths


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the whole new one, never a
    part (temporary file in the same folder, fsync, rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def trial_key(task_digest: str, agent: str, model: str | None, attempt: int) -> str:
    """The identity of a trial: sha256 of (task content digest, agent, model, attempt), 12 hex digits."""
    return hashlib.sha256(f"{task_digest}\0{agent}\0{model or ''}\0{attempt}".encode()).hexdigest()[:12]


def trial_id(task_name: str, task_digest: str, agent: str, model: str | None, attempt: int) -> str:
    """Folder name of a trial: ``<task>__<attempt>__<key>`` (task name made filesystem-safe)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", task_name)[:80]
    return f"{safe}__{attempt}__{trial_key(task_digest, agent, model, attempt)}"


def read_result(path: Path) -> TrialResult:
    """Read one ``result.json``. Raises :class:`LancebenchError` naming the file when it is broken."""
    try:
        return TrialResult.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, ValidationError) as exc:
        raise LancebenchError(f"{path}: unreadable trial result ({str(exc).splitlines()[0]}); "
                              "delete the trial folder to rerun it") from exc


def read_results(job_dir: Path) -> list[TrialResult]:
    """Every finished trial of a job (folders without ``result.json`` are unfinished and skipped)."""
    paths = JobPaths(Path(job_dir))
    if not paths.trials.is_dir():
        if not paths.job.is_file():
            raise LancebenchError(f"{job_dir}: not a lancebench job folder (no job.json); pass a folder made by `lancebench run`")
        return []
    out = []
    for d in sorted(paths.trials.iterdir()):
        if (d / "result.json").is_file():
            out.append(read_result(d / "result.json"))
    return out


def write_json(path: Path, data) -> None:
    atomic_write(path, json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")

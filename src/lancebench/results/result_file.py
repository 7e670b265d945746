"""Reading one ``result.json``: the file as JSON, validated as a :class:`TrialResult`, every
problem an error naming the file (:class:`lancebench.errors.ResultsError`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lancebench.errors import ResultsError
from lancebench.results.models import TrialResult


def read_json(path: Path) -> Any:
    """The JSON value of ``path``; raises :class:`ResultsError` naming the file when it cannot be
    read or is not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ResultsError(path, f"cannot be read: {exc.strerror or exc}", "check the file's permissions") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ResultsError(path, f"is not valid JSON: {exc}",
                           "the file is corrupt; delete this trial's folder and resume the job to re-run it") from exc


def load_result(path: Path | str) -> TrialResult:
    """Read and validate one ``result.json``; raises :class:`ResultsError` naming the file, whose
    fix is to upgrade lancebench (not to re-run the trial) when the file's ``schema_version`` is
    newer than this version's."""
    path = Path(path)
    data = read_json(path)
    ours = TrialResult.model_fields["schema_version"].default
    theirs = data.get("schema_version") if isinstance(data, dict) else None
    if isinstance(theirs, int) and not isinstance(theirs, bool) and theirs > ours:
        raise ResultsError(path, f"was written by a newer lancebench (result schema {theirs}; this one reads "
                           f"schema {ours} and older)", "upgrade lancebench to read it (pip install -U "
                           "lancebench); keep the file: it holds a recorded trial")
    try:
        return TrialResult.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors())
        raise ResultsError(path, f"is not a valid trial result ({problems})",
                           "it was written by another lancebench version or edited by hand; re-run the trial "
                           "by deleting its folder and resuming the job") from exc

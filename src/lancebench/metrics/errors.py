"""Errors of the metrics and report packages (part of the :class:`LancebenchError` family)."""

from __future__ import annotations

from pathlib import Path

from lancebench.errors import LancebenchError


class MetricsError(LancebenchError):
    """Inputs to a metric are inconsistent (for example c > n, k < 1, or one task with two prices)."""


class ResultsError(LancebenchError):
    """A job folder or one of its ``result.json`` files cannot be read.

    ``path`` is the file or folder at fault; the message says what is wrong and what to do."""

    def __init__(self, path: Path | str, problem: str, fix: str | None = None):
        self.path = Path(path)
        self.problem = problem
        self.fix = fix
        msg = f"{self.path}: {problem}"
        if fix:
            msg += f" ({fix})"
        super().__init__(msg)

"""Errors of the metrics and report packages (part of the :class:`LancebenchError` family)."""

from __future__ import annotations

from lancebench.errors import LancebenchError, ResultsError


class MetricsError(LancebenchError):
    """Inputs to a metric are inconsistent (for example c > n, k < 1, or one task with two prices)."""


__all__ = ["MetricsError", "ResultsError"]

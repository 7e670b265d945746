"""Turning a judge's run into a :class:`~lancebench.results.models.JudgeRecord`: timing, and any
failure recorded as ``failed:<why>`` with no scores (never 0)."""

from __future__ import annotations

import time
from collections.abc import Callable

from lancebench.errors import ModelAuthError
from lancebench.judging.conversation import JudgeFailed
from lancebench.results.models import JudgeRecord


def recorded(model: str | None, run: Callable[[], JudgeRecord]) -> JudgeRecord:
    """Call ``run`` and return its record with ``duration_sec`` (wall seconds) and ``model`` set.

    A :class:`JudgeFailed` becomes ``failed:<why>`` (with the turns and usage spent); any other
    error of the judge becomes ``failed:internal`` with the error in ``rationale``.
    :class:`ModelAuthError` passes through (refused credentials stop the job).
    """
    started = time.monotonic()
    try:
        record = run()
    except ModelAuthError:
        raise
    except JudgeFailed as exc:
        record = JudgeRecord(status=f"failed:{exc.why}", rationale=exc.detail[:2000], turns=exc.turns, usage=exc.usage)
    except Exception as exc:  # a bug in a judge must not lose the trial's result
        record = JudgeRecord(status="failed:internal", rationale=f"{type(exc).__name__}: {exc}"[:2000])
    return record.model_copy(update={"duration_sec": time.monotonic() - started, "model": model})

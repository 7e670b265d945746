"""Code-quality metrics from senior grading (Senior SWE-Bench): tasteful solve rate, judge scores
and patch bloat.

Read from each :class:`~lancebench.results.models.TrialResult` (written by
:mod:`lancebench.judging`), never swept from reward keys (a verifier's ``rubric_judge_ok`` status
flag is not a score):

- the *tasteful* flag: ``quality.tasteful`` (True / False / None unknown);
- judge scores: ``judges[name].scores`` of every judge whose status is ``ok``, named
  ``<judge>.<score>`` (``taste.minimality``, ``taste.practice_alignment``, ``rubric.mean``,
  ``rubric.f2p``, ``validation.score``...); a skipped or failed judge contributes nothing (never 0);
- ``patch_bloat``: ``quality.patch_bloat`` (agent SLOC / reference SLOC).

A *tasteful solve* is a trial that is resolved and tasteful. An unresolved valid trial is not a
tasteful solve whatever its flag; a resolved trial with an unknown flag (judge skipped or failed)
is left out and counted in ``quality_missing``, never scored 0.
"""

from __future__ import annotations

import math

import numpy as np

from lancebench.results.models import TrialResult


def tasteful_flag(result: TrialResult) -> float:
    """The trial's tasteful flag as 1.0 / 0.0, or NaN when unknown (see the module docstring)."""
    q = result.quality
    if q is None or q.tasteful is None:
        return math.nan
    return 1.0 if q.tasteful else 0.0


def quality_scores(result: TrialResult) -> dict[str, float]:
    """``<judge>.<score>`` -> value for every ``ok`` judge, plus ``patch_bloat`` when known."""
    out = {f"{name}.{key}": float(v) for name, rec in result.judges.items() if rec.status == "ok"
           for key, v in rec.scores.items()}
    if result.quality is not None and result.quality.patch_bloat is not None:
        out["patch_bloat"] = float(result.quality.patch_bloat)
    return out


def tasteful_solve(valid: np.ndarray, success: np.ndarray, tasteful: np.ndarray) -> np.ndarray:
    """Per-trial tasteful solve: 1.0 resolved and tasteful, 0.0 unresolved or not tasteful, NaN when
    the trial is invalid or resolved with an unknown flag. All arrays (N,)."""
    out = np.where(success, tasteful, 0.0)
    return np.where(valid, out, np.nan)


def per_task_mean(task_index: np.ndarray, values: np.ndarray, n_tasks: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean per task of per-trial ``values`` (N,), skipping NaN. Returns ``(mean (T,), count (T,))``;
    the mean is NaN for a task with no non-NaN value."""
    known = ~np.isnan(values)
    count = np.bincount(task_index[known], minlength=n_tasks).astype(np.float64)
    total = np.bincount(task_index[known], weights=values[known], minlength=n_tasks)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, total / count, np.nan), count


def score_medians(valid: np.ndarray, scores: dict[str, np.ndarray]) -> dict[str, float | None]:
    """Median over valid trials of each score column (N,), NaN skipped; None for a column with no
    value. (Senior SWE-Bench reports each taste dimension's median.)"""
    out: dict[str, float | None] = {}
    for name, col in sorted(scores.items()):
        vals = col[valid & ~np.isnan(col)]
        out[name] = float(np.median(vals)) if vals.size else None
    return out

"""Code-quality metrics from judge scores (Senior SWE-Bench): tasteful solve rate and mean scores.

Where the numbers live in a :class:`~lancebench.results.models.TrialResult` (until the senior
grading issue fixes its own fields, this is the convention read here):

- the *tasteful* flag: ``rewards["tasteful"]`` (1.0 / 0.0), else ``extra["tasteful"]`` (bool);
- judge scores: every ``rewards`` key named ``taste``/``rubric`` or starting with ``taste.``,
  ``taste_``, ``rubric.`` or ``rubric_`` (any scale; the mean is reported on that scale).

A *tasteful solve* is a trial that is resolved and tasteful. An unresolved valid trial is not a
tasteful solve whatever its flag; a resolved trial without a flag (judge skipped or failed) has
unknown quality: it is left out and counted in ``quality_missing``, never scored 0.
"""

from __future__ import annotations

import math

import numpy as np

QUALITY_PREFIXES: tuple[str, ...] = ("taste", "rubric")


def is_quality_key(key: str) -> bool:
    """True for a rewards key holding a judge score (see the module docstring)."""
    if key == "tasteful":
        return False
    return any(key == p or key.startswith(p + ".") or key.startswith(p + "_") for p in QUALITY_PREFIXES)


def tasteful_flag(rewards: dict, extra: dict) -> float:
    """The trial's tasteful flag as 1.0 / 0.0, or NaN when no judge said (see module docstring)."""
    value = rewards.get("tasteful")
    if value is None:
        value = extra.get("tasteful") if isinstance(extra, dict) else None
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return math.nan
    return 1.0 if float(value) >= 0.5 else 0.0


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

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

When the task's own verifier writes taste scores (Senior SWE-Bench's ``reward.json``: keys
:data:`TASK_TASTE_KEYS`, medians on the 1-5 scale), the benchmark's rule gives the flag instead
(:func:`task_tasteful_flag`): both scores *above a D*, i.e. strictly above :data:`ABOVE_D` (2.0),
reading the 1-5 scale as the letter grades F, D, C, B, A (the benchmark's seed states its gate as
"above a D"); a ``taste_judge_ok`` of 0 makes it unknown. ``source`` picks the rule: ``auto`` (the
task's keys where a trial has them, else lancebench's judges), ``task`` or ``judges`` (the user
asks for one); :func:`tasteful_flags` gives every source, so a report can show both.

A *tasteful solve* is a trial that is resolved and tasteful. An unresolved valid trial is not a
tasteful solve whatever its flag; a resolved trial with an unknown flag (judge skipped or failed)
is left out and counted in ``quality_missing``, never scored 0.
"""

from __future__ import annotations

import math

import numpy as np

from lancebench.results.models import TrialResult

TASK_TASTE_KEYS = ("taste_practice_alignment", "taste_relative_taste")
ABOVE_D = 2.0
TASTEFUL_SOURCES = ("auto", "task", "judges")


def judges_tasteful_flag(result: TrialResult) -> float:
    """lancebench's judges' flag (``quality.tasteful``) as 1.0 / 0.0, or NaN when unknown."""
    q = result.quality
    if q is None or q.tasteful is None:
        return math.nan
    return 1.0 if q.tasteful else 0.0


def task_tasteful_flag(result: TrialResult) -> float:
    """The task's own flag from its reward keys: 1.0 when every :data:`TASK_TASTE_KEYS` score is
    above :data:`ABOVE_D`, 0.0 when one is not, NaN when the task wrote none of them (or not all)
    or its taste judge failed (``taste_judge_ok`` 0)."""
    r = result.rewards
    if not all(k in r for k in TASK_TASTE_KEYS) or r.get("taste_judge_ok", 1) == 0:
        return math.nan
    return 1.0 if all(r[k] > ABOVE_D for k in TASK_TASTE_KEYS) else 0.0


def tasteful_flags(result: TrialResult) -> dict[str, float]:
    """The flag by every source in :data:`TASTEFUL_SOURCES` (``auto``: the task's when it wrote
    its keys, else the judges')."""
    task, judges = task_tasteful_flag(result), judges_tasteful_flag(result)
    has_task = all(k in result.rewards for k in TASK_TASTE_KEYS)
    return {"auto": task if has_task else judges, "task": task, "judges": judges}


def tasteful_flag(result: TrialResult, source: str = "auto") -> float:
    """The trial's tasteful flag as 1.0 / 0.0, or NaN when unknown, by ``source`` (see the module
    docstring). Raises ValueError for a source not in :data:`TASTEFUL_SOURCES`."""
    if source not in TASTEFUL_SOURCES:
        raise ValueError(f"tasteful source {source!r}: one of {', '.join(TASTEFUL_SOURCES)}")
    return tasteful_flags(result)[source]


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

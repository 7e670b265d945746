"""Intervals of one row that are never a point, and the name of each interval's kind.

The percentile bootstrap over tasks is a point when every task has the same value (0 of n or n
of n solved): then the Wilson score interval (Wilson 1927) of the mean over the T counted tasks,
``wilson(mean * T, T)``, replaces it (for a price-weighted rate, over Kish's effective number of
tasks ``(sum w)^2 / sum w^2``, Kish 1965, "Survey Sampling", section 11.7). A standard error
clustered by a taxonomy key (Miller 2024, eq. 4) gives a normal interval, again Wilson over the
number of clusters when that SE is 0."""

from __future__ import annotations

import math

import numpy as np

from lancebench.metrics.intervals import bootstrap_weights, wilson_interval
from lancebench.metrics.paired import clustered_se, normal_interval

BOOTSTRAP = "percentile bootstrap over tasks"
WILSON_TASKS = "Wilson score over tasks (every task has the same value: the bootstrap would be a point)"


def unpoint_columns(lo: np.ndarray, hi: np.ndarray, values: np.ndarray,
                    confidence: float) -> tuple[np.ndarray, np.ndarray, list[str | None]]:
    """Bootstrap bounds ``lo``, ``hi`` (K,) of the column means of ``values`` (T, K) (NaN = not
    counted): a column whose counted values are all equal gets ``wilson(mean * m, m)`` over its m
    counted tasks instead. Returns new ``(lo, hi)`` and each column's kind (None: no value)."""
    v = np.asarray(values, dtype=np.float64)
    if v.ndim == 1:
        v = v[:, None]
    lo, hi = np.array(lo, dtype=np.float64, ndmin=1), np.array(hi, dtype=np.float64, ndmin=1)
    kinds: list[str | None] = []
    for k in range(v.shape[1]):
        col = v[~np.isnan(v[:, k]), k]
        if col.size == 0:
            kinds.append(None)
        elif np.all(col == col[0]):
            w_lo, w_hi = wilson_interval(col[0] * col.size, col.size, confidence)
            lo[k], hi[k] = float(w_lo), float(w_hi)
            kinds.append(WILSON_TASKS)
        else:
            kinds.append(BOOTSTRAP)
    return lo, hi, kinds


def kish_n(weights: np.ndarray) -> float:
    """Kish's effective sample size ``(sum w)^2 / sum w^2`` of non-negative ``weights``; 0 when all are 0."""
    w = np.asarray(weights, dtype=np.float64)
    sq = float(np.sum(w ** 2))
    return 0.0 if sq == 0 else float(np.sum(w)) ** 2 / sq


def unpoint_ratio(lo: float, hi: float, rate: float | None, weights: np.ndarray,
                  confidence: float) -> tuple[float, float, str | None]:
    """An earn-rate-like ratio's bootstrap bounds; when the rate is 0 or 1 (the bootstrap is a
    point), the Wilson interval over Kish's effective number of tasks of the ``weights`` (prices)."""
    if rate is None:
        return lo, hi, None
    if rate in (0.0, 1.0):
        n_eff = kish_n(weights)
        w_lo, w_hi = wilson_interval(rate * n_eff, n_eff, confidence)
        return float(w_lo), float(w_hi), f"Wilson score over Kish's effective tasks (n = {n_eff:.1f})"
    return lo, hi, BOOTSTRAP


def clustered_rate_interval(values: np.ndarray, groups: list[str],
                            confidence: float) -> tuple[float, float, float, int]:
    """Normal interval of the mean of per-task ``values`` (T,) (NaN not counted) on the SE
    clustered by ``groups`` (Miller 2024 eq. 4), clipped to [0, 1]; Wilson over the G clusters
    when that SE is 0. Returns ``(lo, hi, se, G)``."""
    v = np.asarray(values, dtype=np.float64)
    keep = ~np.isnan(v)
    g = [x for x, k in zip(groups, keep, strict=True) if k]
    n_groups = len(set(g))
    if not keep.any():
        return math.nan, math.nan, math.nan, 0
    mean = float(v[keep].mean())
    se = clustered_se(v[keep], g)
    if not se > 0:
        w_lo, w_hi = wilson_interval(mean * n_groups, n_groups, confidence)
        return float(w_lo), float(w_hi), se, n_groups
    lo, hi = normal_interval(mean, se, confidence, (0.0, 1.0))
    return lo, hi, se, n_groups


def rate_interval(rates: np.ndarray, confidence: float = 0.95, n_boot: int = 1000,
                  seed: int = 0) -> tuple[float, float, float, str | None]:
    """Mean of per-task ``rates`` (T,) (NaN not counted) with its percentile bootstrap interval
    over tasks, Wilson over tasks where that would be a point (:func:`unpoint_columns`). Returns
    ``(mean, lo, hi, kind)``; NaNs and None when no task counts. For a breakdown cell (cheaper
    than the whole :func:`lancebench.metrics.summary.compute_metrics`)."""
    v = np.asarray(rates, dtype=np.float64)
    if not (~np.isnan(v)).any():
        return math.nan, math.nan, math.nan, None
    W = bootstrap_weights(v.shape[0], n_boot, seed)
    counted = ~np.isnan(v)
    with np.errstate(divide="ignore", invalid="ignore"):
        means = (W @ np.where(counted, v, 0.0)) / (W @ counted.astype(np.float64))
    means = means[~np.isnan(means)]  # a resample without a counted task has no mean
    alpha = (1.0 - confidence) / 2.0
    b_lo, b_hi = np.quantile(means, [alpha, 1.0 - alpha]) if means.size else (math.nan, math.nan)
    lo, hi, kinds = unpoint_columns(np.array([b_lo]), np.array([b_hi]), v, confidence)
    return float(np.nanmean(v)), float(lo[0]), float(hi[0]), kinds[0]

"""Confidence intervals: the percentile bootstrap over tasks (seeded) and closed forms (Wilson score,
normal approximation). All vectorised; the unit resampled is the task, because attempts of one task
are not independent of each other."""

from __future__ import annotations

import warnings
from statistics import NormalDist

import numpy as np

from lancebench.metrics.errors import MetricsError


def z_value(confidence: float) -> float:
    """Two-sided standard-normal quantile for ``confidence`` in (0, 1), e.g. 0.95 -> 1.95996."""
    if not 0.0 < confidence < 1.0:
        raise MetricsError(f"confidence must be between 0 and 1 (exclusive), got {confidence}")
    return NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)


def wilson_interval(successes, n, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a binomial proportion (Wilson 1927, JASA 22:209-212).

    ``successes`` and ``n`` are counts (arrays broadcast together); returns ``(lo, hi)`` arrays of
    proportions in [0, 1], NaN where ``n == 0``. With z the normal quantile and p = s/n:
    centre ``(p + z^2/2n) / (1 + z^2/n)``, half-width
    ``z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/4n^2)``."""
    s = np.asarray(successes, dtype=np.float64)
    m = np.asarray(n, dtype=np.float64)
    z = z_value(confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = s / m
        denom = 1.0 + z * z / m
        centre = (p + z * z / (2 * m)) / denom
        half = z / denom * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m))
        lo = np.where(m > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        hi = np.where(m > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    return lo, hi


def normal_mean_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Normal-approximation (central limit theorem) interval for the mean over tasks, column-wise:
    ``mean +- z * s / sqrt(m)`` with ``s`` the sample standard deviation (ddof 1) of the m non-NaN
    values of the column, clipped to [0, 1]. ``values``: (T, K) per-task rates; returns (K,) arrays,
    NaN where a column has fewer than 2 values."""
    v = np.asarray(values, dtype=np.float64)
    if v.ndim == 1:
        v = v[:, None]
    mask = ~np.isnan(v)
    m = mask.sum(axis=0)
    z = z_value(confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(mask, v, 0.0).sum(axis=0) / m
        var = np.where(mask, (v - mean) ** 2, 0.0).sum(axis=0) / (m - 1)
        half = z * np.sqrt(var / m)
    ok = m >= 2
    return (np.where(ok, np.clip(mean - half, 0.0, 1.0), np.nan),
            np.where(ok, np.clip(mean + half, 0.0, 1.0), np.nan))


def closed_form_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form interval for a mean of per-task rates, column-wise over (T, K) values (NaN = task
    not counted in that column). When every value in a column is 0 or 1 (one attempt per task, or
    pass@k with k = n) the mean is a binomial proportion and the Wilson score interval is used;
    otherwise the normal approximation over tasks (:func:`normal_mean_interval`). Returns (K,) arrays."""
    v = np.asarray(values, dtype=np.float64)
    if v.ndim == 1:
        v = v[:, None]
    mask = ~np.isnan(v)
    binary = np.all(~mask | (v == 0.0) | (v == 1.0), axis=0)
    w_lo, w_hi = wilson_interval(np.where(mask, v, 0.0).sum(axis=0), mask.sum(axis=0), confidence)
    n_lo, n_hi = normal_mean_interval(v, confidence)
    return np.where(binary, w_lo, n_lo), np.where(binary, w_hi, n_hi)


def bootstrap_weights(n_items: int, n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """Resampling weights of the nonparametric bootstrap (Efron 1979): row b counts how many times
    each of the ``n_items`` tasks was drawn (with replacement, ``n_items`` draws) in resample b.
    Shape (n_boot, n_items), float64; seeded with numpy's PCG64 ``default_rng(seed)``."""
    if n_boot < 1:
        raise MetricsError(f"the number of bootstrap resamples must be >= 1, got {n_boot}")
    rng = np.random.default_rng(seed)
    if n_items == 0:
        return np.zeros((n_boot, 0))
    idx = rng.integers(0, n_items, size=(n_boot, n_items))
    idx += (np.arange(n_boot) * n_items)[:, None]
    return np.bincount(idx.ravel(), minlength=n_boot * n_items).reshape(n_boot, n_items).astype(np.float64)


def _percentiles(stats: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = (1.0 - confidence) / 2.0
    if stats.shape[0] == 0 or np.all(np.isnan(stats)):
        nan = np.full(stats.shape[1:], np.nan)
        return nan, nan.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # an all-NaN column gives NaN, on purpose
        lo = np.nanquantile(stats, alpha, axis=0)
        hi = np.nanquantile(stats, 1.0 - alpha, axis=0)
    return lo, hi


def bootstrap_mean_interval(values: np.ndarray, weights: np.ndarray,
                            confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval (Efron & Tibshirani 1993, ch. 13) of the mean over tasks of
    per-task values. ``values``: (T, K), NaN = task not counted in that column; ``weights``:
    (B, T) from :func:`bootstrap_weights`. Each resample's mean is ``sum w*v / sum w`` over the
    counted tasks. Returns ``(lo, hi)`` of shape (K,)."""
    v = np.asarray(values, dtype=np.float64)
    if v.ndim == 1:
        v = v[:, None]
    mask = ~np.isnan(v)
    with np.errstate(divide="ignore", invalid="ignore"):
        means = (weights @ np.where(mask, v, 0.0)) / (weights @ mask.astype(np.float64))
    return _percentiles(means, confidence)


def bootstrap_sum_interval(values: np.ndarray, weights: np.ndarray,
                           confidence: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of a total over tasks, ``sum_t x_t`` (e.g. earned USD).
    ``values``: (T,), NaN counted as 0; ``weights``: (B, T). Returns ``(lo, hi)`` floats."""
    x = np.nan_to_num(np.asarray(values, dtype=np.float64))
    lo, hi = _percentiles((weights @ x)[:, None], confidence)
    return float(lo[0]), float(hi[0])


def bootstrap_ratio_interval(numer: np.ndarray, denom: np.ndarray, weights: np.ndarray,
                             confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of a ratio of sums over tasks, ``sum_t num_t / sum_t den_t``
    (e.g. earn rate = earned USD / available USD). ``numer``: (T, K) or (T,), ``denom``: same
    shape or (T,); ``weights``: (B, T). Returns ``(lo, hi)`` of shape (K,) (or scalars for 1-D)."""
    num = np.asarray(numer, dtype=np.float64)
    den = np.asarray(denom, dtype=np.float64)
    one_d = num.ndim == 1
    if one_d:
        num = num[:, None]
    if den.ndim == 1:
        den = den[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        stats = (weights @ num) / (weights @ den)
    lo, hi = _percentiles(stats, confidence)
    return (lo[0], hi[0]) if one_d else (lo, hi)

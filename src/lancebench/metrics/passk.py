"""Success metrics from per-task attempt counts: pass@k, pass^k, expected attempts (vectorised).

Inputs are per-task integer arrays: ``n`` valid attempts and ``c`` of them resolved (invalid trials
are not counted in either). Every function works on whole arrays of tasks at once.
"""

from __future__ import annotations

import numpy as np

from lancebench.metrics.errors import MetricsError


def _check(n: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = np.asarray(n, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    if n.shape != c.shape:
        raise MetricsError(f"n and c must have the same shape, got {n.shape} and {c.shape}")
    if np.any(n < 0) or np.any(c < 0) or np.any(c > n):
        raise MetricsError("attempt counts need 0 <= c <= n for every task (c resolved out of n valid attempts)")
    return n, c


def _falling_ratio_table(top: np.ndarray, n: np.ndarray, kmax: int) -> np.ndarray:
    """``R[t, k-1] = C(top_t, k) / C(n_t, k)`` for k = 1..kmax, as the running product
    ``prod_{j<k} (top_t - j) / (n_t - j)``; NaN where ``k > n_t``. Shape (T, kmax)."""
    j = np.arange(kmax, dtype=np.float64)
    num = np.clip(top[:, None] - j[None, :], 0.0, None)          # a zero term stays zero in the product
    den = n[:, None] - j[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return np.cumprod(terms, axis=1)


def pass_at_k_table(n, c, kmax: int) -> np.ndarray:
    """pass@k of every task for every k = 1..kmax. Shape (T, kmax); column k-1 holds pass@k.

    Unbiased estimator of Chen et al. 2021 ("Evaluating Large Language Models Trained on Code",
    arXiv 2107.03374, eq. 1), the one SWE-Lancer (arXiv 2502.12115) uses:
    ``pass@k = 1 - C(n-c, k) / C(n, k)``, computed as ``1 - prod_{j<k} (n-c-j)/(n-j)`` (stable,
    no factorials). ``n``: valid attempts per task (T,), ``c``: resolved ones (T,). Entries with
    ``k > n`` are NaN (the estimator needs at least k attempts)."""
    n, c = _check(n, c)
    if kmax < 1:
        raise MetricsError(f"kmax must be >= 1, got {kmax}")
    return 1.0 - _falling_ratio_table((n - c).astype(np.float64), n, kmax)


def pass_hat_k_table(n, c, kmax: int) -> np.ndarray:
    """pass^k of every task for every k = 1..kmax: the chance that k attempts drawn without
    replacement from the task's n valid attempts all succeed. Shape (T, kmax).

    Unbiased estimator ``C(c, k) / C(n, k)`` of Yao et al. 2024 ("tau-bench", arXiv 2406.12045,
    section 3), the all-k counterpart of pass@k. NaN where ``k > n``."""
    n, c = _check(n, c)
    if kmax < 1:
        raise MetricsError(f"kmax must be >= 1, got {kmax}")
    return _falling_ratio_table(c.astype(np.float64), n, kmax)


def pass_at_k(n, c, k: int) -> np.ndarray:
    """pass@k per task, ``1 - C(n-c, k)/C(n, k)`` (Chen et al. 2021, eq. 1). ``n``, ``c``: arrays
    (T,) or scalars; ``k``: int >= 1. Returns float array (T,) with NaN where ``n < k``."""
    n_arr, c_arr = np.atleast_1d(n), np.atleast_1d(c)
    out = pass_at_k_table(n_arr, c_arr, int(k))[:, int(k) - 1]
    return out if np.ndim(n) else out[0]


def pass_hat_k(n, c, k: int) -> np.ndarray:
    """pass^k per task, ``C(c, k)/C(n, k)`` (Yao et al. 2024). Same shapes as :func:`pass_at_k`."""
    n_arr, c_arr = np.atleast_1d(n), np.atleast_1d(c)
    out = pass_hat_k_table(n_arr, c_arr, int(k))[:, int(k) - 1]
    return out if np.ndim(n) else out[0]


def expected_attempts_table(n, c, kmax: int) -> np.ndarray:
    """Expected number of attempts made per task when the model tries up to k times and stops at
    its first success, for k = 1..kmax. Shape (T, kmax).

    Attempts are drawn without replacement from the task's n recorded valid attempts (the same
    sampling model as Chen et al.'s pass@k), so attempt j+1 is made iff the first j all failed:
    ``E[A_k] = sum_{j=0}^{k-1} C(n-c, j) / C(n, j)``. Used for the model cost of SWE-Lancer's
    AI-first workflow with k tries (arXiv 2502.12115, section 3.6). NaN where ``k > n``."""
    n, c = _check(n, c)
    fail = _falling_ratio_table((n - c).astype(np.float64), n, kmax)   # column j-1: C(n-c,j)/C(n,j)
    first = np.where(n > 0, 1.0, np.nan)[:, None]
    out = np.concatenate([first, fail[:, : kmax - 1]], axis=1).cumsum(axis=1)
    out[np.arange(1, kmax + 1)[None, :] > n[:, None]] = np.nan
    return out

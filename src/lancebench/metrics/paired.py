"""Paired comparisons of two configurations on the same tasks, and standard errors clustered by
task or by group. Pure numpy functions; definitions and sources in docs/metrics.md.

- Exact McNemar test (McNemar 1947, Psychometrika 12:153-157; exact form: the two-sided binomial
  test of the discordant pairs, b of b + c at p = 1/2).
- Newcombe's hybrid score interval for a paired difference of proportions (Newcombe 1998, Stat.
  Med. 17:2635-2650, method 10), built from Wilson intervals: never a point.
- The paired sign-flip permutation test of the mean per-task difference (Fisher 1935; Good 2005,
  "Permutation, Parametric and Bootstrap Tests of Hypotheses", ch. 3): exact enumeration up to
  :data:`EXACT_MAX` tasks with a nonzero difference, else seeded Monte Carlo.
- Clustered standard errors of a mean (Miller 2024, "Adding Error Bars to Evals",
  arXiv 2411.00640, eq. 4; the cluster-robust sandwich of Liang & Zeger 1986).
- Holm's step-down adjustment of p-values (Holm 1979, Scand. J. Statist. 6:65-70).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from lancebench.metrics.errors import MetricsError
from lancebench.metrics.intervals import wilson_interval, z_value

EXACT_MAX = 16  # tasks with a nonzero difference up to which the permutation test enumerates all 2^m flips


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` pairs where only A succeeded and ``c`` where
    only B did: ``min(1, 2 * sum_{i <= min(b, c)} C(b+c, i) / 2^(b+c))`` (the binomial test of b of
    b + c at 1/2). 1.0 when there is no discordant pair. Raises :class:`MetricsError` on negative
    counts."""
    if b < 0 or c < 0:
        raise MetricsError(f"McNemar counts must be >= 0, got b={b}, c={c}")
    m = b + c
    if m == 0:
        return 1.0
    tail = sum(math.comb(m, i) for i in range(min(b, c) + 1))
    return min(1.0, 2.0 * tail / 2.0 ** m)


def newcombe_paired_interval(a: int, b: int, c: int, d: int,
                             confidence: float = 0.95) -> tuple[float, float]:
    """Interval for ``p_A - p_B`` from paired binary outcomes (Newcombe 1998, method 10): ``a`` both
    succeed, ``b`` only A, ``c`` only B, ``d`` neither. With Wilson intervals (l1, u1) of
    p1 = (a+b)/n and (l2, u2) of p2 = (a+c)/n and phi = (ad - bc) / sqrt((a+b)(c+d)(a+c)(b+d))
    (0 when that product is 0): ``lo = p1 - p2 - sqrt((p1-l1)^2 - 2 phi (p1-l1)(u2-p2) + (u2-p2)^2)``,
    ``hi = p1 - p2 + sqrt((u1-p1)^2 - 2 phi (u1-p1)(p2-l2) + (p2-l2)^2)``. Returns NaNs for n = 0."""
    n = a + b + c + d
    if n == 0:
        return math.nan, math.nan
    p1, p2 = (a + b) / n, (a + c) / n
    (l1, l2), (u1, u2) = (tuple(map(float, x)) for x in wilson_interval([a + b, a + c], [n, n], confidence))
    prod = (a + b) * (c + d) * (a + c) * (b + d)
    phi = (a * d - b * c) / math.sqrt(prod) if prod > 0 else 0.0
    lo_sq = (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    hi_sq = (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    diff = p1 - p2
    return max(-1.0, diff - math.sqrt(max(lo_sq, 0.0))), min(1.0, diff + math.sqrt(max(hi_sq, 0.0)))


def sign_flip_test(diffs, n_perm: int = 10000, seed: int = 0) -> tuple[float, str]:
    """Two-sided paired permutation test of ``mean(diffs) == 0``: under the null hypothesis the
    labels A and B are exchangeable within a task, so each per-task difference is equally likely
    with either sign. Statistic ``|sum d_t|``; p = the share of sign patterns whose statistic is
    at least the observed one. Exact (all 2^m patterns of the m nonzero differences) when
    m <= :data:`EXACT_MAX`, else ``(1 + hits) / (1 + n_perm)`` over ``n_perm`` random patterns
    drawn with numpy's PCG64 ``default_rng(seed)``. ``diffs``: (T,) floats, NaN left out.
    Returns ``(p_value, method)`` with method ``"exact"`` or ``"monte carlo"``."""
    d = np.asarray(diffs, dtype=np.float64)
    d = d[~np.isnan(d) & (d != 0.0)]
    if d.size == 0:
        return 1.0, "exact"
    observed = abs(d.sum()) * (1 - 1e-12)  # tolerate rounding in sums equal to the observed one
    if d.size <= EXACT_MAX:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=d.size)))
        return float(np.mean(np.abs(signs @ d) >= observed)), "exact"
    if n_perm < 1:
        raise MetricsError(f"the number of permutations must be >= 1, got {n_perm}")
    rng = np.random.default_rng(seed)
    hits = 0
    total = d.sum()
    n_bytes = (d.size + 7) // 8
    for start in range(0, n_perm, 1000):
        rows = min(1000, n_perm - start)
        # one random bit per task and pattern (1: the task's sign flips), drawn as bytes and unpacked
        flipped = np.unpackbits(rng.integers(0, 256, size=(rows, n_bytes), dtype=np.uint8), axis=1)[:, :d.size]
        hits += int(np.sum(np.abs(total - 2.0 * np.einsum("ij,j->i", flipped, d)) >= observed))
    return (1 + hits) / (1 + n_perm), "monte carlo"


def clustered_se(values, clusters=None) -> float:
    """Standard error of the mean of ``values`` (T,) (NaN left out), clustered by ``clusters``
    (T,) labels, or with each value its own cluster when None (then the usual ``s / sqrt(T)``, s
    with ddof 1). Miller 2024 eq. 4, ``sqrt(sum_c (sum_{i in c} (x_i - mean))^2) / T`` (the
    unclustered variance plus the within-cluster cross terms), times the small-sample factor
    ``sqrt(G / (G - 1))`` of G clusters (CR1: Cameron & Miller 2015, J. Human Resources 50:317,
    section VI). NaN for fewer than 2 values or fewer than 2 clusters."""
    x = np.asarray(values, dtype=np.float64)
    keep = ~np.isnan(x)
    x = x[keep]
    if x.size < 2:
        return math.nan
    dev = x - x.mean()
    if clusters is None:
        sums = dev
    else:
        labels = np.asarray(clusters, dtype=object)[keep]
        _, inverse = np.unique(labels.astype(str), return_inverse=True)
        sums = np.bincount(inverse, weights=dev)
    g = sums.size
    if g < 2:
        return math.nan
    return float(math.sqrt(np.sum(sums ** 2) * g / (g - 1)) / x.size)


def normal_interval(mean: float, se: float, confidence: float = 0.95,
                    bounds: tuple[float, float] = (-math.inf, math.inf)) -> tuple[float, float]:
    """``mean +- z * se`` clipped to ``bounds``; NaNs when ``se`` is NaN."""
    if math.isnan(se) or math.isnan(mean):
        return math.nan, math.nan
    z = z_value(confidence)
    return max(bounds[0], mean - z * se), min(bounds[1], mean + z * se)


def holm(pvalues) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order: sort ascending, the i-th smallest
    (i from 0) becomes ``max_{j <= i} min(1, (m - j) p_(j))``. Rejecting where the adjusted value is
    below alpha controls the family-wise error rate at alpha (Holm 1979). NaN entries stay NaN
    and do not count in m."""
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    idx = np.flatnonzero(~np.isnan(p))
    m = idx.size
    order = idx[np.argsort(p[idx], kind="stable")]
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return [float(v) for v in out]

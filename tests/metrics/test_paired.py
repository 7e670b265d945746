"""Paired tests, intervals, clustered standard errors, Holm and power, each against an independent
computation (scipy, enumeration, or the formula written out with loops) and, for the intervals,
their coverage in seeded simulations."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from lancebench.metrics.kinds import clustered_rate_interval, kish_n
from lancebench.metrics.paired import (
    clustered_se,
    holm,
    mcnemar_exact,
    newcombe_paired_interval,
    normal_interval,
    sign_flip_test,
)
from lancebench.metrics.power import attempts_needed, minimum_detectable_difference, tasks_needed, variance_components


def test_mcnemar_exact_is_scipy_binomial_test():
    for b, c in itertools.product(range(9), repeat=2):
        expected = 1.0 if b + c == 0 else stats.binomtest(b, b + c, 0.5).pvalue
        assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12, abs=1e-15), (b, c)


def test_sign_flip_on_one_attempt_is_mcnemar():
    for b, c in [(0, 0), (3, 0), (7, 2), (1, 9), (5, 5)]:
        diffs = [1.0] * b + [-1.0] * c + [0.0] * 4
        p, how = sign_flip_test(diffs)
        assert how == "exact"
        assert p == pytest.approx(mcnemar_exact(b, c))


def test_sign_flip_exact_is_enumeration():
    rng = np.random.default_rng(3)
    d = np.round(rng.normal(0.1, 0.4, size=9), 3)
    observed = abs(sum(d))
    hits = sum(1 for signs in itertools.product((1, -1), repeat=9)
               if abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= observed - 1e-12)
    p, how = sign_flip_test(d)
    assert how == "exact" and p == pytest.approx(hits / 2 ** 9)


def test_sign_flip_monte_carlo_is_near_the_binomial_test():
    diffs = [1.0] * 17 + [-1.0] * 6  # 23 discordant tasks: more than the exact limit
    p, how = sign_flip_test(diffs, n_perm=20000, seed=1)
    assert how == "monte carlo"
    assert abs(p - stats.binomtest(17, 23, 0.5).pvalue) < 0.01
    assert sign_flip_test(diffs, n_perm=20000, seed=1) == (p, how)  # seeded


def _wilson(x: int, n: int, conf: float = 0.95) -> tuple[float, float]:
    ci = stats.binomtest(x, n).proportion_ci(confidence_level=conf, method="wilson")
    return ci.low, ci.high


def test_newcombe_interval_from_scipy_wilson_intervals():
    for a, b, c, d in [(10, 5, 2, 13), (0, 0, 0, 7), (7, 0, 0, 0), (3, 4, 0, 1), (1, 0, 6, 2)]:
        n = a + b + c + d
        p1, p2 = (a + b) / n, (a + c) / n
        l1, u1 = _wilson(a + b, n)
        l2, u2 = _wilson(a + c, n)
        den = (a + b) * (c + d) * (a + c) * (b + d)
        phi = (a * d - b * c) / math.sqrt(den) if den else 0.0
        lo = p1 - p2 - math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
        hi = p1 - p2 + math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
        got = newcombe_paired_interval(a, b, c, d)
        assert got == pytest.approx((max(lo, -1), min(hi, 1)), abs=1e-9)
        assert got[1] - got[0] > 0.05  # never a point, even with no discordant pair


def test_newcombe_coverage_in_simulation():
    rng = np.random.default_rng(11)
    n, sims = 40, 600
    probs = np.array([0.45, 0.15, 0.05, 0.35])  # both, only A, only B, neither: true diff 0.10
    covered = 0
    for _ in range(sims):
        a, b, c, d = rng.multinomial(n, probs)
        lo, hi = newcombe_paired_interval(int(a), int(b), int(c), int(d))
        covered += lo <= 0.10 <= hi
    assert 0.92 <= covered / sims <= 0.995


def test_clustered_se_is_millers_double_sum():
    rng = np.random.default_rng(5)
    x = rng.random(12)
    groups = ["g1"] * 4 + ["g2"] * 3 + ["g3"] * 5
    n, mean = len(x), x.mean()
    se_clt2 = sum((v - mean) ** 2 for v in x) / n ** 2
    cross = sum((x[i] - mean) * (x[j] - mean) for i in range(n) for j in range(n)
                if i != j and groups[i] == groups[j])
    g = 3  # CR1 small-sample factor G / (G - 1)
    assert clustered_se(x, groups) == pytest.approx(math.sqrt((se_clt2 + cross / n ** 2) * g / (g - 1)))
    assert clustered_se(x) == pytest.approx(stats.sem(x))  # each task its own cluster: s / sqrt(n), ddof 1
    assert math.isnan(clustered_se(x, ["one"] * n))


def test_clustered_interval_covers_where_the_unclustered_does_not():
    """Tasks in 20 clusters with a strong cluster effect: the clustered interval keeps its
    coverage; treating tasks as independent undercovers."""
    rng = np.random.default_rng(7)
    sims, clusters, per = 400, 20, 6
    groups = [f"g{g}" for g in range(clusters) for _ in range(per)]
    cov_c = cov_u = 0
    true = 0.5  # the clipped cluster effect is symmetric around 1/2
    for _ in range(sims):
        effect = np.repeat(rng.normal(0, 0.2, clusters), per)
        p = np.clip(0.5 + effect, 0.02, 0.98)
        y = (rng.random(clusters * per) < p).astype(float)
        lo, hi, _se, _g = clustered_rate_interval(y, groups, 0.95)
        cov_c += lo <= true <= hi
        lo, hi = normal_interval(y.mean(), clustered_se(y), 0.95, (0, 1))
        cov_u += lo <= true <= hi
    assert cov_c / sims >= 0.9
    assert cov_u / sims < cov_c / sims - 0.05


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04, 0.2 -> 4*0.01, 3*0.03, max(0.09, 2*0.04), max(0.09, 0.2)
    assert holm([0.01, 0.04, 0.03, 0.2]) == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert holm([0.5, 0.6]) == pytest.approx([1.0, 1.0])
    got = holm([0.02, float("nan"), 0.01])
    assert math.isnan(got[1]) and got[0] == pytest.approx(0.02) and got[2] == pytest.approx(0.02)


def test_minimum_detectable_difference_has_its_power_in_simulation():
    var, T, alpha, power = 0.3, 80, 0.05, 0.8
    mdd = minimum_detectable_difference(var, T, alpha, power)
    assert mdd == pytest.approx((stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * math.sqrt(var / T))
    rng = np.random.default_rng(2)
    d = rng.normal(mdd, math.sqrt(var), size=(4000, T))
    z = d.mean(axis=1) / (math.sqrt(var) / math.sqrt(T))
    assert np.mean(np.abs(z) > stats.norm.ppf(0.975)) == pytest.approx(0.8, abs=0.03)


def test_tasks_and_attempts_needed_invert_the_formula():
    var, delta = 0.25, 0.05
    n = tasks_needed(delta, var)
    assert minimum_detectable_difference(var, n) <= delta < minimum_detectable_difference(var, n - 1)
    omega2, sigma2, T = 0.02, 0.4, 400
    k = attempts_needed(delta, T, omega2, sigma2)
    assert k is not None
    z2 = (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) ** 2
    assert omega2 + sigma2 / k <= T * delta ** 2 / z2 < omega2 + sigma2 / (k - 1)
    assert attempts_needed(delta, 10, omega2, sigma2) is None  # the spread between tasks alone is too large


def test_variance_components_recover_simulated_values():
    rng = np.random.default_rng(4)
    T, K = 4000, 4
    pa = rng.uniform(0.2, 0.8, T)
    pb = np.clip(pa - rng.normal(0.1, 0.15, T), 0.0, 1.0)
    ra, rb = rng.binomial(K, pa) / K, rng.binomial(K, pb) / K
    var_task, omega2, sigma2 = variance_components(ra, rb, np.full(T, K), np.full(T, K))
    assert var_task == pytest.approx(np.var(ra - rb, ddof=1))
    assert omega2 == pytest.approx(np.var(pa - pb), rel=0.15)
    assert sigma2 == pytest.approx(np.mean(pa * (1 - pa) + pb * (1 - pb)), rel=0.05)


def test_kish_effective_size():
    assert kish_n([100, 100, 100]) == pytest.approx(3.0)
    assert kish_n([1000, 1, 1]) == pytest.approx(1002 ** 2 / (1000 ** 2 + 2))
    assert kish_n([0, 0]) == 0.0

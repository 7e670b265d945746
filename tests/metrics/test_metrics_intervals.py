"""Confidence intervals: a hand-checked Wilson value and seeded coverage simulations."""

from __future__ import annotations

import numpy as np
import pytest

from lancebench.metrics import (
    bootstrap_mean_interval,
    bootstrap_weights,
    closed_form_interval,
    pass_at_k_table,
    wilson_interval,
)


def test_wilson_matches_the_worked_value():
    # 8 of 10 at 95%: p=0.8, z^2=3.8415; centre 0.7167, half-width 0.2266 -> [0.4902, 0.9433]
    lo, hi = wilson_interval(8, 10, 0.95)
    assert float(lo) == pytest.approx(0.4902, abs=1e-4)
    assert float(hi) == pytest.approx(0.9433, abs=1e-4)
    lo, hi = wilson_interval(0, 0)
    assert np.isnan(lo) and np.isnan(hi)


def test_wilson_covers_at_about_the_nominal_rate():
    rng = np.random.default_rng(2024)
    p, tasks, reps = 0.3, 60, 4000
    successes = rng.binomial(tasks, p, size=reps)
    lo, hi = wilson_interval(successes, tasks, 0.95)
    coverage = np.mean((lo <= p) & (p <= hi))
    assert 0.93 <= coverage <= 0.97


def test_bootstrap_weights_are_seeded_resamples():
    w = bootstrap_weights(50, 200, seed=3)
    assert w.shape == (200, 50)
    assert np.all(w.sum(axis=1) == 50)
    np.testing.assert_array_equal(w, bootstrap_weights(50, 200, seed=3))
    assert not np.array_equal(w, bootstrap_weights(50, 200, seed=4))


def test_bootstrap_and_closed_form_cover_true_pass_at_k_at_about_nominal_rate():
    """Tasks have success probability p ~ Beta(1, 2); each is tried n=4 times. The population pass@2 is
    1 - E[(1-p)^2] = 1 - (2/3)(3/4) = 0.5, pass@1 is E[p] = 1/3. Both interval kinds should cover the
    truth in about 95% of seeded replications."""
    rng = np.random.default_rng(12345)
    tasks, n_attempts, reps = 120, 4, 300
    truth = np.array([1 / 3, 0.5])
    hits_boot = np.zeros(2)
    hits_closed = np.zeros(2)
    for rep in range(reps):
        p = rng.beta(1.0, 2.0, size=tasks)
        c = rng.binomial(n_attempts, p)
        values = pass_at_k_table(np.full(tasks, n_attempts), c, 2)
        lo, hi = bootstrap_mean_interval(values, bootstrap_weights(tasks, 400, seed=rep), 0.95)
        hits_boot += (lo <= truth) & (truth <= hi)
        lo, hi = closed_form_interval(values, 0.95)
        hits_closed += (lo <= truth) & (truth <= hi)
    assert np.all((0.90 <= hits_boot / reps) & (hits_boot / reps <= 0.98)), hits_boot / reps
    assert np.all((0.90 <= hits_closed / reps) & (hits_closed / reps <= 0.98)), hits_closed / reps


def test_closed_form_uses_wilson_for_binary_columns():
    values = np.array([[1.0], [0.0], [1.0], [np.nan], [1.0]])
    lo, hi = closed_form_interval(values, 0.95)
    w_lo, w_hi = wilson_interval(3, 4, 0.95)
    assert lo[0] == pytest.approx(float(w_lo)) and hi[0] == pytest.approx(float(w_hi))

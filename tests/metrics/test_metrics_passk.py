"""pass@k, pass^k and expected attempts against brute-force enumeration on random small cases."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from lancebench.metrics import MetricsError, pass_at_k, pass_at_k_table, pass_hat_k, pass_hat_k_table
from lancebench.metrics.passk import expected_attempts_table


def brute_force(n: int, c: int, k: int) -> tuple[float, float]:
    """Over every k-subset of n attempts (c of them successes): share with any success, share with all."""
    attempts = [1] * c + [0] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    any_ok = sum(any(attempts[i] for i in s) for s in subsets) / len(subsets)
    all_ok = sum(all(attempts[i] for i in s) for s in subsets) / len(subsets)
    return any_ok, all_ok


def brute_force_attempts(n: int, c: int, k: int) -> float:
    """Mean number of tries used over every ordering of the attempts, stopping at the first success or k."""
    attempts = [1] * c + [0] * (n - c)
    used = []
    for order in itertools.permutations(range(n)):
        tries = 0
        for i in order[:k]:
            tries += 1
            if attempts[i]:
                break
        used.append(tries)
    return sum(used) / len(used)


def test_pass_at_k_and_pass_hat_k_match_enumeration_of_all_k_subsets():
    rng = np.random.default_rng(7)
    n = rng.integers(1, 11, size=60)
    c = np.array([rng.integers(0, m + 1) for m in n])
    kmax = int(n.max())
    at, hat = pass_at_k_table(n, c, kmax), pass_hat_k_table(n, c, kmax)
    checked = 0
    for t in range(len(n)):
        for k in range(1, kmax + 1):
            if k > n[t]:
                assert np.isnan(at[t, k - 1]) and np.isnan(hat[t, k - 1])
                continue
            want_any, want_all = brute_force(int(n[t]), int(c[t]), k)
            assert at[t, k - 1] == pytest.approx(want_any, abs=1e-12)
            assert hat[t, k - 1] == pytest.approx(want_all, abs=1e-12)
            checked += 1
    assert checked > 150


def test_expected_attempts_match_enumeration_of_orderings():
    rng = np.random.default_rng(11)
    n = rng.integers(1, 7, size=25)
    c = np.array([rng.integers(0, m + 1) for m in n])
    table = expected_attempts_table(n, c, 6)
    for t in range(len(n)):
        for k in range(1, int(n[t]) + 1):
            assert table[t, k - 1] == pytest.approx(brute_force_attempts(int(n[t]), int(c[t]), k), abs=1e-12)
        assert np.all(np.isnan(table[t, int(n[t]):]))


def test_scalar_and_array_forms_agree_with_known_values():
    # n=5 attempts, 2 correct: pass@2 = 1 - C(3,2)/C(5,2) = 1 - 3/10
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    # pass^2 = C(2,2)/C(5,2) = 1/10
    assert pass_hat_k(5, 2, 2) == pytest.approx(0.1)
    np.testing.assert_allclose(pass_at_k(np.array([5, 5, 3]), np.array([0, 2, 3]), 2), [0.0, 0.7, 1.0])
    # pass@1 and pass^1 are both c/n
    np.testing.assert_allclose(pass_at_k([4, 3], [1, 3], 1), [0.25, 1.0])
    np.testing.assert_allclose(pass_hat_k([4, 3], [1, 3], 1), [0.25, 1.0])


def test_large_counts_stay_finite_and_exact_at_the_edges():
    n = np.array([200, 200, 200])
    c = np.array([0, 1, 200])
    at = pass_at_k_table(n, c, 200)
    assert at[0, -1] == 0.0 and at[2, 0] == 1.0
    assert at[1, 99] == pytest.approx(100 / 200)  # one success among 200: P(in a 100-subset) = 1/2
    assert np.isfinite(at).all()


@pytest.mark.parametrize("n, c", [([3], [4]), ([-1], [0]), ([2, 3], [1])])
def test_inconsistent_counts_are_errors(n, c):
    with pytest.raises(MetricsError):
        pass_at_k_table(n, c, 1)


def test_k_below_one_is_an_error():
    with pytest.raises(MetricsError, match="kmax"):
        pass_at_k_table([3], [1], 0)

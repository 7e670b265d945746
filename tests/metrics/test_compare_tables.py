"""compare_tables on real TrialResult objects: the tasteful solve rate compared over the tasks
judged on both sides, and rows of equal values that get a Wilson interval instead of a point."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from lancebench.metrics import TrialTable, compute_metrics
from lancebench.metrics.compare import CompareOptions, compare_tables
from lancebench.metrics.kinds import rate_interval
from lancebench.results.models import QualityVerdict


def test_tasteful_solve_rate_difference_over_judged_tasks(trial):
    # A: tasteful solves on t0, t1, t2; an untasteful solve on t3. B: a tasteful solve on t0, fails t1..t3.
    a = [trial(f"t{i}", "resolved", agent="a", quality=QualityVerdict(tasteful=i < 3)) for i in range(4)]
    b = [trial("t0", "resolved", agent="b", quality=QualityVerdict(tasteful=True))]
    b += [trial(f"t{i}", "unresolved", agent="b", quality=QualityVerdict(tasteful=None)) for i in range(1, 4)]
    cmp = compare_tables(TrialTable.from_results(a), TrialTable.from_results(b))
    ts = cmp["tasteful_solve_rate"]
    d = [0.0, 1.0, 1.0, 0.0]  # per task: A's tasteful solve minus B's
    assert ts["tasks"] == 4 and ts["diff"] == pytest.approx(sum(d) / 4)
    nz = [x for x in d if x]
    hits = sum(abs(sum(s * x for s, x in zip(signs, nz, strict=True))) >= abs(sum(nz))
               for signs in itertools.product((1, -1), repeat=len(nz)))
    assert ts["p_value"] == pytest.approx(hits / 2 ** len(nz))
    se = stats.sem(d)
    assert ts["ci"] == pytest.approx([0.5 - stats.norm.ppf(0.975) * se, min(1.0, 0.5 + stats.norm.ppf(0.975) * se)])


def test_no_common_task_compares_nothing(trial):
    cmp = compare_tables(TrialTable.from_results([trial("x", "resolved", agent="a")]),
                         TrialTable.from_results([trial("y", "resolved", agent="b")]))
    assert cmp["tasks"] == 0 and cmp["tasks_only_a"] == 1 and "pass_at_1" not in cmp


def test_identical_outcomes_are_never_a_point_interval(trial):
    """Both solve all 5 tasks: Newcombe's interval over tasks, not [0, 0]; MDD from the worst case."""
    a = [trial(f"t{i}", "resolved", agent="a", attempt=k) for i in range(5) for k in range(2)]
    b = [trial(f"t{i}", "resolved", agent="b", attempt=k) for i in range(5) for k in range(2)]
    cmp = compare_tables(TrialTable.from_results(a), TrialTable.from_results(b), CompareOptions())
    m = cmp["pass_at_1"]
    assert m["diff"] == 0.0 and m["ci"][0] < -0.2 and m["ci"][1] > 0.2
    assert m["ci_kind"].startswith("Newcombe")
    assert cmp["power"]["variance"] == 0.5 and "worst case" in cmp["power"]["variance_source"]


def test_all_solved_row_gets_wilson_for_every_k(trial):
    rs = [trial(f"t{i}", "resolved", attempt=k) for i in range(4) for k in range(3)]
    m = compute_metrics(TrialTable.from_results(rs), n_boot=30)
    ci = stats.binomtest(4, 4).proportion_ci(method="wilson")
    for k in ("1", "2", "3"):
        assert m["pass_at_k_ci"][k] == pytest.approx([ci.low, ci.high])
        assert m["ci_kinds"][f"pass_at_k_ci.{k}"].startswith("Wilson")
    assert m["pass_at_1_se"] == 0.0


def test_rate_interval_is_the_rows_bootstrap_interval():
    """The breakdown cell's interval equals compute_metrics' pass@1 interval (same seed and resamples)."""
    rng = np.random.default_rng(8)
    task = np.repeat(np.arange(25), 2)
    table = TrialTable.from_arrays(task, np.ones(50, bool), rng.random(50) < 0.4, np.ones(50), np.full(25, 10.0))
    m = compute_metrics(table, n_boot=300, seed=5)
    n, c = table.counts()
    mean, lo, hi, kind = rate_interval(c / n, 0.95, 300, 5)
    assert mean == pytest.approx(m["pass_at_1"]) and [lo, hi] == pytest.approx(m["pass_at_1_ci"])
    assert kind == m["ci_kinds"]["pass_at_1_ci"]


def test_with_a_cluster_key_signs_flip_per_cluster(trial):
    """Two attempts per task, tasks in 3 repositories: the test flips the sign of each repository's
    summed difference (enumerated here), and the SE is clustered by repository."""
    outcomes_a = {"t0": "RR", "t1": "RU", "t2": "RR", "t3": "UU", "t4": "RR"}
    outcomes_b = {"t0": "UU", "t1": "UU", "t2": "RU", "t3": "UU", "t4": "UU"}
    repo = {"t0": "x", "t1": "x", "t2": "y", "t3": "y", "t4": "z"}
    tables = [TrialTable.from_results([trial(t, "resolved" if o == "R" else "unresolved", agent=agent, attempt=k,
                                             taxonomy={"repository": repo[t]})
                                       for t, seq in outcomes.items() for k, o in enumerate(seq)])
              for agent, outcomes in (("a", outcomes_a), ("b", outcomes_b))]
    m = compare_tables(*tables, CompareOptions(cluster="repository"))["pass_at_1"]
    d = {t: outcomes_a[t].count("R") / 2 - outcomes_b[t].count("R") / 2 for t in outcomes_a}
    sums = [sum(v for t, v in d.items() if repo[t] == r) for r in "xyz"]  # 1.5, 0.5, 1.0
    hits = sum(abs(sum(s * x for s, x in zip(signs, sums, strict=True))) >= abs(sum(sums)) - 1e-12
               for signs in itertools.product((1, -1), repeat=3))
    assert m["p_value"] == pytest.approx(hits / 8)
    assert m["test"] == "paired sign-flip permutation test (exact, signs flipped per repository)"
    mean = sum(d.values()) / 5
    dev = [sum(v - mean for t, v in d.items() if repo[t] == r) for r in "xyz"]
    se = (sum(x * x for x in dev) * 3 / 2) ** 0.5 / 5
    assert m["se"] == pytest.approx(se) and m["ci_kind"] == "normal, SE clustered by repository (3 clusters)"


def test_dollars_earned_by_neither_side_get_no_rate_interval(trial):
    # before: both earned $0 on every task, the 0/1 check took the dollars for rates and the earned
    # difference got Newcombe's pass@1 interval, [-0.79, +0.79] USD for one $250 task
    a = [trial("t0", "unresolved", agent="a", price=250.0, attempt=k) for k in range(2)]
    b = [trial("t0", "unresolved", agent="b", price=250.0, attempt=k) for k in range(2)]
    cmp = compare_tables(TrialTable.from_results(a), TrialTable.from_results(b))
    money = cmp["earned_usd"]
    assert money["a"] == 0.0 and money["b"] == 0.0 and money["diff"] == 0.0
    assert money["ci"] is None and money["ci_kind"].startswith("none")
    assert cmp["pass_at_1"]["ci_kind"].startswith("Newcombe")  # the rate keeps its interval


@pytest.mark.parametrize("a_wins", [True, False])
def test_the_earned_difference_interval_stays_within_the_dollars_available(trial, a_wins):
    # before: A earned the $1000 task, B nothing, the $100 task earned by neither: the normal interval
    # 1000 +- 1.96 * 2 * 500 was [-960, +2960] USD for $1100 available on the two tasks
    win = "resolved"
    a = [trial("big", win if a_wins else "unresolved", agent="a", price=1000.0, attempt=k) for k in range(2)]
    a += [trial("small", "unresolved", agent="a", price=100.0, attempt=k) for k in range(2)]
    b = [trial("big", "unresolved" if a_wins else win, agent="b", price=1000.0, attempt=k) for k in range(2)]
    b += [trial("small", "unresolved", agent="b", price=100.0, attempt=k) for k in range(2)]
    money = compare_tables(TrialTable.from_results(a), TrialTable.from_results(b))["earned_usd"]
    d = [1000.0 if a_wins else -1000.0, 0.0]  # per task, USD
    half = stats.norm.ppf(0.975) * stats.sem(d) * 2  # the normal interval's half-width on the total
    assert money["diff"] == pytest.approx(sum(d)) and money["se"] == pytest.approx(stats.sem(d) * 2)
    if a_wins:
        assert money["ci"] == pytest.approx([sum(d) - half, 1100.0])  # cut at +P = $1000 + $100
    else:
        assert money["ci"] == pytest.approx([-1100.0, sum(d) + half])  # cut at -P
    assert abs(sum(d)) + half > 1100  # unclipped, it would reach past what the tasks pay


def test_the_earned_difference_interval_is_never_past_the_dollars_available(trial):
    rng = np.random.default_rng(7)
    for _ in range(40):
        prices = rng.choice([50.0, 250.0, 1000.0, 8000.0], size=int(rng.integers(2, 7)))
        a = [trial(f"t{i}", "resolved" if rng.random() < 0.4 else "unresolved", agent="a", price=float(p), attempt=0)
             for i, p in enumerate(prices)]
        b = [trial(f"t{i}", "resolved" if rng.random() < 0.4 else "unresolved", agent="b", price=float(p), attempt=0)
             for i, p in enumerate(prices)]
        ci = compare_tables(TrialTable.from_results(a), TrialTable.from_results(b))["earned_usd"]["ci"]
        if ci is not None:
            assert -prices.sum() - 1e-6 <= ci[0] <= ci[1] <= prices.sum() + 1e-6, (prices, ci)


def test_the_earned_usd_interval_of_one_configuration_stays_within_what_is_available(trial):
    # before: the percentile bootstrap of the total resampled the $1000 task twice: [0, 2000] USD
    # earned of $1100 available
    rs = [trial("big", "resolved", price=1000.0, attempt=0), trial("small", "unresolved", price=100.0, attempt=0)]
    m = compute_metrics(TrialTable.from_results(rs))
    assert m["available_usd"] == 1100.0 and m["earned_usd"] == 1000.0
    assert m["earned_usd_ci"] == [0.0, 1100.0]

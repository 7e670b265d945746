"""Hand-worked examples of every money and savings formula (SWE-Lancer, arXiv 2502.12115, section 3.6)."""

from __future__ import annotations

import numpy as np
import pytest

from lancebench.metrics import (
    MetricsError,
    TrialTable,
    available_usd,
    compute_metrics,
    cost_savings,
    earn_rate,
    earned_usd,
    price_bucket,
    summarize,
)


def test_single_attempt_swelancer_example(trial):
    # Three tasks of $100, $200, $700; only the $200 one is solved; every attempt costs $1.
    rs = [trial("a", "unresolved", price=100), trial("b", "resolved", price=200), trial("c", "unresolved", price=700)]
    m = summarize(rs)
    assert m["earned_usd"] == 200 and m["available_usd"] == 1000 and m["earn_rate"] == pytest.approx(0.2)
    assert m["pass_at_1"] == pytest.approx(1 / 3)
    m = compute_metrics(TrialTable.from_results(rs), intervals=False)
    # savings = 1 - (model $3 + freelancer $800 for a and c) / $1000 = 0.197
    assert m["cost_savings"]["1"] == pytest.approx(0.197)
    # contribution = payout solved $200 / ($3 + $800)
    assert m["contribution_ratio"]["1"] == pytest.approx(200 / 803)
    assert m["earnings_per_api_usd"] == pytest.approx(200 / 3)
    assert m["api_cost_share"] == pytest.approx(3 / 1000)
    assert m["cost_usd"] == pytest.approx(3.0)


def test_attempts_and_invalid_trials_by_hand(trial):
    """T1 ($1000): R U U + 1 invalid -> n=3, c=1.  T2 ($500): R R R R -> n=4, c=4.
    T3 ($250): 4 invalid -> no valid trial. Every trial (invalid ones too) costs $2."""
    rs = ([trial("t1", s, price=1000, cost=2.0) for s in ("resolved", "unresolved", "unresolved", "invalid")]
          + [trial("t2", "resolved", price=500, cost=2.0) for _ in range(4)]
          + [trial("t3", "invalid", price=250, cost=2.0) for _ in range(4)])
    m = compute_metrics(TrialTable.from_results(rs), intervals=False)
    assert (m["tasks"], m["trials"], m["resolved"], m["unresolved"], m["invalid"]) == (3, 12, 5, 2, 5)
    assert m["tasks_without_valid_trial"] == 1
    # pass@1 over the 2 tasks with valid trials: (1/3 + 1) / 2
    assert m["pass_at_1"] == pytest.approx(2 / 3)
    # pass@2: T1 1 - C(2,2)/C(3,2) = 2/3, T2 1 -> 5/6; pass@3: 1; pass@4: T2 only
    assert m["pass_at_k"]["2"] == pytest.approx(5 / 6)
    assert m["pass_at_k"]["3"] == pytest.approx(1.0)
    assert m["pass_at_k_tasks"] == {"1": 2, "2": 2, "3": 2, "4": 1}
    # pass^2: T1 C(1,2)/C(3,2) = 0, T2 1
    assert m["pass_hat_k"]["2"] == pytest.approx(0.5)
    # earned: $1000 x 1/3 + $500 x 1 (T2's four successes pay once, not four times); T3 is not scored
    assert m["earned_usd"] == pytest.approx(1000 / 3 + 500)
    assert m["available_usd"] == pytest.approx(1500) and m["unscored_usd"] == pytest.approx(250)
    assert m["earn_rate"] == pytest.approx((1000 / 3 + 500) / 1500)
    # spend: all 12 trials x $2
    assert m["cost_usd"] == pytest.approx(24.0)
    # AI-first, 1 try: model $2 + $2; freelancer $1000 x 2/3 for T1's expected failure; over $1500 of counted tasks
    assert m["model_cost_usd"] == pytest.approx(4.0)
    assert m["cost_savings"]["1"] == pytest.approx(1 - (4 + 2000 / 3) / 1500)
    # 2 tries: E[tries] T1 = 1 + C(2,1)/C(3,1) = 5/3, T2 = 1; freelancer paid for T1 with prob C(2,2)/C(3,2) = 1/3
    assert m["cost_savings"]["2"] == pytest.approx(1 - (2 * 5 / 3 + 2 + 1000 / 3) / 1500)
    assert m["contribution_ratio"]["1"] == pytest.approx((1000 / 3 + 500) / (4 + 2000 / 3))
    assert m["contribution_ratio"]["2"] == pytest.approx((1000 * 2 / 3 + 500) / (2 * 5 / 3 + 2 + 1000 / 3))
    assert m["earnings_per_api_usd"] == pytest.approx((1000 / 3 + 500) / 4)
    assert m["api_cost_share"] == pytest.approx(4 / 1500)
    assert any("no valid trial" in n for n in m["notes"])


def test_free_local_model(trial):
    # One $200 task, two attempts (R, U) with a free local model.
    rs = [trial("a", "resolved", price=200, cost=0.0), trial("a", "unresolved", price=200, cost=0.0)]
    m = compute_metrics(TrialTable.from_results(rs), intervals=False)
    assert m["cost_usd"] == 0.0 and m["cost_unknown_trials"] == 0
    assert m["cost_savings"]["1"] == pytest.approx(1 - (0 + 100) / 200)       # = pass@1 when the model is free
    assert m["cost_savings"]["2"] == pytest.approx(1.0)                         # solved within 2 tries for sure
    assert m["contribution_ratio"]["1"] == pytest.approx(100 / 100)
    assert m["earnings_per_api_usd"] is None                                    # $100 per $0: unbounded
    assert m["api_cost_share"] == 0.0
    assert any("free local model" in n for n in m["notes"])


def test_unknown_price_is_reported_not_zeroed(trial):
    rs = [trial("a", "resolved", price=300, cost=None), trial("b", "unresolved", price=100, cost=0.5)]
    m = compute_metrics(TrialTable.from_results(rs), intervals=True, n_boot=50)
    assert m["cost_usd"] is None and m["cost_unknown_trials"] == 1
    assert m["cost_savings"]["1"] is None and m["contribution_ratio"]["1"] is None
    assert m["cost_savings_ci"]["1"] is None
    assert m["earnings_per_api_usd"] is None and m["api_cost_share"] is None and m["model_cost_usd"] is None
    assert m["earned_usd"] == 300 and m["earn_rate"] == pytest.approx(0.75)     # success does not need prices
    assert any("no price" in n for n in m["notes"])


def test_unknown_price_on_an_invalid_trial_only_hides_the_total_spend(trial):
    rs = [trial("a", "resolved", price=300, cost=1.0), trial("a", "invalid", price=300, cost=None)]
    m = compute_metrics(TrialTable.from_results(rs), intervals=False)
    assert m["cost_usd"] is None                                   # what was spent is unknown
    assert m["cost_savings"]["1"] == pytest.approx(1 - 1 / 300)    # the workflow uses valid attempts only


def test_model_costlier_than_the_work_gives_negative_savings(trial):
    m = compute_metrics(TrialTable.from_results([trial("a", "unresolved", price=1.0, cost=5.0)]), intervals=False)
    assert m["cost_savings"]["1"] == pytest.approx(1 - (5 + 1) / 1)


def test_pure_money_functions():
    price = np.array([100.0, 200.0, 50.0])
    rate = np.array([0.5, 1.0, np.nan])
    assert earned_usd(price, rate) == pytest.approx(250.0)
    assert available_usd(price) == pytest.approx(350.0)
    assert earn_rate(250.0, 350.0) == pytest.approx(250 / 350)
    assert earn_rate(0.0, 0.0) is None
    np.testing.assert_allclose(cost_savings(price[:2], [2, 1], [1, 1], [1.0, 3.0], 1), [1 - (4 + 50) / 300])
    assert list(price_bucket([0, 249.99, 250, 1000, 3999, 4000, 32000])) == [
        "$0-250", "$0-250", "$250-500", "$1000-2000", "$2000-4000", "$4000+", "$4000+"]


def test_same_name_with_another_digest_is_another_task(trial):
    rs = [trial("a", "resolved", price=100, digest="v1"), trial("a", "unresolved", price=100, digest="v2")]
    m = summarize(rs)
    assert m["tasks"] == 2 and m["available_usd"] == 200 and m["earned_usd"] == 100


def test_two_prices_for_one_task_is_an_error(trial):
    rs = [trial("a", "resolved", price=100), trial("a", "unresolved", price=120)]
    with pytest.raises(MetricsError, match="different prices"):
        summarize(rs)


def test_summarize_has_the_keys_show_needs(trial):
    m = summarize([trial("a", "resolved"), trial("b", "invalid")])
    for key in ("trials", "resolved", "unresolved", "invalid", "pass_at_1", "earned_usd", "available_usd",
                "earn_rate", "cost_usd", "input_tokens", "output_tokens", "cached_tokens",
                "tasks_without_valid_trial"):
        assert key in m
    assert (m["input_tokens"], m["output_tokens"], m["cached_tokens"]) == (20, 4, 2)
    assert "pass_at_1_ci" not in m                     # no bootstrap for show

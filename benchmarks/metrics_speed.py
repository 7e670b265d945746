"""Speed of the metrics: 100,000 trials over 2,000 tasks (50 attempts each), summaries and intervals.

Run by hand: ``.venv/bin/python benchmarks/metrics_speed.py [--trials N --tasks T --bootstrap B]``.
Prints wall seconds (best of 3) of the vectorised path (target: under 2 s for summaries plus intervals) and its
ratio to a straightforward per-trial Python loop computing the same numbers. The loop's bootstrap
is timed on ``--loop-bootstrap`` resamples and scaled linearly to ``--bootstrap`` (printed as an
estimate), so the benchmark stays light on a shared machine. Both paths' numbers are checked equal.
"""

from __future__ import annotations

import argparse
import math
import random
import time

import numpy as np

from lancebench.metrics import TrialTable, compute_metrics
from lancebench.metrics.compare import compare_tables
from lancebench.results.models import TrialResult, Usage


def make_data(n_trials: int, n_tasks: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    task = np.repeat(np.arange(n_tasks), n_trials // n_tasks)
    task = np.concatenate([task, rng.integers(0, n_tasks, n_trials - task.size)])
    skill = rng.beta(1.0, 2.0, n_tasks)
    valid = rng.random(n_trials) > 0.03
    success = rng.random(n_trials) < skill[task]
    cost = rng.gamma(2.0, 0.4, n_trials)
    price = rng.choice([250.0, 500.0, 1000.0, 2000.0, 8000.0], n_tasks)
    return task, valid, success, cost, price


def loop_metrics(task, valid, success, cost, price, n_boot: int, seed: int):
    """The same numbers the straightforward way: one Python loop over trials, then over tasks and k,
    then a bootstrap loop over resamples of tasks."""
    n: dict[int, int] = {}
    c: dict[int, int] = {}
    spent: dict[int, float] = {}
    total_cost = 0.0
    for t, v, s, x in zip(task.tolist(), valid.tolist(), success.tolist(), cost.tolist(), strict=True):
        total_cost += x
        if v:
            n[t] = n.get(t, 0) + 1
            c[t] = c.get(t, 0) + int(s)
            spent[t] = spent.get(t, 0.0) + x
    kmax = max(n.values())
    tasks = sorted(n)
    per_task, per_task_hat = {}, {}
    pass_at, pass_hat, savings = [], [], []
    for k in range(1, kmax + 1):
        model = fallback = freelancer = 0.0
        for t in tasks:
            if k > n[t]:
                per_task.setdefault(t, []).append(None)
                per_task_hat.setdefault(t, []).append(None)
                continue
            p_at = 1 - math.comb(n[t] - c[t], k) / math.comb(n[t], k)
            per_task.setdefault(t, []).append(p_at)
            per_task_hat.setdefault(t, []).append(math.comb(c[t], k) / math.comb(n[t], k))
            tries = sum(math.comb(n[t] - c[t], j) / math.comb(n[t], j) for j in range(k))
            model += spent[t] / n[t] * tries
            fallback += price[t] * (1 - p_at)
            freelancer += price[t]
        savings.append(1 - (model + fallback) / freelancer)
        vals = [per_task[t][k - 1] for t in tasks if per_task[t][k - 1] is not None]
        pass_at.append(sum(vals) / len(vals))
        vals = [per_task_hat[t][k - 1] for t in tasks if per_task_hat[t][k - 1] is not None]
        pass_hat.append(sum(vals) / len(vals))
    earned = sum(price[t] * c[t] / n[t] for t in tasks)
    available = float(sum(price))
    rnd = random.Random(seed)
    boot = []
    for _ in range(n_boot):
        sample = [tasks[rnd.randrange(len(tasks))] for _ in tasks]
        means = []
        for table in (per_task, per_task_hat):
            for k in range(kmax):
                vals = [table[t][k] for t in sample if table[t][k] is not None]
                means.append(sum(vals) / len(vals))
        boot.append(means)
    return {"pass_at_k": pass_at, "pass_hat_k": pass_hat, "earned": earned, "available": available,
            "cost": total_cost, "savings": savings, "boot": boot}


def best_of(runs: int, fn) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=100_000)
    ap.add_argument("--tasks", type=int, default=2_000)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--loop-bootstrap", type=int, default=10)
    args = ap.parse_args()
    task, valid, success, cost, price = make_data(args.trials, args.tasks)

    fast = compute_metrics(TrialTable.from_arrays(task, valid, success, cost, price), n_boot=args.bootstrap)  # warm-up
    t_fast = best_of(3, lambda: compute_metrics(TrialTable.from_arrays(task, valid, success, cost, price),
                                                intervals=True, n_boot=args.bootstrap, seed=0))
    t_fast_summary = best_of(3, lambda: compute_metrics(TrialTable.from_arrays(task, valid, success, cost, price),
                                                        intervals=False))

    results = [TrialResult(trial_id=str(i), job="bench", task=f"t{t}", task_digest=f"d{t}", agent="a", attempt=i,
                           status="invalid" if not v else ("resolved" if s else "unresolved"),
                           price_usd=float(price[t]), usage=Usage(cost_usd=float(x)))
               for i, (t, v, s, x) in enumerate(zip(task.tolist(), valid.tolist(), success.tolist(), cost.tolist(),
                                                    strict=True))]
    t_from_results = best_of(3, lambda: compute_metrics(TrialTable.from_results(results), intervals=True,
                                                        n_boot=args.bootstrap, seed=0))

    slow_summary = loop_metrics(task, valid, success, cost, price, 0, 0)
    t_loop_summary = best_of(2, lambda: loop_metrics(task, valid, success, cost, price, 0, 0))
    t0 = time.perf_counter()
    loop_metrics(task, valid, success, cost, price, args.loop_bootstrap, 0)
    t_loop_boot = max(time.perf_counter() - t0 - t_loop_summary, 0.0)
    t_loop = t_loop_summary + t_loop_boot * args.bootstrap / args.loop_bootstrap

    # the two paths compute the same numbers
    kmax = len(slow_summary["pass_at_k"])
    for key in ("pass_at_k", "pass_hat_k"):
        np.testing.assert_allclose([fast[key][str(k)] for k in range(1, kmax + 1)], slow_summary[key], rtol=1e-9)
    np.testing.assert_allclose([fast["cost_savings"][str(k)] for k in range(1, kmax + 1)], slow_summary["savings"],
                               rtol=1e-9)
    for key, slow_key in (("earned_usd", "earned"), ("available_usd", "available"), ("cost_usd", "cost")):
        assert math.isclose(fast[key], slow_summary[slow_key], rel_tol=1e-9), key

    print(f"{args.trials:,} trials, {args.tasks:,} tasks, k = 1..{kmax}, {args.bootstrap} bootstrap resamples")
    print(f"vectorised, summaries only:             {t_fast_summary:8.3f} s")
    print(f"vectorised, summaries + intervals:      {t_fast:8.3f} s   (target < 2 s: "
          f"{'met' if t_fast < 2 else 'NOT met'})")
    print(f"  same, starting from TrialResult objects: {t_from_results:6.3f} s")
    ratio = t_loop_summary / t_fast_summary
    print(f"per-trial Python loop, summaries only:  {t_loop_summary:8.3f} s   ratio {ratio:7.1f}x")
    print(f"per-trial Python loop, + intervals:     {t_loop:8.3f} s   ratio {t_loop / t_fast:7.1f}x "
          f"(bootstrap timed on {args.loop_bootstrap} resamples, scaled to {args.bootstrap})")
    other = TrialTable.from_arrays(task, valid, ~success, cost, price)
    t_compare = best_of(3, lambda: compare_tables(TrialTable.from_arrays(task, valid, success, cost, price), other))
    print(f"paired comparison of two such tables:   {t_compare:8.3f} s   (McNemar or 10000 sign-flip patterns)")


if __name__ == "__main__":
    main()

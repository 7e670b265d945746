"""The paired comparison of two configurations on the tasks both have (docs/metrics.md, "Comparing
two configurations"): the difference A - B in pass@1, earned USD and tasteful solve rate, each
with a paired interval that names its kind and a paired test's p-value, and the power of the
comparison. Built from two :class:`TrialTable`; tasks are matched on ``(dataset, task, digest)``
and a task counts when both configurations have a valid trial on it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from lancebench.metrics.paired import (
    clustered_se,
    mcnemar_exact,
    newcombe_paired_interval,
    normal_interval,
    sign_flip_test,
)
from lancebench.metrics.power import attempts_needed, minimum_detectable_difference, tasks_needed, variance_components
from lancebench.metrics.quality import per_task_mean, tasteful_solve
from lancebench.metrics.table import TrialTable


@dataclass(frozen=True)
class CompareOptions:
    """``confidence`` of the intervals (alpha = 1 - confidence for the power analysis), ``power``
    wanted, ``wanted_diff`` (the pass@1 difference, a fraction, the tasks/attempts are computed
    for), ``cluster`` (a taxonomy key whose tasks are correlated, or None: clustered by task),
    ``n_perm`` and ``seed`` of the Monte Carlo permutation test."""

    confidence: float = 0.95
    power: float = 0.8
    wanted_diff: float = 0.05
    cluster: str | None = None
    n_perm: int = 10000
    seed: int = 0


def _num(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) or math.isinf(x) else float(x)


def _pair(lo: float, hi: float) -> list[float] | None:
    return None if math.isnan(lo) or math.isnan(hi) else [float(lo), float(hi)]


def _per_task(table: TrialTable) -> dict[tuple, dict[str, float]]:
    """Task key -> ``n`` valid attempts, ``c`` resolved, ``price`` USD, ``ts`` tasteful solve rate."""
    n, c = table.counts()
    ts = tasteful_solve(table.valid, table.success, table.tasteful)
    ts_task, _ = per_task_mean(table.task_index, ts, table.n_tasks)
    judged = bool((~np.isnan(table.tasteful) & table.valid).any())
    return {key: {"n": float(n[i]), "c": float(c[i]), "price": float(table.price[i]),
                  "ts": float(ts_task[i]) if judged else math.nan}
            for i, key in enumerate(table.task_keys) if n[i] > 0}


def cluster_labels(table: TrialTable, keys: list[tuple], cluster: str | None) -> list[str] | None:
    """The cluster of each task of ``keys`` (``taxonomy[cluster]``, or the task itself when it has
    no such key); None when ``cluster`` is None (each task its own cluster)."""
    if cluster is None:
        return None
    info = dict(zip(table.task_keys, table.task_info, strict=True))
    out = []
    for key in keys:
        value = (info.get(key, {}).get("taxonomy") or {}).get(cluster)
        out.append(f"{cluster}={value}" if value is not None else f"task={key}")
    return out


def _se_kind(cluster: str | None, groups: list[str] | None) -> str:
    if cluster is None or groups is None:
        return "SE clustered by task"
    return f"SE clustered by {cluster} ({len(set(groups))} clusters)"


def _mean_diff(a: np.ndarray, b: np.ndarray, groups: list[str] | None, cluster: str | None,
               opts: CompareOptions, bounds: tuple[float, float], rates: bool = True) -> dict[str, Any]:
    """Difference of means over tasks with a normal interval on the clustered SE and the paired
    permutation test; a Newcombe interval over tasks when ``rates`` (the values are per-task rates,
    not dollars) and every per-task value is 0 or 1 and the SE is 0 (all tasks agree), so that the
    interval is never a point; no interval (None, the kind says why) otherwise when the SE is 0 or
    unknown."""
    d = a - b
    diff = float(d.mean()) if d.size else math.nan
    se = clustered_se(d, groups)
    binary = rates and bool(np.all(np.isin(a, (0.0, 1.0))) and np.all(np.isin(b, (0.0, 1.0))))
    if d.size and binary and not se > 0:
        counts = _binary_counts(a, b)
        lo, hi = newcombe_paired_interval(*counts, confidence=opts.confidence)
        kind = "Newcombe paired score interval over tasks (no task differs)"
    elif se > 0:
        lo, hi = normal_interval(diff, se, opts.confidence, bounds)
        kind = f"normal, {_se_kind(cluster, groups)}"
    else:  # a normal interval would be a point
        lo, hi = math.nan, math.nan
        kind = "none: fewer than 2 tasks, or the same difference on every task (no spread to estimate)"
    if groups is not None:  # exchangeable within a cluster: flip the signs of whole clusters' sums
        _, inverse = np.unique(np.asarray(groups, dtype=str), return_inverse=True)
        p, how = sign_flip_test(np.bincount(inverse, weights=d), opts.n_perm, opts.seed)
        how += f", signs flipped per {cluster}"
    else:
        p, how = sign_flip_test(d, opts.n_perm, opts.seed)
    return {"a": _num(float(a.mean())) if a.size else None, "b": _num(float(b.mean())) if b.size else None,
            "diff": _num(diff), "se": _num(se), "ci": _pair(lo, hi), "ci_kind": kind,
            "test": f"paired sign-flip permutation test ({how})", "p_value": p}


def _binary_counts(a: np.ndarray, b: np.ndarray) -> tuple[int, int, int, int]:
    """(both 1, only a, only b, neither) of two 0/1 arrays."""
    return (int(np.sum((a == 1) & (b == 1))), int(np.sum((a == 1) & (b == 0))),
            int(np.sum((a == 0) & (b == 1))), int(np.sum((a == 0) & (b == 0))))


def _pass_diff(ra: np.ndarray, rb: np.ndarray, one_attempt: bool, groups: list[str] | None,
               cluster: str | None, opts: CompareOptions) -> dict[str, Any]:
    """pass@1 difference: exact McNemar and Newcombe's interval with one attempt per task on both
    sides (plus, with ``groups``, ``ci_clustered``: the normal interval on the SE clustered by
    group), else :func:`_mean_diff`."""
    if not one_attempt:
        return _mean_diff(ra, rb, groups, cluster, opts, (-1.0, 1.0))
    both, only_a, only_b, neither = _binary_counts(ra, rb)
    lo, hi = newcombe_paired_interval(both, only_a, only_b, neither, opts.confidence)
    n = ra.size
    diff = (only_a - only_b) / n
    out = {"a": (both + only_a) / n, "b": (both + only_b) / n, "diff": diff,
           "se": _num(clustered_se(ra - rb)), "ci": _pair(lo, hi),
           "ci_kind": "Newcombe paired score interval (Wilson-based, method 10)", "test": "exact McNemar",
           "p_value": mcnemar_exact(only_a, only_b), "discordant": [only_a, only_b]}
    if groups is not None:
        se = clustered_se(ra - rb, groups)
        out.update(se_clustered=_num(se), ci_clustered=_pair(*normal_interval(diff, se, opts.confidence, (-1, 1))),
                   ci_clustered_kind=f"normal, {_se_kind(cluster, groups)}")
    return out


def _power(ra: np.ndarray, rb: np.ndarray, na: np.ndarray, nb: np.ndarray, opts: CompareOptions) -> dict[str, Any]:
    """Minimum detectable pass@1 difference and the tasks / attempts ``opts.wanted_diff`` needs."""
    alpha = round(1.0 - opts.confidence, 12)
    var_task, omega2, sigma2 = variance_components(ra, rb, na, nb)
    source = "observed variance of the per-task differences"
    if not var_task > 0:
        pa, pb = float(ra.mean()), float(rb.mean())
        var_task = pa * (1 - pa) + pb * (1 - pb)
        source = "no difference observed: independent attempts at the observed rates"
        if not var_task > 0:
            var_task, source = 0.5, "no difference observed, rates 0 or 1: worst case (p = 1/2, independent)"
    T = int(ra.size)
    return {"alpha": alpha, "power": opts.power, "variance": var_task, "variance_source": source,
            "minimum_detectable_diff": _num(minimum_detectable_difference(var_task, T, alpha, opts.power)),
            "wanted_diff": opts.wanted_diff,
            "tasks_needed": tasks_needed(opts.wanted_diff, var_task, alpha, opts.power),
            "attempts_needed": attempts_needed(opts.wanted_diff, T, omega2, sigma2, alpha, opts.power)}


def earned_difference(price: np.ndarray, ra: np.ndarray, rb: np.ndarray, groups: list[str] | None,
                      opts: CompareOptions) -> dict[str, Any]:
    """The difference A - B in dollars earned on the common tasks (USD), ``sum_t price_t (r_A,t -
    r_B,t)`` with ``r`` each task's resolved share of valid attempts (SWE-Lancer's earned dollars,
    Miserendino et al. 2025, arXiv 2502.12115): :func:`_mean_diff` of the per-task dollars (the
    paired sign-flip test, the normal interval ``mean(d) +- z SE`` on the clustered SE of Miller 2024,
    arXiv 2411.00640, eq. 4), times the number of tasks T.

    The interval is clipped to what is possible: each task's difference lies in ``[-price_t,
    price_t]``, so the total lies in ``[-P, P]`` with ``P = sum_t price_t`` (A earns everything B
    does not, or the reverse); a normal interval reaching past it is cut at the bound, as an
    interval for a bounded parameter is intersected with the parameter's range (Mandelkern 2002,
    "Setting confidence intervals for bounded parameters", Statist. Sci. 17:149-172). Before, two
    tasks of $1000 and $100 gave [-960, +2960] USD for at most $1100 available. A run of $0 (or
    $1) per task is no 0/1 rate, so never Newcombe's interval (two configurations earning $0
    everywhere once got the rate interval, [-0.79, +0.79] USD)."""
    T = len(price)
    cap = float(price.mean())  # per task: the total's bound P divided by T
    money = _mean_diff(price * ra, price * rb, groups, opts.cluster, opts, (-cap, cap), rates=False)
    for name in ("a", "b", "diff", "se"):
        money[name] = None if money[name] is None else money[name] * T
    money["ci"] = None if money["ci"] is None else [money["ci"][0] * T, money["ci"][1] * T]
    return money


def compare_tables(table_a: TrialTable, table_b: TrialTable, opts: CompareOptions = CompareOptions()) -> dict[str, Any]:
    """Paired comparison of A and B on their common tasks (a task counts when both have a valid
    trial). Returns ``tasks`` (common), ``tasks_only_a``, ``tasks_only_b``, ``attempts`` (``"one"``
    or ``"several"``), ``pass_at_1`` (fractions), ``earned_usd`` (USD; when any common task has a
    price) and ``tasteful_solve_rate`` (when both were judged), each a dict of ``a``, ``b``, ``diff``
    (A - B), ``se``, ``ci`` ``[lo, hi]``, ``ci_kind``, ``test``, ``p_value``; and ``power``
    (:func:`_power`). Empty metrics when no task is common."""
    ta, tb = _per_task(table_a), _per_task(table_b)
    keys = [k for k in ta if k in tb]
    out: dict[str, Any] = {"tasks": len(keys), "tasks_only_a": len(ta) - len(keys),
                           "tasks_only_b": len(tb) - len(keys), "cluster": opts.cluster}
    if not keys:
        return out
    na, ca = (np.array([ta[k][f] for k in keys]) for f in ("n", "c"))
    nb, cb = (np.array([tb[k][f] for k in keys]) for f in ("n", "c"))
    ra, rb = ca / na, cb / nb
    one = bool(np.all(na == 1) and np.all(nb == 1))
    groups = cluster_labels(table_a, keys, opts.cluster)
    out["attempts"] = "one" if one else "several"
    out["pass_at_1"] = _pass_diff(ra, rb, one, groups, opts.cluster, opts)
    price = np.array([ta[k]["price"] for k in keys])
    if price.sum() > 0:
        out["earned_usd"] = earned_difference(price, ra, rb, groups, opts)
    tsa, tsb = np.array([ta[k]["ts"] for k in keys]), np.array([tb[k]["ts"] for k in keys])
    judged = ~np.isnan(tsa) & ~np.isnan(tsb)
    if judged.any():
        g = [x for x, j in zip(groups, judged, strict=True) if j] if groups else None
        out["tasteful_solve_rate"] = _mean_diff(tsa[judged], tsb[judged], g, opts.cluster, opts, (-1.0, 1.0))
        out["tasteful_solve_rate"]["tasks"] = int(judged.sum())
    out["power"] = _power(ra, rb, na, nb, opts)
    return out

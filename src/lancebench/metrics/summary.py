"""All metrics of one set of trials (one report row, or one job for ``lancebench show --json``).

Conventions (docs/metrics.md):
- Invalid trials are left out of every rate's numerator and denominator and counted in ``invalid``.
- Rates (pass@k, pass^k, cost savings, quality) average over tasks with at least one valid trial
  (for k tries: at least k valid attempts; ``pass_at_k_tasks`` says how many tasks each k used).
- A task with no valid trial is counted in ``tasks_without_valid_trial`` and its price in
  ``unscored_usd``; it is left out of the rates and of ``available_usd`` (so an infrastructure
  failure never counts as money the agent failed to earn).
- ``cost_usd`` sums the recorded cost of every trial, invalid ones included (what was spent); it is
  ``None`` when any trial has no price, and ``cost_unknown_trials`` counts those trials.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lancebench.metrics.economics import ai_first_table, api_cost_share, earnings_per_api_usd, per_task_ai_first
from lancebench.metrics.intervals import (
    bootstrap_mean_interval,
    bootstrap_ratio_interval,
    bootstrap_sum_interval,
    bootstrap_weights,
    closed_form_interval,
)
from lancebench.metrics.kinds import BOOTSTRAP, clustered_rate_interval, unpoint_columns, unpoint_ratio
from lancebench.metrics.money import available_usd, earn_rate, earned_usd
from lancebench.metrics.paired import clustered_se
from lancebench.metrics.passk import pass_at_k_table, pass_hat_k_table
from lancebench.metrics.quality import per_task_mean, score_medians, tasteful_solve
from lancebench.metrics.rewards import reward_means
from lancebench.metrics.table import TrialTable
from lancebench.results.models import TrialResult

CI_METHOD = ("percentile bootstrap over tasks (Efron 1979), seeded; closed form: Wilson score interval when "
             "every per-task value is 0 or 1, else the normal approximation over tasks")


def _num(x) -> float | None:
    """A JSON-safe number: NaN and infinities become None."""
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


def _pair(lo, hi) -> list[float | None] | None:
    lo, hi = _num(lo), _num(hi)
    return None if lo is None or hi is None else [lo, hi]


def _by_k(values) -> dict[str, float | None]:
    return {str(k + 1): _num(v) for k, v in enumerate(values)}


def _by_k_ci(lo, hi) -> dict[str, list | None]:
    return {str(k + 1): _pair(a, b) for k, (a, b) in enumerate(zip(lo, hi, strict=True))}


INVALID_WARN = 0.10  # an invalid rate at or over this fraction is warned about


def invalid_warning(rate: float, n_invalid: int, n_trials: int, *, others: float | None = None) -> str:
    """The note for an invalid rate that stands out (``rate`` over :data:`INVALID_WARN`, or
    ``others``, the rate of the other rows, well below it)."""
    than = f", against {others:.0%} for the other rows" if others is not None else ""
    return (f"warning: invalid rate {rate:.0%} ({n_invalid} of {n_trials} trials){than}: invalid trials leave every "
            "rate, so a high rate can hide failures; read their reasons (invalid is only for faults of the harness "
            "or the infrastructure)")


def compute_metrics(table: TrialTable, *, kmax: int | None = None, intervals: bool = True,
                    confidence: float = 0.95, n_boot: int = 1000, seed: int = 0,
                    cluster: str | None = None) -> dict[str, Any]:
    """Every metric of ``table`` as a JSON-ready dict (see module docstring for the conventions).

    Counts: ``tasks``, ``tasks_without_valid_trial``, ``trials``, ``resolved``, ``unresolved``,
    ``invalid``, ``invalid_rate`` (invalid / trials; a note warns at :data:`INVALID_WARN` or more),
    ``attempts_min``/``attempts_max`` (valid attempts per task with any).
    Success (fractions, keys "1".."kmax"): ``pass_at_1``, ``pass_at_k``, ``pass_hat_k``
    (Chen et al. 2021; Yao et al. 2024), ``pass_at_k_tasks``.
    Money (USD): ``earned_usd``, ``available_usd``, ``earn_rate`` (SWE-Lancer section 3).
    Usage: ``cost_usd`` (USD or None), ``cost_unknown_trials``, ``input_tokens``, ``output_tokens``,
    ``cached_tokens`` (tokens, all trials).
    Economics (SWE-Lancer section 3.6): ``cost_savings`` and ``contribution_ratio`` by k,
    ``model_cost_usd`` (expected, one try per task), ``earnings_per_api_usd``, ``api_cost_share``.
    Quality (:mod:`lancebench.metrics.quality`): ``tasteful_solve_rate`` (the task's own taste keys
    where it wrote them, else lancebench's judges), ``tasteful_solve_rate_by_source`` (``task``,
    ``judges``: each that flagged a trial), ``quality_scores`` (name ->
    mean over tasks of per-task means), ``quality_medians`` (name -> median over valid trials, e.g.
    ``taste.minimality``, ``patch_bloat``), ``quality_missing``.
    With ``intervals``: ``*_ci`` (bootstrap, ``n_boot`` resamples of tasks, ``seed``) and
    ``*_ci_closed`` beside each rate, each ``[lo, hi]`` at ``confidence``, never a point (Wilson over
    tasks where the bootstrap would be one), ``ci_kinds`` (interval name -> its kind),
    ``pass_at_1_se`` (clustered by task) and, with ``cluster`` (a taxonomy key),
    ``pass_at_1_se_cluster`` / ``pass_at_1_ci_cluster`` / ``clusters`` (Miller 2024 eq. 4); ``notes``
    explain every None. ``kmax`` defaults to the most valid attempts of any task."""
    n, c = table.counts()
    st = _State(table=table, n=n, c=c, has_valid=n > 0, kmax=kmax or 0, cluster=cluster)
    _counts(st)
    if kmax is None:
        st.kmax = max(st.out["attempts_max"], 1)
    _success(st)
    _money(st)
    _usage(st)
    _economics(st)
    _quality(st, confidence)
    if intervals:
        _intervals(st, confidence, n_boot, seed)
    st.out["notes"] = st.notes
    return st.out


@dataclass
class _State:
    """What the sections of :func:`compute_metrics` share: the table, per-task counts ``n`` (valid
    attempts) and ``c`` (successes), the per-task arrays the later sections reuse, and the output."""

    table: TrialTable
    n: np.ndarray
    c: np.ndarray
    has_valid: np.ndarray
    kmax: int
    out: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    rate: np.ndarray = field(default_factory=lambda: np.zeros(0))  # per-task success rate (NaN: no valid trial)
    pak: np.ndarray = field(default_factory=lambda: np.zeros(0))  # tasks x k: pass@k per task
    phk: np.ndarray = field(default_factory=lambda: np.zeros(0))  # tasks x k: pass^k per task
    attempt_cost: np.ndarray = field(default_factory=lambda: np.zeros(0))  # USD per valid attempt, per task
    ts_task: np.ndarray = field(default_factory=lambda: np.zeros(0))  # per-task tasteful solve rate
    score_task: dict[str, np.ndarray] = field(default_factory=dict)  # judge score -> per-task mean
    has_quality: bool = False
    cluster: str | None = None  # taxonomy key whose tasks are correlated (clustered SE), or None


def _counts(st: _State) -> None:
    table, n, has_valid, out = st.table, st.n, st.has_valid, st.out
    n_invalid = int((~table.valid).sum())
    n_resolved = int((table.valid & table.success).sum())
    out.update(tasks=table.n_tasks, tasks_without_valid_trial=int((~has_valid).sum()), trials=table.n_trials,
               resolved=n_resolved, unresolved=int(table.valid.sum()) - n_resolved, invalid=n_invalid,
               attempts_min=int(n[has_valid].min()) if has_valid.any() else 0,
               attempts_max=int(n.max()) if table.n_tasks else 0)
    out["invalid_rate"] = n_invalid / table.n_trials if table.n_trials else None
    if out["invalid_rate"] is not None and out["invalid_rate"] >= INVALID_WARN:
        st.notes.append(invalid_warning(out["invalid_rate"], n_invalid, table.n_trials))
    if out["tasks_without_valid_trial"]:
        st.notes.append(f"{out['tasks_without_valid_trial']} task(s) have no valid trial: they are left out of the "
                        f"rates and of available_usd (their prices are in unscored_usd)")


def _success(st: _State) -> None:
    """pass@k and pass^k per k: the mean over tasks with at least k valid attempts."""
    n, c, has_valid, kmax, out = st.n, st.c, st.has_valid, st.kmax, st.out
    with np.errstate(divide="ignore", invalid="ignore"):
        st.rate = np.where(has_valid, c / np.where(has_valid, n, 1), np.nan)
    st.pak = pass_at_k_table(n, c, kmax)
    st.phk = pass_hat_k_table(n, c, kmax)
    counted = (~np.isnan(st.pak)).sum(axis=0)

    def col_mean(m: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(counted > 0, np.nansum(m, axis=0) / counted, np.nan)

    out["pass_at_1"] = _num(col_mean(st.pak)[0])
    out["pass_at_k"] = _by_k(col_mean(st.pak))
    out["pass_hat_k"] = _by_k(col_mean(st.phk))
    out["pass_at_k_tasks"] = {str(k + 1): int(v) for k, v in enumerate(counted)}
    if has_valid.any():
        short = [str(k + 1) for k in range(kmax) if 0 < counted[k] < has_valid.sum()]
        none = [str(k + 1) for k in range(kmax) if counted[k] == 0]
        if short:
            st.notes.append(f"some tasks have fewer valid attempts than k: rates at k in {{{', '.join(short)}}} "
                            f"average only the tasks with at least k (see pass_at_k_tasks)")
        if none:
            st.notes.append(f"no task has k valid attempts for k in {{{', '.join(none)}}}: those rates are null")


def _money(st: _State) -> None:
    table = st.table
    earned = earned_usd(table.price, st.rate)
    # a task with no valid trial is not scored: its price is counted apart, not as money the agent
    # failed to earn (an infrastructure failure must not look like a model failure)
    avail = available_usd(table.price[st.has_valid])
    st.out.update(earned_usd=earned, available_usd=avail, earn_rate=_num(earn_rate(earned, avail)),
                  unscored_usd=available_usd(table.price[~st.has_valid]))


def _usage(st: _State) -> None:
    table, out = st.table, st.out
    unknown_cost = np.isnan(table.cost)
    out["cost_unknown_trials"] = int(unknown_cost.sum())
    out["cost_usd"] = None if unknown_cost.any() else float(table.cost.sum())
    out.update(input_tokens=int(table.input_tokens.sum()), output_tokens=int(table.output_tokens.sum()),
               cached_tokens=int(table.cached_tokens.sum()))
    if unknown_cost.any():
        st.notes.append(f"{out['cost_unknown_trials']} trial(s) have no price (usage.cost_usd is null): cost_usd is "
                        f"unknown (null), not computed from zero")


def _economics(st: _State) -> None:
    """SWE-Lancer section 3.6, from the mean model cost per valid attempt of each task (NaN when
    any valid trial is unpriced)."""
    table, n, has_valid, out = st.table, st.n, st.has_valid, st.out
    T = table.n_tasks
    v = table.valid
    cost_sum = np.bincount(table.task_index[v], weights=np.nan_to_num(table.cost[v]), minlength=T)
    unpriced = np.bincount(table.task_index[v & np.isnan(table.cost)], minlength=T) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        st.attempt_cost = np.where(unpriced | ~has_valid, np.nan, cost_sum / np.where(has_valid, n, 1))
    eco = ai_first_table(table.price, n, st.c, st.attempt_cost, st.kmax)
    out["cost_savings"] = _by_k(eco.cost_savings)
    out["contribution_ratio"] = _by_k(eco.contribution_ratio)
    model_cost_1 = float(eco.model_cost[0])
    out["model_cost_usd"] = _num(model_cost_1)
    out["earnings_per_api_usd"] = earnings_per_api_usd(float(eco.solved_payout[0]), model_cost_1)
    out["api_cost_share"] = api_cost_share(model_cost_1, float(eco.freelancer_all[0]))
    if np.isnan(model_cost_1) and has_valid.any():
        st.notes.append("model cost is unknown for some valid trial: cost savings, contribution ratio, earnings "
                        "per API dollar and API cost share are null")
    elif model_cost_1 == 0.0 and has_valid.any():
        st.notes.append("model cost is 0 (a free local model, or no model): earnings per API dollar is unbounded, "
                        "reported as null")
    if float(eco.freelancer_all[0]) <= 0 and has_valid.any():
        st.notes.append("no task has a price: cost savings and API cost share are null")


def _quality(st: _State, confidence: float) -> None:
    table, out = st.table, st.out
    T = table.n_tasks
    ts = tasteful_solve(table.valid, table.success, table.tasteful)
    st.has_quality = has_quality = bool((~np.isnan(table.tasteful) & table.valid).any())
    st.ts_task, _ = per_task_mean(table.task_index, ts, T)
    out["tasteful_solve_rate"] = _num(np.nanmean(st.ts_task)) if has_quality else None
    out["quality_missing"] = int((table.valid & table.success & np.isnan(table.tasteful)).sum()) if has_quality else 0
    # each source apart (the task's own taste keys, lancebench's judges), when it flagged any trial
    by_source: dict[str, float | None] = {}
    for source, flags in sorted(table.tasteful_by.items()):
        if (~np.isnan(flags) & table.valid).any():
            by_source[source] = _num(np.nanmean(per_task_mean(
                table.task_index, tasteful_solve(table.valid, table.success, flags), T)[0]))
    out["tasteful_solve_rate_by_source"] = by_source
    st.score_task = {name: per_task_mean(table.task_index, np.where(table.valid, col, np.nan), T)[0]
                     for name, col in sorted(table.scores.items())}
    out["quality_scores"] = {name: _num(np.nanmean(m)) if (~np.isnan(m)).any() else None
                             for name, m in st.score_task.items()}
    out["quality_medians"] = score_medians(table.valid, table.scores)
    # closed form even without intervals (cheap): `show` prints the tasteful solve rate with it
    out["tasteful_solve_rate_ci_closed"] = _pair(*(x[0] for x in closed_form_interval(st.ts_task, confidence))) \
        if has_quality else None
    if has_quality and out["quality_missing"]:
        st.notes.append(f"{out['quality_missing']} resolved trial(s) have no tasteful flag (judge skipped or "
                        f"failed): left out of tasteful_solve_rate")


def _intervals(st: _State, confidence: float, n_boot: int, seed: int) -> None:
    """``*_ci`` (percentile bootstrap over tasks, Efron 1979; Wilson when it would be a point,
    :mod:`lancebench.metrics.kinds`) and ``*_ci_closed`` beside the rates; ``ci_kinds`` names each.
    ``earned_usd_ci`` (USD) is clipped to ``[0, available_usd]``: a resample of T tasks that repeats
    the dearest one sums to more than the tasks pay (an interval for a bounded total intersected
    with its range, Mandelkern 2002, Statist. Sci. 17:149)."""
    table, out = st.table, st.out
    W = bootstrap_weights(table.n_tasks, n_boot, seed)
    kinds: dict[str, str | None] = {}
    for name, m in (("pass_at_k", st.pak), ("pass_hat_k", st.phk)):
        lo, hi, col_kinds = unpoint_columns(*bootstrap_mean_interval(m, W, confidence), m, confidence)
        out[f"{name}_ci"] = _by_k_ci(lo, hi)
        kinds.update({f"{name}_ci.{k + 1}": kind for k, kind in enumerate(col_kinds)})
        lo, hi = closed_form_interval(m, confidence)
        out[f"{name}_ci_closed"] = _by_k_ci(lo, hi)
        kinds.update({f"{name}_ci_closed.{k + 1}": _closed_kind(m[:, k]) for k in range(m.shape[1])})
    out["pass_at_1_ci"] = out["pass_at_k_ci"]["1"]
    out["pass_at_1_ci_closed"] = out["pass_at_k_ci_closed"]["1"]
    kinds["pass_at_1_ci"], kinds["pass_at_1_ci_closed"] = kinds["pass_at_k_ci.1"], kinds["pass_at_k_ci_closed.1"]
    earned_t = table.price * np.nan_to_num(st.rate)
    priced = np.where(st.has_valid, table.price, 0.0)
    b_lo, b_hi = bootstrap_ratio_interval(earned_t, table.price, W, confidence)
    r_lo, r_hi, kinds["earn_rate_ci"] = unpoint_ratio(float(b_lo), float(b_hi), out["earn_rate"], priced, confidence)
    out["earn_rate_ci"] = _pair(r_lo, r_hi)
    if kinds["earn_rate_ci"] not in (None, BOOTSTRAP):  # 0 or all of it earned: the rate's interval times available
        out["earned_usd_ci"] = _pair(r_lo * out["available_usd"], r_hi * out["available_usd"])
    else:  # a resample may repeat the dearest task: clipped to what can be earned, [0, available_usd]
        s_lo, s_hi = bootstrap_sum_interval(earned_t, W, confidence)
        out["earned_usd_ci"] = _pair(max(s_lo, 0.0), min(s_hi, out["available_usd"]))
    kinds["earned_usd_ci"] = kinds["earn_rate_ci"]
    _clustered(st, confidence, kinds)
    out["ci_kinds"] = kinds
    _other_intervals(st, confidence, W, kinds)


def _closed_kind(col: np.ndarray) -> str | None:
    counted = col[~np.isnan(col)]
    if counted.size == 0:
        return None
    return "Wilson score" if np.all(np.isin(counted, (0.0, 1.0))) else "normal over tasks (SE clustered by task)"


def _clustered(st: _State, confidence: float, kinds: dict[str, str | None]) -> None:
    """``pass_at_1_se`` (SE of the mean over tasks, each task a cluster of its attempts: Miller 2024
    eq. 4) and, with a cluster key, ``pass_at_1_se_cluster`` and ``pass_at_1_ci_cluster``."""
    out = st.out
    out["pass_at_1_se"] = _num(clustered_se(st.rate))
    if st.cluster is None:
        return
    groups = [f"{st.cluster}={(info.get('taxonomy') or {}).get(st.cluster)}"
              if (info.get("taxonomy") or {}).get(st.cluster) is not None else f"task={key}"
              for key, info in zip(st.table.task_keys, st.table.task_info, strict=True)]
    lo, hi, se, n_groups = clustered_rate_interval(st.rate, groups, confidence)
    out.update(cluster=st.cluster, pass_at_1_se_cluster=_num(se), pass_at_1_ci_cluster=_pair(lo, hi),
               clusters=n_groups)
    kinds["pass_at_1_ci_cluster"] = (f"normal, SE clustered by {st.cluster} ({n_groups} clusters)" if se > 0
                                     else f"Wilson score over the {n_groups} clusters of {st.cluster} (SE 0)")


def _other_intervals(st: _State, confidence: float, W: np.ndarray, kinds: dict[str, str | None]) -> None:
    """Bootstrap intervals of cost savings, tasteful solve rate and judge scores."""
    table, out = st.table, st.out
    terms = per_task_ai_first(table.price, st.n, st.c, st.attempt_cost, st.kmax)
    # uncounted tasks add 0; a counted task with an unknown cost keeps NaN, so that k's interval is unknown
    spend = np.where(terms["counted"] > 0, terms["model_cost"] + terms["fallback"], 0.0)
    lo, hi = bootstrap_ratio_interval(spend, np.nan_to_num(terms["price"]), W, confidence)
    out["cost_savings_ci"] = _by_k_ci(1.0 - hi, 1.0 - lo)
    kinds["cost_savings_ci"] = BOOTSTRAP
    if st.has_quality:
        lo, hi, ts_kind = unpoint_columns(*bootstrap_mean_interval(st.ts_task, W, confidence), st.ts_task, confidence)
        out["tasteful_solve_rate_ci"] = _pair(lo[0], hi[0])
        kinds["tasteful_solve_rate_ci"] = ts_kind[0]
    else:
        out["tasteful_solve_rate_ci"] = None
    out["quality_scores_ci"] = {}
    for name, m in st.score_task.items():
        lo, hi = bootstrap_mean_interval(m, W, confidence)
        out["quality_scores_ci"][name] = _pair(lo[0], hi[0])
        kinds[f"quality_scores_ci.{name}"] = BOOTSTRAP


def summarize(results: Iterable[TrialResult]) -> dict[str, Any]:
    """Summary of one job's trials for ``lancebench show --json``: :func:`compute_metrics` without
    intervals. Keys include ``trials``, ``resolved``, ``unresolved``, ``invalid``, ``tasks``,
    ``tasks_without_valid_trial``, ``pass_at_1`` (fraction), ``earned_usd``, ``available_usd`` (USD),
    ``earn_rate``, ``cost_usd`` (USD, None when any trial's price is unknown), ``input_tokens``,
    ``output_tokens``, ``cached_tokens`` (tokens), ``reward_means`` (each reward key's mean, as
    Harbor reports it: :func:`lancebench.metrics.rewards.reward_means`) and ``notes``. Tasks are ``(dataset, task,
    task_digest)``; earned = sum over tasks of price x mean success over valid attempts
    (SWE-Lancer, arXiv 2502.12115)."""
    results = list(results)
    return compute_metrics(TrialTable.from_results(results), intervals=False) | {"reward_means": reward_means(results)}

"""Economics of an AI-first, freelancer-fallback workflow (SWE-Lancer, arXiv 2502.12115, section 3.6).

The workflow: the model tries a task up to k times, stopping at its first success; if all k tries
fail, a freelancer is paid the task's price. Per task t with n_t valid recorded attempts, c_t of
them resolved, price P_t (USD) and mean model cost per attempt m_t (USD):

- chance the model solves it within k tries: ``pass@k_t = 1 - C(n-c, k)/C(n, k)`` (Chen et al. 2021);
- expected tries made: ``E[A_k]_t = sum_{j<k} C(n-c, j)/C(n, j)`` (tries drawn without replacement
  from the recorded ones, the sampling model of the pass@k estimator);
- expected model cost ``m_t * E[A_k]_t``; expected freelancer cost ``P_t * (1 - pass@k_t)``.

Only tasks with at least k valid attempts enter the k-try numbers (a task with fewer recorded
attempts cannot be replayed k times); a task whose model cost is unknown (some valid trial has no
price) makes the money numbers unknown (NaN here, ``None`` in reports), never zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lancebench.metrics.passk import expected_attempts_table, pass_at_k_table


@dataclass(frozen=True)
class AIFirstTable:
    """Per-k sums of the AI-first workflow, arrays of shape (kmax,); column k-1 is k tries. USD.

    - ``tasks``: tasks counted (valid attempts >= k);
    - ``freelancer_all``: sum of their prices (what a freelancer-only workflow costs);
    - ``model_cost``: expected model spend, ``sum m_t * E[A_k]_t`` (NaN if some m_t is unknown);
    - ``freelancer_fallback``: expected freelancer spend on the model's failures, ``sum P_t (1 - pass@k_t)``;
    - ``solved_payout``: expected payout of the tasks the model solves, ``sum P_t pass@k_t``."""

    tasks: np.ndarray
    freelancer_all: np.ndarray
    model_cost: np.ndarray
    freelancer_fallback: np.ndarray
    solved_payout: np.ndarray

    @property
    def cost_savings(self) -> np.ndarray:
        """``1 - (model cost + freelancer cost of the failures) / freelancer cost of all tasks``
        (SWE-Lancer section 3.6). Shape (kmax,), a fraction; NaN if unknown or nothing priced."""
        with np.errstate(divide="ignore", invalid="ignore"):
            out = 1.0 - (self.model_cost + self.freelancer_fallback) / self.freelancer_all
        return np.where(self.freelancer_all > 0, out, np.nan)

    @property
    def contribution_ratio(self) -> np.ndarray:
        """Model contribution ratio: ``payout of model-solved tasks / (model cost on all tasks +
        freelancer cost on the failures)`` (SWE-Lancer section 3.6). Shape (kmax,); NaN if unknown
        or the denominator is 0."""
        denom = self.model_cost + self.freelancer_fallback
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(denom > 0, self.solved_payout / denom, np.nan)


def per_task_ai_first(price, n, c, attempt_cost, kmax: int) -> dict[str, np.ndarray]:
    """Per-task terms of the workflow, each (T, kmax), NaN where ``n_t < k``: ``counted`` (0/1),
    ``price``, ``model_cost`` (``m_t E[A_k]_t``), ``fallback`` (``P_t (1 - pass@k_t)``) and
    ``solved`` (``P_t pass@k_t``). ``price``, ``attempt_cost``: (T,) USD; ``n``, ``c``: (T,) counts."""
    p = np.asarray(price, dtype=np.float64)[:, None]
    m = np.asarray(attempt_cost, dtype=np.float64)[:, None]
    pk = pass_at_k_table(n, c, kmax)
    counted = ~np.isnan(pk)
    ea = expected_attempts_table(n, c, kmax)
    nan = np.nan
    return {
        "counted": counted.astype(np.float64),
        "price": np.where(counted, p, nan),
        "model_cost": np.where(counted, m * ea, nan),
        "fallback": np.where(counted, p * (1.0 - pk), nan),
        "solved": np.where(counted, p * pk, nan),
    }


def ai_first_table(price, n, c, attempt_cost, kmax: int) -> AIFirstTable:
    """Sums of :func:`per_task_ai_first` over the counted tasks for k = 1..kmax.
    ``price``: (T,) USD; ``n``, ``c``: (T,) valid and resolved attempts; ``attempt_cost``: (T,) mean
    USD per valid attempt, NaN when unknown. An unknown cost of a counted task makes ``model_cost``
    NaN for that k (reported as unknown, never summed as 0)."""
    t = per_task_ai_first(price, n, c, attempt_cost, kmax)
    counted = t["counted"] > 0

    def total(x: np.ndarray) -> np.ndarray:
        return np.where(counted, x, 0.0).sum(axis=0)

    model = np.where(counted, t["model_cost"], 0.0)
    unknown = (counted & np.isnan(t["model_cost"])).any(axis=0)
    return AIFirstTable(
        tasks=counted.sum(axis=0),
        freelancer_all=total(t["price"]),
        model_cost=np.where(unknown, np.nan, np.nan_to_num(model).sum(axis=0)),
        freelancer_fallback=total(t["fallback"]),
        solved_payout=total(t["solved"]),
    )


def cost_savings(price, n, c, attempt_cost, kmax: int) -> np.ndarray:
    """Cost savings of trying the model up to k times before paying a freelancer, k = 1..kmax
    (SWE-Lancer, arXiv 2502.12115, section 3.6): ``1 - (model cost + freelancer cost of failed tasks)
    / freelancer cost of all tasks``, expected over the recorded attempts. Shape (kmax,), a fraction
    (negative when the model costs more than it saves); NaN when a cost is unknown."""
    return ai_first_table(price, n, c, attempt_cost, kmax).cost_savings


def contribution_ratio(price, n, c, attempt_cost, kmax: int) -> np.ndarray:
    """Model contribution ratio for k = 1..kmax (SWE-Lancer section 3.6): payout of the tasks the
    model solves / (model cost on all tasks + freelancer cost on the failures). Shape (kmax,)."""
    return ai_first_table(price, n, c, attempt_cost, kmax).contribution_ratio


def earnings_per_api_usd(earned: float, model_cost: float) -> float | None:
    """Dollars earned per dollar of model API spend (one attempt per task), ``earned / model_cost``.
    None when the cost is unknown (NaN) or zero (a free local model: the ratio is unbounded)."""
    if model_cost is None or np.isnan(model_cost) or model_cost <= 0:
        return None
    return float(earned / model_cost)


def api_cost_share(model_cost: float, freelancer_cost: float) -> float | None:
    """API cost as a share of freelancer cost: ``model_cost / freelancer_cost`` for one attempt per
    task, both USD (SWE-Lancer section 3.6). None when the cost is unknown or nothing is priced."""
    if model_cost is None or np.isnan(model_cost) or freelancer_cost <= 0:
        return None
    return float(model_cost / freelancer_cost)

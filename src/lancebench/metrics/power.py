"""Power of a paired comparison (Miller 2024, "Adding Error Bars to Evals", arXiv 2411.00640,
section 5): the smallest difference the tasks and attempts at hand can detect, and the tasks or
attempts a wanted difference needs. Normal approximation of the two-sided paired z-test.

With T tasks, K_A and K_B attempts per task, ``omega2`` the variance over tasks of the true
per-task difference and ``sigma2_A``, ``sigma2_B`` the mean within-task variances of one attempt
(p(1-p) for a pass/fail attempt), the per-task mean difference has variance
``v = omega2 + sigma2_A / K_A + sigma2_B / K_B`` and the minimum detectable difference is
``(z_{1-alpha/2} + z_{power}) * sqrt(v / T)``."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from lancebench.metrics.errors import MetricsError
from lancebench.metrics.intervals import z_value


def _z_sum(alpha: float, power: float) -> float:
    if not 0.0 < power < 1.0:
        raise MetricsError(f"power must be between 0 and 1 (exclusive), got {power}")
    return z_value(1.0 - alpha) + NormalDist().inv_cdf(power)


def minimum_detectable_difference(var_task: float, n_tasks: int, alpha: float = 0.05,
                                  power: float = 0.8) -> float:
    """Smallest true difference (in the metric's units) a two-sided paired z-test at level
    ``alpha`` detects with probability ``power``: ``(z_{1-alpha/2} + z_power) * sqrt(var_task / T)``.
    ``var_task``: variance of the per-task mean difference. NaN when ``n_tasks`` < 1 or the
    variance is unknown."""
    if n_tasks < 1 or math.isnan(var_task):
        return math.nan
    return _z_sum(alpha, power) * math.sqrt(max(var_task, 0.0) / n_tasks)


def tasks_needed(delta: float, var_task: float, alpha: float = 0.05, power: float = 0.8) -> int | None:
    """Tasks needed to detect a true difference ``delta`` (> 0): ``ceil((z_{1-alpha/2} + z_power)^2
    * var_task / delta^2)``, at least 2. None when the variance is unknown."""
    if delta <= 0:
        raise MetricsError(f"the wanted difference must be > 0, got {delta}")
    if math.isnan(var_task):
        return None
    return max(2, math.ceil(_z_sum(alpha, power) ** 2 * max(var_task, 0.0) / delta ** 2))


def attempts_needed(delta: float, n_tasks: int, omega2: float, sigma2_sum: float, alpha: float = 0.05,
                    power: float = 0.8) -> int | None:
    """Attempts per task (both configurations alike) needed to detect ``delta`` on ``n_tasks``
    tasks: the least K with ``omega2 + sigma2_sum / K <= T delta^2 / (z_{1-alpha/2} + z_power)^2``
    (``sigma2_sum = sigma2_A + sigma2_B``). None when no number of attempts is enough (the
    spread between tasks alone is too large: more tasks are needed) or a variance is unknown."""
    if delta <= 0:
        raise MetricsError(f"the wanted difference must be > 0, got {delta}")
    if n_tasks < 1 or math.isnan(omega2) or math.isnan(sigma2_sum):
        return None
    budget = n_tasks * delta ** 2 / _z_sum(alpha, power) ** 2 - max(omega2, 0.0)
    if budget <= 0:
        return None
    return max(1, math.ceil(max(sigma2_sum, 0.0) / budget))


def variance_components(rate_a, rate_b, n_a, n_b) -> tuple[float, float, float]:
    """Estimates for the power formulas from per-task success rates ``rate_a``, ``rate_b`` (T,)
    over ``n_a``, ``n_b`` (T,) valid attempts of pass/fail trials. Returns ``(var_task, omega2,
    sigma2_sum)``: the sample variance (ddof 1) of the per-task differences; the within-task
    variance of one attempt ``sigma2 = mean_t p_t(1-p_t) n_t/(n_t-1)`` (unbiased, tasks with 2 or
    more attempts) summed over A and B; and ``omega2 = var_task - mean_t(sA_t/n_a + sB_t/n_b)``
    clipped at 0 (method of moments). sigma2 and omega2 are NaN when no task has 2 attempts on
    both sides (one attempt cannot tell the spread between tasks from the noise of an attempt)."""
    a, b = np.asarray(rate_a, dtype=np.float64), np.asarray(rate_b, dtype=np.float64)
    na, nb = np.asarray(n_a, dtype=np.float64), np.asarray(n_b, dtype=np.float64)
    d = a - b
    var_task = float(np.var(d, ddof=1)) if d.size >= 2 else math.nan
    multi = (na >= 2) & (nb >= 2)
    if not multi.any() or math.isnan(var_task):
        return var_task, math.nan, math.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        wa = a * (1 - a) * na / (na - 1)
        wb = b * (1 - b) * nb / (nb - 1)
    sigma2_sum = float(wa[multi].mean() + wb[multi].mean())
    noise = float(np.mean(wa[multi] / na[multi] + wb[multi] / nb[multi]))
    return var_task, max(var_task - noise, 0.0), sigma2_sum

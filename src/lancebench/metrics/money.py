"""Dollars earned (SWE-Lancer, arXiv 2502.12115): pure functions on per-task arrays, USD."""

from __future__ import annotations

import numpy as np

# Edges (USD) of the price buckets used by ``--by price``; bucket i holds prices in [edge[i-1], edge[i]).
PRICE_EDGES: tuple[float, ...] = (250.0, 500.0, 1000.0, 2000.0, 4000.0)


def earned_usd(price, rate) -> float:
    """Dollars earned: ``sum_t price_t * rate_t`` in USD (SWE-Lancer, arXiv 2502.12115, section 3:
    a task's payout is earned when its tests pass; with several attempts the payout is weighted by
    the task's success rate over its valid attempts, never summed over attempts).

    ``price``: (T,) USD; ``rate``: (T,) mean success in [0, 1], NaN for a task with no valid
    trial, which earns nothing (the caller leaves it out of :func:`available_usd`)."""
    p = np.asarray(price, dtype=np.float64)
    r = np.asarray(rate, dtype=np.float64)
    return float(np.sum(p * np.where(np.isnan(r), 0.0, r)))


def available_usd(price) -> float:
    """Dollars available: the sum of the prices of all tasks (USD), ``price``: (T,)."""
    return float(np.sum(np.asarray(price, dtype=np.float64)))


def earn_rate(earned: float, available: float) -> float | None:
    """Earn rate: earned USD / available USD (SWE-Lancer section 3); None when nothing is available."""
    return None if available <= 0 else earned / available


def price_bucket(price) -> np.ndarray:
    """Label of each price's bucket (edges :data:`PRICE_EDGES`, USD, lower edge included), e.g.
    ``"$250-500"`` or ``"$4000+"``. ``price``: (T,) -> (T,) array of str."""
    p = np.asarray(price, dtype=np.float64)
    edges = (0.0, *PRICE_EDGES)
    labels = [f"${edges[i]:g}-{edges[i + 1]:g}" for i in range(len(edges) - 1)] + [f"${edges[-1]:g}+"]
    return np.asarray(labels, dtype=object)[np.digitize(p, PRICE_EDGES)]

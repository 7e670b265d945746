"""Reward keys as Harbor reports them: the mean of each key over trials.

Harbor 0.25's ``mean`` metric (``harbor.metrics.base.aggregate_reward_dicts``): with one reward key
the mean is reported as ``mean``; with several, each key's mean is reported under its name, a
trial without a key counting 0 for it. lancebench differs in one way: ``invalid`` trials are left
out (Harbor counts a trial without rewards as 0), as everywhere in lancebench's metrics.
"""

from __future__ import annotations

from collections.abc import Iterable

from lancebench.results.models import TrialResult


def reward_means(results: Iterable[TrialResult]) -> dict[str, float]:
    """Mean of each reward key over the valid trials (see the module docstring); ``{}`` when
    there is none. The bookkeeping keys ``runs`` and ``runs_passed`` are left out."""
    rewards = [{k: v for k, v in r.rewards.items() if k not in ("runs", "runs_passed")}
               for r in results if r.status != "invalid"]
    keys = sorted({k for rw in rewards for k in rw})
    if not rewards or not keys:
        return {}
    if len(keys) == 1:
        return {"mean": sum(next(iter(rw.values()), 0.0) for rw in rewards) / len(rewards)}
    return {k: sum(rw.get(k, 0.0) for rw in rewards) / len(rewards) for k in keys}


def reward_cell(rewards: dict[str, float]) -> str:
    """A table cell for one trial's rewards: the ``reward`` value, or every key when there is no
    ``reward`` key (never a made-up 0); ``-`` when there are none."""
    if not rewards:
        return "-"
    if "reward" in rewards:
        return f"{rewards['reward']:g}"
    return " ".join(f"{k}={v:g}" for k, v in sorted(rewards.items()))

"""Columns of a set of trials, as numpy arrays, ready for the vectorised metrics.

One pass over the :class:`TrialResult` objects builds per-trial columns (N,) and per-task columns
(T,). A task is identified by ``(dataset, task, task_digest)``: two versions of a task with the same
name are different tasks."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from lancebench.metrics.errors import MetricsError
from lancebench.metrics.quality import quality_scores, tasteful_flags
from lancebench.results.models import TrialResult

TaskKey = tuple[str | None, str, str]


@dataclass
class TrialTable:
    """Per-trial columns (length N) and per-task columns (length T).

    Per trial: ``task_index`` (int64, into the task columns), ``valid`` (status is not invalid),
    ``success`` (resolved), ``cost`` (USD, NaN when unknown), ``input_tokens`` / ``output_tokens``
    / ``cached_tokens`` (int64), ``tasteful`` (1/0, NaN unknown: the ``auto`` source of
    :func:`lancebench.metrics.quality.tasteful_flags`), ``tasteful_by`` (source -> (N,) flags:
    ``task``, ``judges``), ``scores`` (name -> (N,) float,
    NaN where absent). Per task: ``task_keys`` ``(dataset, task, task_digest)``, ``price`` (USD),
    ``task_info`` (dicts with ``task``, ``kind``, ``split``, ``price_usd``, ``taxonomy``, ``job``)."""

    task_index: np.ndarray
    valid: np.ndarray
    success: np.ndarray
    cost: np.ndarray
    input_tokens: np.ndarray
    output_tokens: np.ndarray
    cached_tokens: np.ndarray
    tasteful: np.ndarray
    price: np.ndarray
    task_keys: list[TaskKey] = field(default_factory=list)
    task_info: list[dict] = field(default_factory=list)
    scores: dict[str, np.ndarray] = field(default_factory=dict)
    tasteful_by: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def n_trials(self) -> int:
        return int(self.task_index.shape[0])

    @property
    def n_tasks(self) -> int:
        return int(self.price.shape[0])

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """``(n, c)``: valid attempts and resolved attempts per task, int64 arrays (T,)."""
        n = np.bincount(self.task_index, weights=self.valid, minlength=self.n_tasks)
        c = np.bincount(self.task_index, weights=self.valid & self.success, minlength=self.n_tasks)
        return n.astype(np.int64), c.astype(np.int64)

    @classmethod
    def from_arrays(cls, task_index, status_valid, success, cost, price, *, tokens=None) -> TrialTable:
        """Build from ready arrays (benchmarks, tests): ``task_index`` (N,) ints in [0, T),
        ``status_valid``/``success`` (N,) bools, ``cost`` (N,) USD with NaN unknown, ``price`` (T,)."""
        ti = np.asarray(task_index, dtype=np.int64)
        n = ti.shape[0]
        zeros = np.zeros(n, dtype=np.int64)
        tin, tout, tcached = tokens if tokens is not None else (zeros, zeros, zeros)
        price = np.asarray(price, dtype=np.float64)
        return cls(task_index=ti, valid=np.asarray(status_valid, dtype=bool),
                   success=np.asarray(success, dtype=bool), cost=np.asarray(cost, dtype=np.float64),
                   input_tokens=np.asarray(tin, dtype=np.int64), output_tokens=np.asarray(tout, dtype=np.int64),
                   cached_tokens=np.asarray(tcached, dtype=np.int64), tasteful=np.full(n, np.nan),
                   price=price, task_keys=[(None, f"t{i}", "") for i in range(price.shape[0])],
                   task_info=[{"task": f"t{i}", "price_usd": float(p)} for i, p in enumerate(price)])

    @classmethod
    def from_results(cls, results: Iterable[TrialResult]) -> TrialTable:
        """One pass over ``results``. Raises :class:`MetricsError` when two trials of one task
        disagree on its price (the task changed without its digest changing)."""
        index: dict[TaskKey, int] = {}
        keys: list[TaskKey] = []
        prices: list[float] = []
        infos: list[dict] = []
        first_trial: list[str] = []
        ti: list[int] = []
        status: list[str] = []
        cost: list[float] = []
        tin: list[int] = []
        tout: list[int] = []
        tcached: list[int] = []
        tasteful: list[float] = []
        by_source: dict[str, list[float]] = {"task": [], "judges": []}
        scores: dict[str, dict[int, float]] = {}
        nan = math.nan
        for pos, r in enumerate(results):
            key = (r.dataset, r.task, r.task_digest)
            i = index.get(key)
            if i is None:
                i = index[key] = len(keys)
                keys.append(key)
                prices.append(r.price_usd)
                first_trial.append(r.trial_id)
                infos.append({"task": r.task, "kind": r.kind, "split": r.split, "price_usd": r.price_usd,
                              "taxonomy": r.taxonomy, "job": r.job})
            elif prices[i] != r.price_usd:
                raise MetricsError(
                    f"task '{r.task}' (dataset {r.dataset}, digest {r.task_digest[:12]}) has trials with "
                    f"different prices: {prices[i]} USD in trial {first_trial[i]} and {r.price_usd} USD in "
                    f"trial {r.trial_id} (job {r.job}); trials of one task must share its price: fix the "
                    f"task's price_usd and re-grade, or leave the stale job out of the report")
            ti.append(i)
            status.append(r.status)
            u = r.usage
            cost.append(nan if u.cost_usd is None else u.cost_usd)
            tin.append(u.input_tokens)
            tout.append(u.output_tokens)
            tcached.append(u.cached_tokens)
            flags = tasteful_flags(r)
            tasteful.append(flags["auto"])
            for source, got in by_source.items():
                got.append(flags[source])
            for name, value in quality_scores(r).items():
                scores.setdefault(name, {})[pos] = value
        n = len(ti)
        st = np.asarray(status, dtype=object)
        score_cols = {}
        for name, found in scores.items():
            col = np.full(n, np.nan)
            col[np.fromiter(found.keys(), dtype=np.int64)] = np.fromiter(found.values(), dtype=np.float64)
            score_cols[name] = col
        return cls(task_index=np.asarray(ti, dtype=np.int64), valid=st != "invalid", success=st == "resolved",
                   cost=np.asarray(cost, dtype=np.float64), input_tokens=np.asarray(tin, dtype=np.int64),
                   output_tokens=np.asarray(tout, dtype=np.int64), cached_tokens=np.asarray(tcached, dtype=np.int64),
                   tasteful=np.asarray(tasteful, dtype=np.float64), price=np.asarray(prices, dtype=np.float64),
                   task_keys=keys, task_info=infos, scores=score_cols,
                   tasteful_by={k: np.asarray(v, dtype=np.float64) for k, v in by_source.items()})

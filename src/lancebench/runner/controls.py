"""Run-level controls of a job: a budget for the whole job (USD, tokens), a stop when the share
of ``invalid`` trials passes a rate, and a bound on model calls in flight per model.

They bound *how much* of a job runs, not *what* a trial measures, so they are recorded in
``job.json`` (``controls``) but are not part of the job's configuration: a rerun may raise a
budget to resume a job that stopped on it (see :func:`lancebench.runner.job.check_same_config`).

Spend counted against the budget: every recorded trial of the job (kept ones too), the spend of
earlier interrupted runs, the trials finished in this run, and the model calls of the trials
running now (their live :class:`~lancebench.llm.meter.UsageMeter`; with ``--executor ray`` only
finished trials are seen). Calls of unknown price count 0 USD. Tokens are input + output tokens.

When a control trips, :meth:`RunWatch.guard` cancels the trials in flight (their spend stays in
their ``usage.json``; they stay unfinished) and raises :class:`lancebench.errors.RunStopped`;
trials not run are listed and run when the same command is given again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from dataclasses import asdict, dataclass
from typing import Any

from lancebench.llm.meter import live_usage
from lancebench.results.models import TrialResult, Usage

POLL_SEC = 0.5  # how often the live spend is compared with the budget


@dataclass(frozen=True)
class RunControls:
    """``max_total_cost_usd``: USD for the whole job; ``max_total_tokens``: input + output tokens
    for the whole job; ``max_invalid_rate``: stop when more than this fraction (0..1) of the trials
    finished in this run are ``invalid``, once ``invalid_rate_min_trials`` have finished;
    ``max_calls_in_flight``: model calls at once per model (:mod:`lancebench.llm.pacing`). None: no
    control."""

    max_total_cost_usd: float | None = None
    max_total_tokens: int | None = None
    max_invalid_rate: float | None = None
    invalid_rate_min_trials: int = 5
    max_calls_in_flight: int | None = None

    def recorded(self) -> dict[str, Any]:
        """The controls set (for ``job.json``); empty when none is."""
        values = asdict(self)
        if self.max_invalid_rate is None:
            values.pop("invalid_rate_min_trials")
        return {k: v for k, v in values.items() if v is not None}


def _cost(u: Usage) -> float:
    return u.cost_usd or 0.0


def _tokens(u: Usage) -> int:
    return u.input_tokens + u.output_tokens


def new_spend(r: TrialResult) -> Usage:
    """What ``r`` spent in its own run (its usage minus ``extra.earlier_runs_usage``)."""
    earlier = r.extra.get("earlier_runs_usage")
    if not isinstance(earlier, dict):
        return r.usage
    try:
        return r.usage.since(Usage.model_validate(earlier))
    except ValueError:
        return r.usage


class RunWatch:
    """Watches a run against its :class:`RunControls`. ``base``: the job's spend before this run
    (recorded trials kept, earlier runs of the trials to run again)."""

    def __init__(self, controls: RunControls, base: Usage):
        self.controls = controls
        self.base = base
        self.finished = Usage()
        self.cost_finished = _cost(base)
        self.done = 0
        self.invalid = 0
        self.tripped = asyncio.Event()  # set when a finished trial trips a control: the stop need not wait a poll

    def add(self, r: TrialResult) -> None:
        """Count a trial finished in this run."""
        spent = new_spend(r)
        self.finished = self.finished + spent
        self.cost_finished += _cost(spent)
        self.done += 1
        self.invalid += r.status == "invalid"
        if self.reason() is not None:
            self.tripped.set()

    def reason(self) -> str | None:
        """Why the run must stop now (None: it goes on)."""
        c = self.controls
        live = live_usage()
        cost = self.cost_finished + _cost(live)
        tokens = _tokens(self.base) + _tokens(self.finished) + _tokens(live)
        if c.max_total_cost_usd is not None and cost >= c.max_total_cost_usd:
            return f"the job's model spend reached {cost:.4f} USD (--max-total-cost {c.max_total_cost_usd:g})"
        if c.max_total_tokens is not None and tokens >= c.max_total_tokens:
            return f"the job used {tokens} tokens (--max-total-tokens {c.max_total_tokens})"
        if (c.max_invalid_rate is not None and self.done >= c.invalid_rate_min_trials
                and self.invalid / self.done > c.max_invalid_rate):
            return (f"{self.invalid} of the {self.done} trials finished in this run are invalid "
                    f"({self.invalid / self.done:.0%} > --max-invalid-rate {c.max_invalid_rate:g}); "
                    "see their reasons with lancebench show")
        return None

    async def guard(self, work: Awaitable[None]) -> str | None:
        """Run ``work`` (the executor's run) and stop it when a control trips. Returns the reason
        it was stopped, None when it ran to its end."""
        reason = self.reason()
        if reason is not None:  # already over before anything starts (a resume at the same budget)
            if asyncio.iscoroutine(work):
                work.close()
            return reason
        task = asyncio.ensure_future(work)
        tripped = asyncio.ensure_future(self.tripped.wait())
        try:
            while not task.done():
                await asyncio.wait({task, tripped}, timeout=POLL_SEC, return_when=asyncio.FIRST_COMPLETED)
                reason = self.reason()
                if reason is not None and not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                    return reason
        except BaseException:  # Ctrl-C or an error: the trials in flight are cancelled, never left running
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            raise
        finally:
            tripped.cancel()
        task.result()
        return None

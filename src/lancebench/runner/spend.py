"""A trial's model spend, kept whatever way the trial ends (finished, crashed, timed out, cancelled,
or its process killed).

:func:`start` opens the trial's :class:`~lancebench.llm.meter.UsageMeter` (writing
``trials/<id>/usage.json`` after every model call); :func:`lancebench.runner.agent_phase.run_agent`
makes it the active meter while the agent runs (judges are counted in their own records, not here);
:func:`settle` gives what the result records.

Spend of earlier runs of the same trial is never dropped: a trial folder about to be replaced (an
interrupted run's, or an ``invalid`` result rerun with ``--retry-invalid``) hands its spend
(``usage.json``, else its result's ``usage``) to the new run, whose recorded usage includes it;
``extra.earlier_runs_usage`` in ``result.json`` says how much of it came from earlier runs.

Calls the agent phase's end cut (a call of an installed agent in flight through the model gateway
when its deadline came, it was cancelled or it exited: :meth:`lancebench.llm.gateway.Gateway.end`)
are counted in the usage like any other, their tokens estimated; ``extra.cut_calls`` says how many
there were and ``extra.cut_call_records`` lists the first :data:`MAX_CUT_RECORDS` (reason, tokens,
cost, ``estimate``). Requests the gateway refused for the trial key's bounds (a request too large,
413, or too many in flight, 429: :mod:`lancebench.llm.gateway_limits`) are the agent's doing: never
sent to the model, no usage, the trial graded as any other; ``extra.gateway_refused`` says how many
and ``extra.gateway_refused_records`` lists the first (status, message, bytes, limit).
"""

from __future__ import annotations

import contextvars
from typing import Any

from lancebench.llm.meter import UsageMeter, read_usage
from lancebench.results.models import Usage
from lancebench.results.paths import TrialPaths

CUT_FIELDS = ("cut", "prompt_tokens", "completion_tokens", "cost_usd", "estimate")
REFUSED_FIELDS = ("status", "message", "bytes", "limit")
MAX_CUT_RECORDS = 20  # cut calls listed in a result's extra (all are counted)

_TRIAL: contextvars.ContextVar[UsageMeter | None] = contextvars.ContextVar("lancebench_trial_meter", default=None)


def earlier_spend(paths: TrialPaths) -> Usage | None:
    """The spend recorded in ``paths`` by earlier runs of the trial (None when there is none)."""
    found = read_usage(paths.usage) if paths.usage.is_file() else None
    if found is None and paths.result.is_file():
        from lancebench.results.load import load_result
        try:
            found = load_result(paths.result).usage
        except Exception:  # an unreadable old result holds no spend we can trust
            found = None
    return found if found is not None and (found.calls or found.retries or found.input_tokens) else None


def start(paths: TrialPaths) -> UsageMeter:
    """The trial's meter (call it before the trial's folder is replaced: it reads the earlier spend),
    made the trial's meter for :func:`current`."""
    meter = UsageMeter(paths.usage, earlier_spend(paths))
    _TRIAL.set(meter)
    return meter


def current() -> UsageMeter | None:
    """The meter of the trial running in this task (None outside a trial)."""
    return _TRIAL.get()


def settle(reported: Usage, meter: UsageMeter) -> tuple[Usage, dict]:
    """``(usage, extra)``: the usage the result records, what the meter saw of the model calls made
    through :class:`~lancebench.llm.LLMClient`, or, when the agent's report (``reported``) counts
    more calls (an agent with its own client), each field the larger of the two (:func:`_at_least`:
    the meter's count is a floor the agent cannot lower), plus the earlier runs' spend; ``extra`` is
    ``{"earlier_runs_usage": ...}`` when there was earlier spend (else empty), for the result's
    ``extra`` (with ``cut_calls`` and ``cut_call_records`` when the meter counted cut calls, and
    ``gateway_refused`` and ``gateway_refused_records`` when the gateway refused requests).
    Written to ``usage.json`` when there is any (a trial without model calls leaves no
    such file)."""
    seen = (meter.usage if meter.usage.calls + meter.usage.retries >= reported.calls + reported.retries
            else _at_least(meter.usage, reported))
    total = meter.earlier + seen
    if total.calls or total.retries or (meter.path is not None and meter.path.exists()):
        meter.write(total)
    extra: dict[str, Any] = {}
    if meter.earlier.calls or meter.earlier.retries:
        extra["earlier_runs_usage"] = meter.earlier.model_dump()
    if meter.cut:
        extra["cut_calls"] = len(meter.cut)
        extra["cut_call_records"] = [{k: c.get(k) for k in CUT_FIELDS} for c in meter.cut[:MAX_CUT_RECORDS]]
    if meter.refused:
        extra["gateway_refused"] = meter.refused
        extra["gateway_refused_records"] = [{k: r.get(k) for k in REFUSED_FIELDS}
                                            for r in meter.refused_records[:MAX_CUT_RECORDS]]
    return total, extra


def _at_least(metered: Usage, reported: Usage) -> Usage:
    """Each field of ``reported`` (an agent's own count), never below ``metered`` (what the meter
    saw; attack pass round 7: an agent that made ten metered calls and reported eleven, with no
    tokens and a cost of 0 or below, had its report recorded: its trial's tokens and cost were its
    own claim). A cost known to one only is that one (attack pass round 8: a report of no cost, None,
    made the metered cost unknown, which a job's cost budget counts as $0); unknown to both, None."""
    known = [c for c in (metered.cost_usd, reported.cost_usd) if c is not None]
    cost = max(known) if known else None
    return Usage(input_tokens=max(metered.input_tokens, reported.input_tokens),
                 output_tokens=max(metered.output_tokens, reported.output_tokens),
                 cached_tokens=max(metered.cached_tokens, reported.cached_tokens), cost_usd=cost,
                 calls=max(metered.calls, reported.calls), retries=max(metered.retries, reported.retries))

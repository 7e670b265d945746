"""Errors counted as failures (``--errors-as-failures`` of ``show`` and ``report``): the
conservative number some users report, in which every ``invalid`` trial counts as ``unresolved``
with reward 0, so that no fault of the harness, the infrastructure or the grader leaves a rate.

By default lancebench leaves ``invalid`` trials out of every rate (``docs/metrics.md``); with the
switch they are in every denominator and no numerator. The switch changes what is read back,
never what a job recorded."""

from __future__ import annotations

from lancebench.results.models import TrialResult

NOTE = "errors counted as failures: {n} invalid trial(s) counted as unresolved with reward 0"


def errors_as_failures(results: list[TrialResult]) -> list[TrialResult]:
    """``results`` with each ``invalid`` trial as ``unresolved`` (reward 0, its reason prefixed by
    ``error counted as failure:``; its ``control`` kept); the others unchanged (same objects)."""
    out = []
    for r in results:
        if r.status != "invalid":
            out.append(r)
            continue
        out.append(r.model_copy(update={"status": "unresolved", "rewards": {**r.rewards, "reward": 0.0},
                                        "reason": f"error counted as failure: {r.reason or 'invalid'}"}))
    return out


def counted_note(results: list[TrialResult]) -> str:
    """The note a report shows with the switch (:data:`NOTE` with the number of invalid trials)."""
    return NOTE.format(n=sum(r.status == "invalid" for r in results))

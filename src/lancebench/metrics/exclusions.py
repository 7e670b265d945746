"""Which trials a task's own exclusions leave out: lancebench's control rule or the task's rule.

A task's verifier may exclude a trial (an empty ``reward.txt``: Senior SWE-Bench does it when its
own validation cannot run). lancebench's rule (``control``, what results record): the exclusion
stands (``invalid``) only when the untouched base is excluded too or the patch is empty; an
exclusion only the patched run shows may have been written by the agent's code, so the trial is
``unresolved`` (:data:`lancebench.grading.verifier.EXCLUDED_BY_PATCH` opens its reason). Harbor
and the benchmark's leaderboard leave every excluded trial out (``task``): :func:`under_rule`
gives the results as that rule counts them, so both can be shown
(``lancebench show --exclusions task``).
"""

from __future__ import annotations

from lancebench.grading.verifier import EXCLUDED_BY_PATCH
from lancebench.results.models import TrialResult

EXCLUSION_RULES = ("control", "task")
TASK_RULE_NOTE = "left out by the task's own exclusion (--exclusions task, as Harbor and the leaderboard count)"


def excluded(result: TrialResult) -> bool:
    """Whether the task's verifier excluded ``result`` (``TrialResult.exclusion_rule`` set; in
    results of versions that did not record it, a reason of :data:`EXCLUDED_BY_PATCH`)."""
    return result.exclusion_rule is not None or (result.reason or "").startswith(EXCLUDED_BY_PATCH)


def excluded_by_task(result: TrialResult) -> bool:
    """Whether the task's verifier excluded ``result`` and lancebench's control rule counted it
    ``unresolved`` (the exclusion appeared only with the agent's patch): the trials the two rules
    count differently."""
    return result.status == "unresolved" and result.exclusion_rule != "task" and excluded(result)


def under_rule(results: list[TrialResult], rule: str) -> list[TrialResult]:
    """``results`` as ``rule`` counts them: ``control`` as recorded; ``task``: every trial the
    task's verifier excluded is ``invalid`` (left out of every rate, never a 0), its reason saying
    so; either way each excluded trial's ``exclusion_rule`` names the rule. Raises ValueError for
    another rule."""
    if rule not in EXCLUSION_RULES:
        raise ValueError(f"exclusion rule {rule!r}: one of {', '.join(EXCLUSION_RULES)}")
    out = []
    for r in results:
        if rule == "task" and excluded_by_task(r):
            r = r.model_copy(update={"status": "invalid", "reason": f"{TASK_RULE_NOTE}: {r.reason}",
                                     "exclusion_rule": rule})
        elif excluded(r) and r.exclusion_rule != rule:
            r = r.model_copy(update={"exclusion_rule": rule})
        out.append(r)
    return out


def exclusion_note(results: list[TrialResult], rule: str) -> str | None:
    """What the rule changed, for a report's notes: how many trials the task's verifier excluded,
    and how many of them the other rule counts differently (None when it excluded none).
    ``results`` as recorded (the control rule)."""
    n = sum(excluded(r) for r in results)
    if not n:
        return None
    differ = sum(excluded_by_task(r) for r in results)
    if rule == "task":
        return (f"exclusions: the task's rule: {differ} of the {n} trial(s) its verifier excluded are left out "
                "(lancebench's control rule counts them unresolved: the untouched base is not excluded)")
    return (f"exclusions: lancebench's control rule: {differ} of the {n} trial(s) the task's verifier excluded are "
            "counted unresolved (the untouched base is not excluded); --exclusions task leaves them out, as Harbor "
            "and the leaderboard count")

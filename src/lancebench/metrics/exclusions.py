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


def excluded_by_task(result: TrialResult) -> bool:
    """Whether the task's verifier excluded ``result`` and lancebench's control rule counted it
    ``unresolved`` (the exclusion appeared only with the agent's patch)."""
    return result.status == "unresolved" and (result.reason or "").startswith(EXCLUDED_BY_PATCH)


def under_rule(results: list[TrialResult], rule: str) -> list[TrialResult]:
    """``results`` as ``rule`` counts them: ``control`` as recorded; ``task``: every trial the
    task's verifier excluded is ``invalid`` (left out of every rate, never a 0), its reason saying
    so. Raises ValueError for another rule."""
    if rule not in EXCLUSION_RULES:
        raise ValueError(f"exclusion rule {rule!r}: one of {', '.join(EXCLUSION_RULES)}")
    if rule == "control":
        return list(results)
    return [r.model_copy(update={"status": "invalid", "reason": f"{TASK_RULE_NOTE}: {r.reason}"})
            if excluded_by_task(r) else r for r in results]

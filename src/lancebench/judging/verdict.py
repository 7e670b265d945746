"""The senior verdict (Senior SWE-Bench): resolved, and tasteful.

- A trial is *resolved* when its verifiers pass and, where the task has a validation spec, every
  story passes (:func:`resolved_with_validation`).
- It is a *tasteful solve* when it is resolved and clears the :class:`Thresholds`: by default
  neither taste median (``practice_alignment``, ``relative_taste``, 1..5) is below 3; a rubric
  mean threshold (0..1) applies only when set. A judge the thresholds need that is skipped or
  failed makes the flag unknown (None), never False, unless the judged patch caused the failure
  (``judging.refusal.BY_PATCH``: the provider refused the prompt only with the patch in it, or the
  patch outgrew the judge's context window): then the flag is False.
"""

from __future__ import annotations

from dataclasses import dataclass

from lancebench.judging.refusal import BY_PATCH
from lancebench.results.models import JudgeRecord, QualityVerdict

TASTE_GROUPS = ("practice_alignment", "relative_taste")


@dataclass(frozen=True)
class Thresholds:
    """``taste_min``: the least each taste median may be (1..5, default 3); ``rubric_min``: the
    least rubric mean (0..1), or None for no rubric requirement (the default)."""

    taste_min: float = 3.0
    rubric_min: float | None = None

    def as_dict(self) -> dict[str, float]:
        out = {"taste_min": self.taste_min}
        if self.rubric_min is not None:
            out["rubric_min"] = self.rubric_min
        return out


def resolved_with_validation(verifier_passed: bool, validation: JudgeRecord | None) -> bool:
    """True when the verifiers passed and the validation (if the task has a spec, i.e. the record
    is not None and not ``skipped``) scored every story (``score`` 1.0)."""
    if not verifier_passed:
        return False
    if validation is None or validation.status == "skipped":
        return True
    return validation.ok and validation.scores.get("score") == 1.0


def tasteful(resolved: bool, judges: dict[str, JudgeRecord], thresholds: Thresholds) -> tuple[bool | None, str | None]:
    """``(flag, reason)`` for one valid trial: False for an unresolved trial, None when a needed
    judge is missing, skipped or failed, else whether every threshold holds."""
    if not resolved:
        return False, "not resolved"
    by_patch = [f"{name} judge {rec.status}: the judged patch caused it" for name, rec in judges.items()
                if name in ("taste", "rubric") and rec.status.removeprefix("failed:") in BY_PATCH
                and (name == "taste" or thresholds.rubric_min is not None)]
    if by_patch:  # a patch that trips the judge's filter or outgrows its window dodges no score (round 4)
        return False, "; ".join(by_patch)
    taste = judges.get("taste")
    if taste is None or not taste.ok:
        return None, f"taste judge {taste.status if taste else 'did not run'}"
    low = [f"{g} {taste.scores[g]:g} < {thresholds.taste_min:g}" for g in TASTE_GROUPS
           if taste.scores[g] < thresholds.taste_min]
    if thresholds.rubric_min is not None:
        rubric = judges.get("rubric")
        if rubric is None or not rubric.ok:
            return None, f"rubric judge {rubric.status if rubric else 'did not run'}"
        if rubric.scores["mean"] < thresholds.rubric_min:
            low.append(f"rubric mean {rubric.scores['mean']:g} < {thresholds.rubric_min:g}")
    return (False, "; ".join(low)) if low else (True, None)


def quality_verdict(resolved: bool, judges: dict[str, JudgeRecord], thresholds: Thresholds,
                    bloat: tuple[float | None, int | None, int | None] = (None, None, None)) -> QualityVerdict:
    """The :class:`QualityVerdict` to store: the tasteful flag, the thresholds and the patch bloat
    ``(ratio, agent_sloc, reference_sloc)``."""
    flag, reason = tasteful(resolved, judges, thresholds)
    return QualityVerdict(tasteful=flag, thresholds=thresholds.as_dict(), patch_bloat=bloat[0],
                          agent_sloc=bloat[1], reference_sloc=bloat[2], reason=reason)

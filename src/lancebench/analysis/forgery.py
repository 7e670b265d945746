"""Findings of a forged verdict, read from what grading recorded (issue 20).

A trial whose grading caught the test process forging its verdict (a canary test that must fail
passed, ``grading.canary``; the report channel tampered with, ``grading.witness``) gets a
``forged_verdict`` finding with the reason; every note of the static scan that did not decide
(``TrialResult.scan_notes``: runner machinery named in harmless-looking ways, or a canary that
could not be read) is a ``scan_note`` finding, so a reviewer sees it beside the trial. Neither
changes the trial's status: grading decided that.
"""

from __future__ import annotations

from lancebench.analysis.findings import Finding, clip
from lancebench.grading.canary import MARK as CANARY_MARK
from lancebench.results.models import TrialResult

WITNESS_MARK = "(grading.witness"  # grading.verifier's and grading.witness's reasons about the report channel


def forgery_findings(result: TrialResult) -> list[Finding]:
    """The ``forged_verdict`` finding of ``result``'s reason (when it names a canary or the
    witness) and one ``scan_note`` finding per recorded scan note, in that order."""
    out = []
    reason = result.reason or ""
    if CANARY_MARK in reason:
        out.append(Finding("forged_verdict", None, clip(reason),
                           "a canary test that must fail did not (grading.canary)"))
    elif WITNESS_MARK in reason:
        out.append(Finding("forged_verdict", None, clip(reason), "the test report's channel was tampered with "
                           "(grading.witness)"))
    for note in result.scan_notes:
        out.append(Finding("scan_note", None, clip(note), "noted by grading (did not decide the verdict)"))
    return out

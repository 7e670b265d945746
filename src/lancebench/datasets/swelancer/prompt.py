"""The instruction a SWE-Lancer manager task gives the agent (lancebench's own wording), and the
guard that keeps the right answer's markers out of it."""

from __future__ import annotations

import re

from lancebench.datasets.swelancer.table import SwelancerRow
from lancebench.errors import DatasetError

ANSWER_FILE = "answer.json"
CHECKOUT_NOTE = ("Your working directory holds the App repository's code as it was when the proposals were "
                 "reviewed (before any of them was merged; no git history): read it, search it and run what you "
                 "need to judge the proposals.")
# Strings that would point at the right answer or at where it is kept; none may reach the agent.
FIXED_MARKERS = ("correct_proposal", "manager_data", "approval_comment_url", "correct_proposal_id")


def usd(price: float) -> str:
    """A payout as the prompts show it: ``$8,000`` or ``$62.50``."""
    return f"${price:,.0f}" if float(price).is_integer() else f"${price:,.2f}"


def issue_section(row: SwelancerRow) -> list[str]:
    """The lines that show the issue (title and description) in both variants' prompts."""
    return ["## The issue", "", f"### {row.title.strip()}", "", row.description.strip(), ""]


def redact(text: str, row: SwelancerRow) -> str:
    """``text`` without the row's answer markers. A proposal may quote the approval comment's URL
    (one task does: a freelancer links their earlier comment); the URL then loses its
    ``#issuecomment-N`` fragment, so it still names the issue but no longer the approving comment."""
    for marker in row.markers:
        if marker.startswith(("http://", "https://")):
            text = text.replace(marker, marker.split("#", 1)[0])
            anchor = re.search(r"#issuecomment-(\d+)$", marker)
            if anchor:
                text = re.sub(rf"#issuecomment-{anchor.group(1)}\b", "", text)
        else:
            text = text.replace(marker, "")
    return text


def leaked_markers(text: str, row: SwelancerRow) -> list[str]:
    """The answer markers of ``row`` (and the fixed field names) that occur in ``text``."""
    return [m for m in (*row.markers, *FIXED_MARKERS) if m and m in text]


def manager_instruction(row: SwelancerRow, *, checkout: bool = False) -> str:
    """The prompt of a manager task: the issue (title, description, payout), every proposal with
    its id, and how to answer. ``checkout``: the workdir holds the product's code as the manager
    saw it (``--repo-path``), and the prompt says so. Raises :class:`DatasetError` if a marker of
    the answer remains."""
    ids = ", ".join(str(i) for i in row.proposal_ids)
    parts = [
        "# Pick the proposal to accept",
        "",
        "You are the engineering manager reviewing freelancer proposals for an issue in Expensify's "
        "App repository (a React Native app for web, desktop and mobile). Read the issue and the "
        f"{len(row.proposals)} proposals below, then choose the single proposal you would accept: "
        "the one that fixes the root cause most reliably without causing regressions. "
        + (CHECKOUT_NOTE if checkout else "There is no checkout of the repository here: decide from the issue and the "
                                          "proposals."),
        "",
        f"- Payout for this issue: {usd(row.price)}",
        f"- Proposal ids: {ids}",
        "",
        *issue_section(row),
        "## The proposals",
        "",
        "Each proposal starts with a line `=== Proposal <id> ===`.",
    ]
    for p in row.proposals:
        parts += ["", f"=== Proposal {p.id} ===", "", p.text.strip()]
    parts += [
        "",
        "## How to answer",
        "",
        f"Write your decision as JSON to the file `{ANSWER_FILE}` in your current working directory, "
        "where N is the id of the proposal you choose, as an integer:",
        "",
        "```json",
        '{"selected_proposal_id": N}',
        "```",
        "",
        f"The id must be one of: {ids}. Choose exactly one proposal; an answer naming any other id is "
        "wrong, and no answer file counts as no answer.",
        "",
    ]
    text = redact("\n".join(parts), row)
    leaks = leaked_markers(text, row)
    if leaks:
        raise DatasetError(f"SWE-Lancer task {row.question_id}: its instruction would show a marker of the right "
                           f"answer ({leaks[0][:80]!r}); the table row (line {row.line}) needs a redaction rule")
    return text

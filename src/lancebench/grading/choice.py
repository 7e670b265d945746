"""Grading choice tasks: the agent's selected proposal id against the right one.

Parsing is strict but fair (SWE-Lancer manager tasks): an int or a string of digits is accepted;
a boolean, a float, an id outside the proposals or anything else is a wrong answer; no answer at
all is ``unresolved`` with the reason "no answer".
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

MAX_ANSWER_BYTES = 100_000


def parse_choice(value: Any) -> int | None:
    """An int from ``value`` (int, or a string of an integer), else None. Booleans are rejected."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?[0-9]{1,100}\s*", value):  # int() refuses 4,300+ digits
        return int(value)
    return None


def read_answer_file(path: Path) -> tuple[Any, str | None]:
    """(raw ``selected_proposal_id`` value, problem) from an answer file on the host.

    The problem is None when a value was found; otherwise it says what was wrong
    ("no answer", unreadable JSON, ...). Symlinks and files over 100 kB are refused."""
    if path.is_symlink():
        return None, "answer file is a symlink"
    if not path.is_file():
        return None, "no answer"
    if path.stat().st_size > MAX_ANSWER_BYTES:
        return None, "answer file too large"
    try:
        data = json.loads(path.read_text(errors="replace"))
    except (ValueError, RecursionError):  # RecursionError: arrays nested past Python's limit
        return None, "answer file is not JSON"
    if not isinstance(data, dict) or "selected_proposal_id" not in data:
        return None, 'answer file lacks "selected_proposal_id"'
    return data["selected_proposal_id"], None


def grade_choice(raw: Any, problem: str | None, proposal_ids: list[int],
                 correct: int) -> tuple[bool, int | None, str | None]:
    """(resolved, parsed choice, reason). See the module docstring for the rules."""
    if problem is not None:
        return False, None, problem
    choice = parse_choice(raw)
    if choice is None:
        return False, None, f"answer {raw!r} is not a proposal id"
    if choice not in proposal_ids:
        return False, choice, f"answer {choice} is not one of the proposals {proposal_ids}"
    return choice == correct, choice, None if choice == correct else f"chose {choice}"

"""Reading the SWE-Lancer task table (``all_swelancer_tasks.csv``) into typed rows.

The table (SWE-Lancer, arXiv 2502.12115; the Diamond split as shipped by inspect-evals) has the
columns ``question_id, variant, price, price_limit, manager_data, manager_commit,
acceptable_folders, cwd, set, title, description, proposals``. Two pitfalls shape this module:

- ``title``, ``description`` and ``proposals`` hold the two characters backslash and ``n`` where
  the text had a line break. Only that sequence is an escape: other backslashes are the text's own
  (regular expressions in proposals), and non-ASCII characters are stored as they are. So
  :func:`decode_text` turns backslash-n into a line break and touches nothing else; decoding
  with ``unicode_escape`` would garble every non-ASCII character and every regex.
- ``manager_data`` is a Python literal (a dict): read with :func:`ast.literal_eval`, never ``eval``.
  The right answer is ``manager_data["game"]["correct_proposal"]["id"]``; it stays on the harness side.
"""

from __future__ import annotations

import ast
import csv
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lancebench.errors import DatasetError

COLUMNS = ("question_id", "variant", "price", "price_limit", "manager_data", "manager_commit",
           "acceptable_folders", "cwd", "set", "title", "description", "proposals")
MANAGER, IC = "swe_manager", "ic_swe"
VARIANTS = (IC, MANAGER)
KIND = {MANAGER: "choice", IC: "code"}  # the task kind each variant becomes
_PROPOSAL_HEAD = re.compile(r"(?m)^Proposal: (-?\d+):[ \t]*$")
_TRAILING_RULES = re.compile(r"(?:\s*\n-{3,}[ \t]*)+\s*$")
_QUESTION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
SOURCE_HINT = "pass --source PATH to a copy of all_swelancer_tasks.csv (the SWE-Lancer Diamond table)"


def decode_text(raw: str) -> str:
    r"""The text of a ``title``/``description``/``proposals`` cell: each ``\n`` (backslash, n)
    becomes a line break; every other character, non-ASCII ones and other backslashes included,
    is kept as it is. (The table's writer escaped only line breaks, and did not double the
    text's own backslashes, so a literal ``\n`` written inside a proposal's code cannot be told
    apart from a line break: 14 of the 1,192 proposals show one such spot.)"""
    return raw.replace("\\n", "\n")


@dataclass(frozen=True)
class Proposal:
    """One freelancer proposal of a manager task: its ``id`` and the text shown to the agent."""

    id: int
    text: str


@dataclass(frozen=True)
class SwelancerRow:
    """One row of the table, decoded.

    ``price`` is the payout in USD. For manager rows: ``proposals`` (in table order, ids as the
    table gives them: usually 0..n-1 but not always), ``correct_id`` (the manager's choice, never
    shown to the agent) and ``markers``: strings that point at the right answer (the approval
    comment URL, the explanation of the choice) and must never reach the agent. ``line`` is the
    row's line number in the CSV, for error messages."""

    question_id: str
    variant: str
    price: float
    title: str
    description: str
    set: str
    cwd: str
    line: int
    manager_commit: str = ""
    acceptable_folders: tuple[str, ...] = ()
    proposals_text: str = ""
    proposals: tuple[Proposal, ...] = ()
    correct_id: int | None = None
    markers: tuple[str, ...] = field(default=(), repr=False)

    @property
    def proposal_ids(self) -> list[int]:
        return [p.id for p in self.proposals]


def split_of(row: SwelancerRow) -> str:
    """``public`` or ``private`` from the row's ``set`` when it says so; Diamond (``set = "diamond"``)
    is SWE-Lancer's public split, so anything else is ``public``."""
    return row.set if row.set in ("public", "private") else "public"


def _fail(path: Path, line: int | None, problem: str, fix: str = SOURCE_HINT) -> DatasetError:
    where = f"{path}" + (f", line {line}" if line else "")
    return DatasetError(f"{where}: {problem} ({fix})")


def split_proposals(text: str) -> list[Proposal]:
    """The proposals of a decoded ``proposals`` cell: blocks that start with a line
    ``Proposal: <id>:``; each block's text runs to the next such line, without the rule of dashes
    the table puts between proposals."""
    heads = list(_PROPOSAL_HEAD.finditer(text))
    out = []
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = _TRAILING_RULES.sub("", text[m.end():end])
        out.append(Proposal(int(m.group(1)), body.strip("\n")))
    return out


def _manager_fields(path: Path, line: int, qid: str, cell: str) -> tuple[list[int], int, tuple[str, ...]]:
    """(proposal ids, right id, marker strings) from a ``manager_data`` cell."""
    try:
        data = ast.literal_eval(cell)
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        raise _fail(path, line, f"task {qid}: manager_data is not a Python literal ({type(exc).__name__})") from None
    try:
        game = data["game"]
        ids = [p["id"] for p in game["all_formal_proposals"]]
        correct = game["correct_proposal"]
    except (KeyError, TypeError) as exc:
        raise _fail(path, line, f"task {qid}: manager_data lacks game.all_formal_proposals or "
                                f"game.correct_proposal ({exc!r})") from None
    if not isinstance(correct, dict) or any(isinstance(i, bool) or not isinstance(i, int) for i in ids):
        raise _fail(path, line, f"task {qid}: proposal ids in manager_data are not integers")
    right = correct.get("id")
    if isinstance(right, bool) or not isinstance(right, int) or right not in ids:
        raise _fail(path, line, f"task {qid}: correct proposal id {right!r} is not one of the proposals {ids}")
    markers = tuple(s for s in (correct.get("approval_comment_url"), correct.get("explanation"))
                    if isinstance(s, str) and s.strip())
    return ids, right, markers


def _price(path: Path, line: int, qid: str, cell: str) -> float:
    try:
        price = float(cell)
    except ValueError:
        raise _fail(path, line, f"task {qid}: price {cell!r} is not a number") from None
    if not price >= 0 or price == float("inf"):
        raise _fail(path, line, f"task {qid}: price {cell!r} is not a non-negative amount")
    return price


def _row(path: Path, line: int, rec: dict[str, str]) -> SwelancerRow:
    qid = (rec.get("question_id") or "").strip()
    if not _QUESTION_ID.fullmatch(qid):
        raise _fail(path, line, f"question_id {qid!r} is not a plain id (letters, digits, _ . -)")
    variant = (rec.get("variant") or "").strip()
    if variant not in VARIANTS:
        raise _fail(path, line, f"task {qid}: variant {variant!r} is neither {MANAGER!r} nor {IC!r}")
    common: dict[str, Any] = dict(
        question_id=qid, variant=variant, price=_price(path, line, qid, rec.get("price") or ""),
        title=decode_text(rec.get("title") or ""), description=decode_text(rec.get("description") or ""),
        set=(rec.get("set") or "").strip(), cwd=(rec.get("cwd") or "").strip(), line=line,
        manager_commit=(rec.get("manager_commit") or "").strip())
    if variant == IC:
        try:
            folders = ast.literal_eval(rec.get("acceptable_folders") or "[]")
        except (ValueError, SyntaxError):
            raise _fail(path, line, f"task {qid}: acceptable_folders is not a Python list literal") from None
        if not isinstance(folders, (list, tuple)) or not all(isinstance(f, str) for f in folders):
            raise _fail(path, line, f"task {qid}: acceptable_folders is not a list of strings")
        return SwelancerRow(**common, acceptable_folders=tuple(folders))
    ids, right, markers = _manager_fields(path, line, qid, rec.get("manager_data") or "")
    text = decode_text(rec.get("proposals") or "")
    proposals = tuple(split_proposals(text))
    if [p.id for p in proposals] != ids:
        raise _fail(path, line, f"task {qid}: the proposals text names ids {[p.id for p in proposals]} but "
                                f"manager_data names {ids}")
    return SwelancerRow(**common, proposals_text=text, proposals=proposals, correct_id=right, markers=markers)


def read_table(path: Path) -> list[SwelancerRow]:
    """Every row of the CSV at ``path``, decoded and checked.

    Raises :class:`DatasetError` naming the file (and the line) when the file is missing, is not
    UTF-8 CSV, lacks a column, or a row is malformed (bad variant or price, ``manager_data`` that
    is not a literal, a right id outside the proposals, duplicate ids); the message says what to do."""
    path = Path(path)
    if not path.is_file():
        raise _fail(path, None, "the SWE-Lancer table is not there" if not path.exists() else "not a file")
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    rows: list[SwelancerRow] = []
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise _fail(path, 1, f"not the SWE-Lancer task table: missing column(s) {', '.join(missing)}")
            for rec in reader:
                if None in rec:
                    raise _fail(path, reader.line_num, "a row has more cells than the header")
                rows.append(_row(path, reader.line_num, rec))
    except UnicodeDecodeError as exc:
        raise _fail(path, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except csv.Error as exc:
        raise _fail(path, None, f"not a readable CSV file ({exc})") from None
    if not rows:
        raise _fail(path, None, "the table has no rows")
    seen: set[str] = set()
    for r in rows:
        if r.question_id in seen:
            raise _fail(path, r.line, f"question_id {r.question_id} appears twice")
        seen.add(r.question_id)
    return rows

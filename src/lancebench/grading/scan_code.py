"""Reading the lines a patch adds as code or prose, for the static scan (``grading.scan``).

A file's diff is cut into hunks; each hunk's new side (context and added lines) is what the file
holds there after the patch. An added line is split into its **code** (what runs) and its
**prose** (comments, and docstrings: a string that is a statement of its own, which never runs;
an f-string is never prose, its expressions run).
Python files are read with :mod:`tokenize` over the hunk's new side, each line's indentation
removed first (a hunk starts at any depth); a hunk that starts inside a triple-quoted string is
read again as if one had just opened. Other code files: a line starting with ``#``, ``//``,
``/*`` or ``*`` is prose. When a Python hunk cannot be read at all, every line is code (the scan
then errs towards refusing).
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
_COMMENT_START = ("#", "//", "/*", "*")


@dataclass(frozen=True)
class AddedLine:
    """One line the patch adds: its 1-based ``number`` within the file's diff text, its ``text``
    (without the ``+``), its ``code`` (prose blanked out) and its ``hunk`` (the hunk's new-side
    lines, for context) with its index ``at`` there."""

    number: int
    text: str
    code: str
    hunk: tuple[str, ...]
    at: int


def _hunks(diff_text: str) -> list[list[tuple[int, str, bool]]]:
    """Hunks of a file's diff: lists of (diff line number, new-side text, added?)."""
    hunks: list[list[tuple[int, str, bool]]] = []
    for n, line in enumerate(diff_text.splitlines(), 1):
        if _HUNK.match(line):
            hunks.append([])
        elif hunks and line.startswith("+") and not line.startswith("+++ "):
            hunks[-1].append((n, line[1:], True))
        elif hunks and line.startswith(" "):
            hunks[-1].append((n, line[1:], False))
        elif hunks and line.startswith(("GIT binary patch", "diff --git ")):
            break
    return hunks


def _python_prose(lines: list[str]) -> list[list[tuple[int, int]]] | None:
    """Per line of ``lines`` (indentation removed), the column spans that are prose; None when the
    text cannot be tokenized."""
    text = "".join(line.lstrip() + "\n" for line in lines)
    for opener in ("", '"""\n', "'''\n"):
        spans = _prose_spans(opener + text, len(lines), 1 if opener else 0)
        if spans is not None:
            return spans
    return None


def _prose_spans(text: str, count: int, shift: int) -> list[list[tuple[int, int]]] | None:
    spans: list[list[tuple[int, int]]] = [[] for _ in range(count)]
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                  if t.type not in (tokenize.NL, tokenize.ENCODING)]
    except (tokenize.TokenError, SyntaxError):
        return None
    if any(t.type == tokenize.ERRORTOKEN and not t.string.isspace() for t in tokens):
        return None
    for i, tok in enumerate(tokens):
        prose = tok.type == tokenize.COMMENT
        if tok.type == tokenize.STRING and not _formatted(tok.string):
            before = tokens[i - 1].type if i else tokenize.NEWLINE
            after = tokens[i + 1].type if i + 1 < len(tokens) else tokenize.NEWLINE
            prose = (before in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
                     and after in (tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER))
        if not prose:
            continue
        (row0, col0), (row1, col1) = tok.start, tok.end
        for row in range(row0, row1 + 1):
            idx = row - 1 - shift
            if 0 <= idx < count:
                spans[idx].append((col0 if row == row0 else 0, col1 if row == row1 else 1 << 30))
    return spans


def _formatted(token: str) -> bool:
    """Is the string token an f-string (its ``{...}`` expressions run, so it is never prose, even
    as a statement of its own; Python 3.11 tokenizes it as one STRING token)?"""
    return "f" in token[:3].lower().split('"')[0].split("'")[0]


def _blank(line: str, spans: list[tuple[int, int]]) -> str:
    text = line.lstrip()
    for a, b in spans:
        text = text[:a] + " " * (min(b, len(text)) - a) + text[min(b, len(text)):]
    return text


def added_lines(diff_text: str, python: bool) -> list[AddedLine]:
    """The lines a file's diff adds, each split into code and prose (see the module docstring)."""
    out: list[AddedLine] = []
    for hunk in _hunks(diff_text):
        new_side = tuple(text for _, text, _ in hunk)
        spans = _python_prose(list(new_side)) if python else None
        for at, (n, text, added) in enumerate(hunk):
            if not added:
                continue
            if spans is not None:
                code = _blank(text, spans[at])
            elif not python and text.lstrip().startswith(_COMMENT_START):
                code = ""
            else:
                code = text
            out.append(AddedLine(n, text, code, new_side, at))
    return out

"""Text an agent controls, made safe to show on a terminal or a page.

A file name, a reason, a command or a log line of a trial may hold terminal escape sequences (that
clear the screen, recolour the terminal, set its title or write to the clipboard), carriage
returns and backspaces (that overwrite what was printed before), bidirectional overrides (that
reorder what is shown, "Trojan Source", CVE-2021-42574), NUL, and, read with
``surrogateescape``, lone surrogates standing for bytes that are not UTF-8 (which no UTF-8 stream
can write). :func:`visible` replaces each with one visible character of one cell, so columns
keep their width and nothing is lost from sight: C0 controls and DEL become their Unicode
control pictures (U+2400-U+2421: ESC shows as ``␛``), everything else listed becomes U+FFFD
``�``. Newline and tab stay.
"""

from __future__ import annotations

REPLACEMENT = "\ufffd"


def _table() -> dict[int, str]:
    table = {c: chr(0x2400 + c) for c in range(0x20) if chr(c) not in "\n\t"}
    table[0x7F] = "\u2421"
    unsafe = [*range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A), *range(0xD800, 0xE000)]
    table.update({c: REPLACEMENT for c in unsafe})
    return table


_TABLE = _table()


def visible(text: str) -> str:
    """``text`` with controls, bidirectional overrides and lone surrogates replaced (see the module
    docstring); the result has as many characters as ``text`` and encodes as UTF-8."""
    return text.translate(_TABLE)


def from_bytes(data: bytes) -> str:
    """``data`` decoded as UTF-8, each byte that is not UTF-8 shown as ``�``, then :func:`visible`."""
    return visible(data.decode("utf-8", errors="replace"))


def ascii_json(text: str) -> str:
    """JSON ``text`` made by ``json.dumps`` (``ensure_ascii``, the default) with DEL, the one
    control character it leaves raw, escaped too (``\\u007f``): safe to print on a terminal."""
    return text.replace("\x7f", "\\u007f")

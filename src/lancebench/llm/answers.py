"""Answers that carry no content, read as answers rather than failures.

A 200 answer may hold no text: ``choices: []`` (a provider's content filter), a choice whose
``message`` is null, or ``finish_reason: content_filter``. The model was called and billed: the
agent must see an (empty) answer and the usage must be counted.

litellm turns an answer whose ``message`` is null into an ``InternalServerError`` ("Invalid
response object") that keeps the answer only in its text (``received_args={'response_object':
{...}}``); :func:`unconverted_answer` reads it back from there.
"""

from __future__ import annotations

import ast
from typing import Any

_MARKER = "'response_object': "


def empty_reason(choices: list[Any], message: Any, finish_reason: str | None, content: str,
                 tool_calls: list) -> str | None:
    """Why an answer holds neither text nor tool calls (None when it holds either):
    ``no choices``, ``null message``, ``finish_reason <reason>`` or ``no content``."""
    if not choices:
        return "no choices"
    if content.strip() or tool_calls:
        return None
    if message is None:
        return "null message"
    if finish_reason and finish_reason not in ("stop", "tool_calls", "function_call"):
        return f"finish_reason {finish_reason}"
    return "no content"


def unconverted_answer(exc: BaseException) -> dict[str, Any] | None:
    """The answer litellm could not convert (see the module docstring), as a dict with each null
    ``message`` replaced by an empty assistant message and marked ``"null_message": True`` on its
    choice; None when ``exc`` is no such failure."""
    text = str(exc)
    if "Invalid response object" not in text or _MARKER not in text:
        return None
    literal = _dict_literal(text[text.index(_MARKER) + len(_MARKER):])
    if literal is None:
        return None
    try:
        data = ast.literal_eval(literal)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    for choice in data.get("choices") or []:
        if isinstance(choice, dict) and choice.get("message") is None:
            choice["message"] = {"role": "assistant", "content": None}
            choice["null_message"] = True
    return data


def _dict_literal(text: str) -> str | None:
    """The Python dict literal ``text`` starts with (braces matched outside quoted strings)."""
    depth, quote, i = 0, "", 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[:i + 1]
        elif depth == 0:
            return None
        i += 1
    return None

"""The judge loop: a bounded conversation in which a model explores a repository snapshot with
read-only tools, then answers in a pydantic-validated structured form.

Protocol (plain text, so it works with every model, small local ones included): each reply must
hold one JSON object, optionally in a ```json fence:

- ``{"tool": "read_file", "path": "src/x.py", "start": 1}``, ``{"tool": "list_dir", "path": "."}``
  or ``{"tool": "search", "text": "def parse", "path": "."}``: the harness answers with the tool's
  output (see :class:`~lancebench.judging.snapshot.RepoSnapshot`);
- ``{"answer": {...}}``: the final answer, validated against the judge's pydantic model.

A tool's output shows the agent's repository, so it comes back as a data block
(:func:`lancebench.judging.untrusted.block`).

Bounds (:class:`Limits`): ``max_turns`` model calls, ``max_tokens`` per reply, ``max_total_tokens``
over the whole conversation (input + output, as the server reports them), ``timeout_sec`` wall
seconds for the whole judge, ``min_tool_turns`` tool calls before an answer is accepted (an
earlier answer is refused with a request to explore more), ``schema_retries`` replies out of
schema in a row that are answered with the validation error before the judge fails.

Failures raise :class:`JudgeFailed` whose ``why`` becomes the ``failed:<why>`` status:
``timeout``, ``model-error`` (the model service failed after retries), ``context`` (the
conversation outgrew the model's context window), ``schema``, ``turns``, ``tokens``.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from lancebench.errors import LancebenchError, ModelAuthError, ModelError
from lancebench.judging.snapshot import RepoSnapshot
from lancebench.judging.untrusted import block
from lancebench.llm.client import ContextWindowError, DeadlineExceeded, LLMClient
from lancebench.results.models import Usage, readable

A = TypeVar("A", bound=BaseModel)
TOOLS = ("read_file", "list_dir", "search")
_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.S)


class JudgeFailed(LancebenchError):
    """A judge could not give a valid answer; ``why`` is the short reason (``timeout``,
    ``model-error``, ``schema``, ``turns``, ``tokens``), ``detail`` the long one."""

    def __init__(self, why: str, detail: str, *, turns: int = 0, usage: Usage | None = None):
        self.why, self.detail, self.turns, self.usage = why, detail, turns, usage or Usage()
        super().__init__(f"{why}: {detail}")


@dataclass(frozen=True)
class Limits:
    """Bounds of one judge conversation (see the module docstring); seconds and tokens."""

    max_turns: int = 16
    max_tokens: int = 1024
    max_total_tokens: int = 200_000
    timeout_sec: float = 600.0
    min_tool_turns: int = 0
    schema_retries: int = 1


@dataclass
class Answered(Generic[A]):
    """A judge's accepted answer, the model calls it took (``turns``), ``tool_turns`` among them,
    the ``usage`` and the ``transcript`` (OpenAI-format messages)."""

    answer: A
    turns: int
    tool_turns: int
    usage: Usage
    transcript: list[dict[str, Any]] = field(default_factory=list)


def extract_json(text: str) -> dict | None:
    """The first JSON object in ``text``: a fenced ```json block first, else the first ``{`` that
    starts a decodable object. None when there is none."""
    for m in _FENCE.finditer(text or ""):
        try:
            value = json.loads(m.group(1))
        except (ValueError, RecursionError):  # a reply steered by the judged patch may nest past the limit
            continue
        if isinstance(value, dict):
            return value
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text or ""):
        if ch == "{":
            try:
                value, _ = decoder.raw_decode(text, i)
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict):
                return value
    return None


def converse(client: LLMClient, system: str, user: str, answer_model: type[A], limits: Limits,
             snapshot: RepoSnapshot | None = None) -> Answered[A]:
    """Run one judge conversation and return its validated answer.

    ``snapshot`` None means no tools (one-shot judging: a tool request is then out of schema).
    Raises :class:`JudgeFailed` (see the module docstring) and :class:`ModelAuthError` (the
    credentials were refused: the job must stop).
    """
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    deadline = time.monotonic() + limits.timeout_sec
    start_usage = client.usage
    turns = tool_turns = bad_in_a_row = 0

    def spent() -> Usage:
        return client.usage.since(start_usage)

    def fail(why: str, detail: str) -> JudgeFailed:
        return JudgeFailed(why, detail, turns=turns, usage=spent())

    while True:
        if turns >= limits.max_turns:
            raise fail("turns", f"no accepted answer within {limits.max_turns} model calls")
        used = spent()
        if used.input_tokens + used.output_tokens >= limits.max_total_tokens:
            raise fail("tokens",
                       f"{used.input_tokens + used.output_tokens} tokens used, budget {limits.max_total_tokens}")
        try:
            # a patch's bytes that are not UTF-8 (kept as surrogates) are sent escaped: JSON over
            # HTTP cannot carry them, and every judge call failed before it was sent (issue 20)
            reply = client.complete(readable(messages), max_tokens=limits.max_tokens, deadline=deadline)
        except ModelAuthError:
            raise
        except DeadlineExceeded as exc:
            raise fail("timeout", f"{limits.timeout_sec:.0f} s budget: {exc}") from exc
        except ContextWindowError as exc:  # the conversation outgrew the model: a limit, not an outage
            raise fail("context", str(exc)) from exc
        except ModelError as exc:
            raise fail("model-error", str(exc)) from exc
        turns += 1
        messages.append({"role": "assistant", "content": reply.content})
        obj = extract_json(reply.content)
        kind, feedback, answer = _handle(obj, answer_model, snapshot, tool_turns, limits)
        if answer is not None:
            return Answered(answer, turns, tool_turns, spent(), messages)
        tool_turns += kind == "tool"
        bad_in_a_row = bad_in_a_row + 1 if kind == "bad" else 0
        if bad_in_a_row > limits.schema_retries:
            raise fail("schema", feedback)
        messages.append({"role": "user", "content": feedback})


def _handle(obj: dict | None, answer_model: type[A], snapshot: RepoSnapshot | None, tool_turns: int,
            limits: Limits) -> tuple[str, str, A | None]:
    """``(kind, feedback for the model, the answer if accepted)``; kind is ``answer``, ``tool`` (a
    tool's output), ``explore`` (an answer before ``min_tool_turns``) or ``bad`` (out of schema)."""
    if obj is None:
        return "bad", "reply out of schema: no JSON object found. Reply with one JSON object.", None
    if "answer" in obj:
        if snapshot is not None and tool_turns < limits.min_tool_turns:
            return "explore", (f"Not yet: explore the repository first ({limits.min_tool_turns - tool_turns} more tool "
                               f"calls: read the style guide and the code around both patches), then answer."), None
        try:
            return "answer", "", answer_model.model_validate(obj["answer"])
        except ValidationError as exc:
            return "bad", f"answer out of schema: {_errors(exc)}. Send the whole answer again, fixed.", None
    tool = obj.get("tool")
    if tool is not None:
        if snapshot is None:
            return "bad", "reply out of schema: no tools in this review; reply with {\"answer\": {...}}.", None
        if tool not in TOOLS:
            return "bad", f"reply out of schema: unknown tool {str(tool)[:40]!r}; tools are {', '.join(TOOLS)}.", None
        args = {k: v for k, v in obj.items() if k != "tool"}
        return "tool", block(f"{tool} output", snapshot.call(str(tool), args)), None
    return "bad", "reply out of schema: give {\"tool\": ...} or {\"answer\": {...}}.", None


def _errors(exc: ValidationError) -> str:
    parts = []
    for e in exc.errors()[:5]:
        loc = ".".join(str(x) for x in e.get("loc", ()))
        parts.append(f"{loc or 'answer'}: {e.get('msg')}")
    return "; ".join(parts)


TOOL_HELP = """Tools (read-only, over the repository with the patch applied). Call one per reply, as one JSON object:
{"tool": "list_dir", "path": "."}
{"tool": "read_file", "path": "src/module.py", "start": 1}   (200 lines per call)
{"tool": "search", "text": "def name", "path": "."}           (fixed text, case-insensitive)
When you are done, reply with {"answer": {...}} in the format below."""

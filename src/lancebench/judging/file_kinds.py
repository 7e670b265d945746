"""The optional model step of patch bloat: a file the path rules call behavioural (see
:mod:`lancebench.judging.bloat`) is shown to the model with its diff, which may call it ``test``
(test helpers, fixtures), ``docs`` (documentation inside code files) or ``formatting`` (a
reformatting that changes no behaviour). One short conversation per file, no tools; a failed
conversation keeps the rules' answer. Used with ``--bloat-model``."""

from __future__ import annotations

import dataclasses
from typing import Literal

from pydantic import BaseModel

from lancebench.judging.bloat import Reclassify
from lancebench.judging.conversation import JudgeFailed, Limits, converse
from lancebench.judging.untrusted import block, system
from lancebench.llm.client import LLMClient

MAX_DIFF_CHARS = 6000
MAX_FILES = 20  # per patch; later files keep the rules' answer

SYSTEM = """You classify one changed file of a patch. Reply with one JSON object and nothing else:
{"answer": {"kind": "behavioural" | "test" | "docs" | "formatting"}}
behavioural: changes what the program does; test: tests, fixtures or test helpers; docs:
documentation or comments only; formatting: layout only, no change of behaviour."""


class FileKind(BaseModel):
    """The model's answer for one file."""

    kind: Literal["behavioural", "test", "docs", "formatting"]


def model_reclassifier(client: LLMClient, limits: Limits = Limits()) -> Reclassify:
    """A ``reclassify`` function for :func:`lancebench.judging.bloat.patch_bloat` that asks the
    model about each of the first :data:`MAX_FILES` file diffs it meets (answers kept per diff)."""
    one_shot = dataclasses.replace(limits, max_turns=1 + limits.schema_retries, min_tool_turns=0)
    asked: dict[tuple[str, str], str] = {}

    def reclassify(path: str, diff: str) -> str:
        if (path, diff) in asked:
            return asked[(path, diff)]
        if len(asked) >= MAX_FILES:
            return "behavioural"
        try:
            prompt = block("file name", path) + "\n" + block("diff", diff[:MAX_DIFF_CHARS])
            kind = converse(client, system(SYSTEM), prompt, FileKind, one_shot).answer.kind
        except JudgeFailed:
            kind = "behavioural"
        asked[(path, diff)] = kind
        return kind

    return reclassify

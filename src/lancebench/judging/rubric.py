"""The rubric judge (Senior SWE-Bench): scores each criterion of a task's ``rubric.json`` 0 or 1.

``rubric.json`` (in the task's ``tests/`` folder, hidden from the agent, or at the task root)::

    {"files": ["src/pkg/mod.py"],
     "fail_to_pass": [{"name": "handles-empty", "description": "..."}],
     "pass_to_pass": [{"name": "keeps-api", "description": "..."}]}

Scores (fractions of criteria met, 0..1): ``mean`` over all criteria, ``f2p`` over
``fail_to_pass``, ``p2p`` over ``pass_to_pass`` (a group without criteria has no score). An
empty rubric is ``skipped``. With an empty patch the judge scores in one shot, without tools,
from the contents of the rubric's ``files``.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from lancebench.errors import TaskError
from lancebench.judging.conversation import TOOL_HELP, JudgeFailed, Limits, converse
from lancebench.judging.refusal import LEFT_OUT, blame_refusal
from lancebench.judging.snapshot import MAX_LINES, RepoSnapshot
from lancebench.judging.untrusted import block, system
from lancebench.llm.client import LLMClient
from lancebench.results.models import JudgeRecord

ONE_SHOT_FILE_LINES = 400  # lines of each rubric file shown in a one-shot review


class Criterion(BaseModel):
    """One rubric criterion: a ``name`` unique in the rubric and what it asks (``description``)."""

    model_config = ConfigDict(extra="ignore")
    name: str = Field(min_length=1)
    description: str = ""


class Rubric(BaseModel):
    """A task's ``rubric.json`` (extra keys are ignored, as the task's own judge may use them)."""

    model_config = ConfigDict(extra="ignore")
    files: list[str] = Field(default_factory=list)
    fail_to_pass: list[Criterion] = Field(default_factory=list)
    pass_to_pass: list[Criterion] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique(self) -> Rubric:
        names = [c.name for c in self.criteria()]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"criterion names must be unique; repeated: {', '.join(dup)}")
        return self

    def criteria(self) -> list[Criterion]:
        return [*self.fail_to_pass, *self.pass_to_pass]

    def group(self, name: str) -> str:
        return "f2p" if any(c.name == name for c in self.fail_to_pass) else "p2p"


def find_task_file(task_root: Path, name: str) -> Path | None:
    """``tests/<name>``, else ``<name>`` at the task root, else the first ``tests/**/<name>`` (sorted;
    links never followed), or None."""
    for p in (task_root / "tests" / name, task_root / name):
        if p.is_file() and not p.is_symlink():
            return p
    tests = task_root / "tests"
    found = sorted(p for p in tests.rglob(name) if p.is_file() and not p.is_symlink()) if tests.is_dir() else []
    return found[0] if found else None


def find_rubric(task_root: Path) -> Path | None:
    """The task's ``rubric.json`` (see :func:`find_task_file`), or None."""
    return find_task_file(task_root, "rubric.json")


def load_rubric(path: Path) -> Rubric:
    """Read and validate a ``rubric.json``. Raises :class:`TaskError` naming the file and field."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise TaskError(path, f"not readable JSON: {exc}",
                        fix="write a JSON object with files, fail_to_pass, pass_to_pass") from exc
    try:
        return Rubric.model_validate(data)
    except ValidationError as exc:
        e = exc.errors()[0]
        raise TaskError(path, str(e.get("msg")).removeprefix("Value error, "),
                        key=".".join(str(x) for x in e.get("loc", ())) or None,
                        fix="each criterion needs a name (unique) and a description") from exc


class CriterionScore(BaseModel):
    """The judge's score of one criterion: 0 (not met) or 1 (met), with a short rationale."""

    name: str
    score: Literal[0, 1]
    rationale: str = ""


class RubricAnswer(BaseModel):
    """The rubric judge's answer: one :class:`CriterionScore` per criterion, and a summary."""

    criteria: list[CriterionScore]
    summary: str = ""


def _answer_model(expected: list[str]) -> type[RubricAnswer]:
    class Checked(RubricAnswer):
        @model_validator(mode="after")
        def _covers(self) -> Checked:
            got = [c.name for c in self.criteria]
            missing = [n for n in expected if n not in got]
            unknown = [n for n in got if n not in expected]
            if missing or unknown or len(got) != len(set(got)):
                raise ValueError(f"score every criterion exactly once: missing {missing}, unknown {unknown}")
            return self
    return Checked


def rubric_scores(rubric: Rubric, answer: RubricAnswer) -> dict[str, float]:
    """``mean``, ``f2p``, ``p2p`` (0..1) from per-criterion 0/1 scores; an empty group has no key."""
    by_name = {c.name: float(c.score) for c in answer.criteria}
    out: dict[str, float] = {}
    for key, group in (("mean", rubric.criteria()), ("f2p", rubric.fail_to_pass), ("p2p", rubric.pass_to_pass)):
        if group:
            out[key] = sum(by_name[c.name] for c in group) / len(group)
    return out


SYSTEM = """You are a senior engineer reviewing a patch against a rubric. For each criterion decide
whether the patch meets it: score 1 (met) or 0 (not met), with one sentence of rationale.
Reply with one JSON object and nothing else."""


def _prompt(instruction: str, rubric: Rubric, patch: str, files_text: str | None) -> str:
    crit = "\n".join(f"- {c.name} [{rubric.group(c.name)}]: {c.description}" for c in rubric.criteria())
    answer = json.dumps({"answer": {"criteria": [{"name": c.name, "score": 1,
                                                  "rationale": "..."} for c in rubric.criteria()],
                                    "summary": "..."}})
    parts = [f"## Task given to the engineer\n{instruction.strip()}",
             "## Patch\n" + (block("patch", patch.strip()) if patch.strip() else "(empty patch: nothing was changed)"),
             f"## Rubric criteria\n{crit}"]
    if files_text is not None:
        parts.append("## Files the rubric names (unchanged)\n" + block("files", files_text))
        parts.append("Answer now, in one reply, in this format:\n" + answer)
    else:
        parts.append(TOOL_HELP + "\nAnswer format:\n" + answer)
    return "\n\n".join(parts)


def _files_text(rubric: Rubric, snapshot: RepoSnapshot) -> str:
    out = []
    for f in rubric.files[:10]:
        if not snapshot.exists(f):
            out.append(f"{f}: not in the repository")
            continue
        pages = [snapshot.read_file(f, start) for start in range(1, ONE_SHOT_FILE_LINES + 1, MAX_LINES)]
        out.append("\n".join(pages))
    return "\n\n".join(out) or "(the rubric names no files)"


def judge_rubric(client: LLMClient, instruction: str, rubric: Rubric, patch: str, snapshot: RepoSnapshot,
                 limits: Limits = Limits()) -> JudgeRecord:
    """Score ``patch`` (a unified diff; the snapshot holds the repository with it applied) on
    ``rubric``. Returns an ``ok`` or ``skipped`` record; raises
    :class:`~lancebench.judging.conversation.JudgeFailed` (see :func:`~lancebench.judging.record.recorded`)."""
    if not rubric.criteria():
        return JudgeRecord(status="skipped", rationale="the rubric has no criteria")
    one_shot = not patch.strip()
    files_text = _files_text(rubric, snapshot) if one_shot else None
    answer_model = _answer_model([c.name for c in rubric.criteria()])
    try:
        got = converse(client, system(SYSTEM), _prompt(instruction, rubric, patch, files_text), answer_model,
                       dataclasses.replace(limits, max_turns=1 + limits.schema_retries,
                                           min_tool_turns=0) if one_shot else limits,
                       None if one_shot else snapshot)
    except JudgeFailed as exc:  # a refusal of the prompt that holds the patch gets a control (judging.refusal)
        raise blame_refusal(client, system(SYSTEM), _prompt(instruction, rubric, LEFT_OUT, files_text),
                            exc) from exc.__cause__
    details = {"criteria": [{"name": c.name, "group": rubric.group(c.name), "score": c.score, "rationale": c.rationale}
                            for c in got.answer.criteria], "one_shot": one_shot}
    return JudgeRecord(status="ok", scores=rubric_scores(rubric, got.answer), rationale=got.answer.summary,
                       details=details, turns=got.turns, usage=got.usage)

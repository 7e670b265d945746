"""The taste judge (Senior SWE-Bench): ten dimensions on anchored 1-5 scales.

*Practice alignment*, judged against the codebase: ``style_consistency``, ``pattern_adherence``,
``library_usage``, ``abstraction_level``, ``documentation_fit``. *Relative taste*, judged against
the reference patch: ``minimality``, ``approach_quality``, ``hygiene``, ``fluency``,
``craftsmanship``. Each group's score is the median of its five (``practice_alignment``,
``relative_taste``). The judge must explore the repository (style guide, code around both
patches) for :data:`MIN_TOOL_TURNS` tool calls before its answer is accepted.
"""

from __future__ import annotations

import json
import statistics

from pydantic import BaseModel, ConfigDict, Field

from lancebench.judging.conversation import TOOL_HELP, JudgeFailed, Limits, converse
from lancebench.judging.refusal import LEFT_OUT, blame_refusal
from lancebench.judging.snapshot import RepoSnapshot
from lancebench.judging.untrusted import block, system
from lancebench.llm.client import LLMClient
from lancebench.results.models import JudgeRecord

MIN_TOOL_TURNS = 3

PRACTICE: dict[str, str] = {
    "style_consistency": "1 = ignores the file's naming, formatting and idioms; 3 = mostly matches with a few "
                         "foreign habits; 5 = indistinguishable from the surrounding code",
    "pattern_adherence": "1 = invents its own structure where the codebase has a pattern; 3 = follows the main "
                         "pattern loosely; 5 = uses exactly the patterns the codebase uses for this",
    "library_usage": "1 = re-implements what the codebase or its dependencies already provide; 3 = uses some "
                     "existing helpers, misses others; 5 = reuses every fitting helper and dependency",
    "abstraction_level": "1 = far too clever or far too low-level for this codebase; 3 = acceptable, a little "
                         "off; 5 = the level of abstraction the codebase uses around it",
    "documentation_fit": "1 = docs and comments missing where the codebase documents, or noise where it does "
                         "not; 3 = partly fits; 5 = documents exactly as the codebase does",
}
RELATIVE: dict[str, str] = {
    "minimality": "1 = many changes the task does not need; 3 = some unneeded changes; 5 = as small as the "
                  "reference or smaller, nothing unneeded",
    "approach_quality": "1 = a worse approach than the reference (hacky, fragile); 3 = comparable; 5 = as good "
                        "as or better than the reference",
    "hygiene": "1 = leftovers (debug prints, dead code, stray files); 3 = minor leftovers; 5 = clean",
    "fluency": "1 = awkward, hard-to-read code; 3 = readable; 5 = as clear as the reference or clearer",
    "craftsmanship": "1 = careless (edge cases ignored, errors swallowed); 3 = careful in the main path; "
                     "5 = careful throughout, like the reference",
}
DIMENSIONS = (*PRACTICE, *RELATIVE)
STYLE_GUIDES = ("CONTRIBUTING.md", "CONTRIBUTING.rst", "CONTRIBUTING", "STYLE.md", "STYLEGUIDE.md",
                "docs/CONTRIBUTING.md", "docs/contributing.rst", "docs/style.md", ".editorconfig",
                "setup.cfg", "tox.ini", "pyproject.toml", ".flake8", "ruff.toml", ".pylintrc")


def _score() -> int:
    return Field(ge=1, le=5)


class TasteScores(BaseModel):
    """The ten dimensions, each an integer 1..5 (see the module docstring for the anchors)."""

    model_config = ConfigDict(extra="forbid")
    style_consistency: int = _score()
    pattern_adherence: int = _score()
    library_usage: int = _score()
    abstraction_level: int = _score()
    documentation_fit: int = _score()
    minimality: int = _score()
    approach_quality: int = _score()
    hygiene: int = _score()
    fluency: int = _score()
    craftsmanship: int = _score()


class TasteAnswer(BaseModel):
    """The taste judge's answer: ``scores`` and a short ``rationale``."""

    scores: TasteScores
    rationale: str = ""


def taste_scores(s: TasteScores) -> dict[str, float]:
    """The ten dimensions plus ``practice_alignment`` and ``relative_taste``, the median of each
    group of five (Senior SWE-Bench)."""
    values = {k: float(v) for k, v in s.model_dump().items()}
    values["practice_alignment"] = float(statistics.median(values[k] for k in PRACTICE))
    values["relative_taste"] = float(statistics.median(values[k] for k in RELATIVE))
    return values


SYSTEM = """You are a senior engineer judging the taste of a patch that already passes its tests.
Explore the repository first: its style guide and the code around both patches. Then score ten
dimensions on the anchored 1-5 scales given. Reply with one JSON object per message and nothing else."""


def _prompt(instruction: str, patch: str, reference: str, guides: list[str], min_tools: int) -> str:
    scales = "\n".join(f"- {k}: {v}" for k, v in PRACTICE.items())
    rel = "\n".join(f"- {k}: {v}" for k, v in RELATIVE.items())
    answer = json.dumps({"answer": {"scores": {k: 3 for k in DIMENSIONS}, "rationale": "..."}})
    return "\n\n".join([
        f"## Task\n{instruction.strip()}",
        "## Patch under review (applied in the repository)\n" + block("patch under review", patch.strip()),
        "## Reference patch (a maintainer's solution)\n"
        + block("reference patch", reference.strip() or "(none given)"),
        "## Practice alignment: judge against the codebase's own practice\n" + scales,
        "## Relative taste: judge against the reference patch\n" + rel,
        "Style guides and settings found: " + (", ".join(guides) or "none; infer the style from the code"),
        f"{TOOL_HELP}\nMake at least {min_tools} tool calls before answering. Answer format:\n{answer}",
    ])


def judge_taste(client: LLMClient, instruction: str, patch: str, reference: str, snapshot: RepoSnapshot,
                limits: Limits = Limits(min_tool_turns=MIN_TOOL_TURNS)) -> JudgeRecord:
    """Score ``patch`` against the codebase (``snapshot``, patch applied) and ``reference`` (a
    unified diff). Returns an ``ok`` record, or ``skipped`` for an empty patch; raises
    :class:`~lancebench.judging.conversation.JudgeFailed`."""
    if not patch.strip():
        return JudgeRecord(status="skipped", rationale="empty patch: no code to judge")
    guides = [g for g in STYLE_GUIDES if snapshot.exists(g)]
    try:
        got = converse(client, system(SYSTEM), _prompt(instruction, patch, reference, guides, limits.min_tool_turns),
                       TasteAnswer, limits, snapshot)
    except JudgeFailed as exc:  # a refusal of the prompt that holds the patch gets a control (judging.refusal)
        raise blame_refusal(client, system(SYSTEM), _prompt(instruction, LEFT_OUT, reference, guides,
                                                            limits.min_tool_turns), exc) from exc.__cause__
    return JudgeRecord(status="ok", scores=taste_scores(got.answer.scores), rationale=got.answer.rationale,
                       details={"tool_turns": got.tool_turns, "style_guides": guides}, turns=got.turns, usage=got.usage)

"""The validation agent (Senior SWE-Bench): behavioural tests adapted to the patch, from an expert spec.

For each story of ``validation_spec.toml`` (see :mod:`lancebench.judging.validation_spec`):

1. the model explores the patched repository (read-only tools) and writes ``check(inputs,
   expected)``, a Python function adapted to the patch's actual interfaces; lancebench wraps it in
   a pytest module that runs one test per case (:data:`WRAPPER`);
2. the script is smoke-tested on the story's first case, in a sandbox holding the patched
   repository; the model reviews the script and the smoke result once and may revise it once
   (``ok``, ``revise`` with a new script, or ``unsure``);
3. every case then runs without a model. The story ends as ``pass`` (every case passed),
   ``behavioural-fail`` (a case failed), ``script-error`` (the script did not load, errored, or
   the cases did not all run) or ``unsure`` (the model gave up or failed).

Score = passed stories / stories. The scripts live in :data:`VDIR` inside the repository; the
repository outside it is fingerprinted before the first script and after the last: a change
discards the run (:class:`ValidationInvalid`). Only the ``pytest`` driver runs; a story with any
other driver is reported as unsupported by name and makes the run :class:`ValidationInvalid`
(a harness limit, never the agent's fault), as do sandbox failures and model outages.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, model_validator

from lancebench.errors import LancebenchError, SandboxError
from lancebench.grading.junit import JUnitReport, parse_junit
from lancebench.judging.conversation import TOOL_HELP, JudgeFailed, Limits, converse
from lancebench.judging.snapshot import RepoSnapshot
from lancebench.judging.untrusted import block, review_prompt, system
from lancebench.judging.validation_spec import SUPPORTED_DRIVERS, Story, ValidationSpec
from lancebench.judging.workspace import apply_patch, changed_paths, fingerprint
from lancebench.llm.client import LLMClient
from lancebench.results.models import JudgeRecord, Usage
from lancebench.sandbox.backend import Backend, PreparedEnvironment
from lancebench.sandbox.base import Sandbox
from lancebench.sandbox.fstree import remove_tree
from lancebench.task.model import Task

VDIR = ".lancebench-validation"
CASE_TIMEOUT_SEC = 300.0
WRAPPER = '''import json as _lb_json
import pathlib as _lb_pathlib

import pytest as _lb_pytest

_LB_CASES = _lb_json.loads((_lb_pathlib.Path(__file__).parent / "cases.json").read_text())

{script}

assert callable(globals().get("check")), "the validation script defines no check(inputs, expected)"


@_lb_pytest.mark.parametrize("case", _LB_CASES, ids=[f"case{i}" for i in range(len(_LB_CASES))])
def test_case(case):
    check(case["inputs"], case["expected"])
'''
Outcome = Literal["pass", "behavioural-fail", "script-error", "unsure"]


class ValidationInvalid(LancebenchError):
    """The validation run cannot be trusted (repository changed, unsupported driver, sandbox or
    model outage): the trial is ``invalid`` with this reason. ``record`` is what to store."""

    def __init__(self, reason: str, record: JudgeRecord):
        self.record = record
        super().__init__(reason)


class ScriptAnswer(BaseModel):
    """The model's script: Python source defining ``check(inputs, expected)``."""

    script: str
    notes: str = ""


class ReviewAnswer(BaseModel):
    """The model's one review: ``ok``, ``revise`` (with the whole new ``script``) or ``unsure``, and
    ``smoke``, the smoke outcome as the harness stated it (a revise whose ``smoke`` is not the
    real outcome was steered by the code's printed output and is refused)."""

    verdict: Literal["ok", "revise", "unsure"]
    smoke: str = ""
    script: str | None = None
    reason: str = ""

    @model_validator(mode="after")
    def _script_when_revising(self) -> ReviewAnswer:
        if self.verdict == "revise" and not (self.script or "").strip():
            raise ValueError("a revise verdict needs the whole new script")
        return self


@dataclass
class StoryOutcome:
    """How one story ended: ``outcome``, a short ``detail`` and each case's result."""

    name: str
    outcome: Outcome
    detail: str
    cases: dict[str, str]

    def as_dict(self) -> dict:
        return {"name": self.name, "outcome": self.outcome, "detail": self.detail, "cases": self.cases}


SYSTEM = """You write behavioural checks for a code change. Explore the patched repository with the
tools to learn its actual interfaces, then write a Python function check(inputs, expected) that
exercises the behaviour the story describes with the given inputs and asserts the expected result.
Reply with one JSON object per message and nothing else."""


def _write_prompt(story: Story, patch: str) -> str:
    cases = json.dumps([c.model_dump() for c in story.cases], indent=1)[:6000]
    steps = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(story.procedure)) or "(none given)"
    example = json.dumps({"answer": {"script": "from pkg import f\n\ndef check(inputs, expected):\n"
                                               "    assert f(**inputs) == expected\n", "notes": "..."}})
    return "\n\n".join([
        f"## Story: {story.name}\n{story.description}", f"## Procedure\n{steps}", f"## Cases\n{cases}",
        "## Patch (applied in the repository, the working directory of the check)\n" + block("patch", patch.strip()),
        f"{TOOL_HELP}\nAnswer format (the script must define check(inputs, expected); imports allowed):\n{example}"])


def _classify(exit_code: int | None, junit: JUnitReport | None, names: list[str]) -> tuple[Outcome, str,
                                                                                          dict[str, str]]:
    """The story's outcome from pytest's exit code and JUnit report (ids ``...test_case[caseN]``)."""
    n_cases = len(names)
    if junit is None:
        return "script-error", f"no test report (exit {exit_code})", {}
    cases: dict[str, str] = {}
    for key, value in junit.cases.items():
        tail = key.rsplit("[case", 1)
        if len(tail) == 2 and tail[1].endswith("]") and tail[1][:-1].isdigit() and int(tail[1][:-1]) < n_cases:
            cases[names[int(tail[1][:-1])]] = value
    outcomes = list(cases.values())
    if len(cases) != n_cases or "error" in outcomes or "skipped" in outcomes:
        return "script-error", f"{len(cases)} of {n_cases} cases ran cleanly (exit {exit_code})", cases
    if "failed" in outcomes:
        failed = sorted(k for k, v in cases.items() if v == "failed")
        return "behavioural-fail", f"failed cases: {', '.join(failed)}", cases
    if exit_code != 0:
        return "script-error", f"pytest exit {exit_code} although every case passed", cases
    return "pass", f"{n_cases} cases passed", cases


class _Run:
    """One validation run: the sandbox, the model client and the host scratch folder."""

    def __init__(self, client: LLMClient, task: Task, env: PreparedEnvironment, sandbox: Sandbox,
                 snap: RepoSnapshot, patch: str, scratch: Path, limits: Limits):
        self.client, self.task, self.env, self.sandbox = client, task, env, sandbox
        self.snap, self.patch, self.scratch, self.limits = snap, patch, scratch, limits
        self.turns = 0

    async def ask(self, system: str, prompt: str, model: type, tools: bool):
        got: Any = await asyncio.to_thread(converse, self.client, system, prompt, model, self.limits,
                                      self.snap if tools else None)
        self.turns += got.turns
        return got.answer

    async def run_cases(self, index: int, script: str, story: Story, cases: int) -> tuple[StoryOutcome, str]:
        local = self.scratch / f"story-{index}"
        if local.exists():
            remove_tree(local)
        local.mkdir(parents=True)
        (local / "test_story.py").write_text(WRAPPER.replace("{script}", script))
        (local / "cases.json").write_text(json.dumps([c.model_dump() for c in story.cases[:cases]]))
        inside = f"{self.env.workdir}/{VDIR}/story-{index}"
        await self.sandbox.put(local, inside)
        report = f"/tmp/lancebench/v-{secrets.token_hex(8)}/junit.xml"
        res = await self.sandbox.exec(
            ["bash", "-c", 'mkdir -p "$(dirname "$1")" && exec python -m pytest -q -p no:cacheprovider -o addopts="" '
             '--confcutdir="$2" --rootdir="$2" --junitxml="$1" "$2/test_story.py"', "validate", report, inside],
            cwd=self.env.workdir, env={"PYTHONDONTWRITEBYTECODE": "1"}, timeout=CASE_TIMEOUT_SEC)
        junit = None
        try:
            await self.sandbox.get(report, local / "junit.xml")
            junit = parse_junit(local / "junit.xml")
        except (SandboxError, LancebenchError, OSError):
            junit = None
        outcome, detail, by_case = _classify(None if res.timed_out else res.exit_code, junit,
                                             [c.name for c in story.cases[:cases]])
        return StoryOutcome(story.name, outcome, detail, by_case), res.output

    async def story(self, index: int, story: Story) -> StoryOutcome:
        try:
            script = (await self.ask(system(SYSTEM), _write_prompt(story, self.patch), ScriptAnswer, True)).script
            smoke, log = await self.run_cases(index, script, story, 1)
            review = await self.ask(system(SYSTEM), review_prompt(script, smoke.outcome, smoke.detail, log),
                                    ReviewAnswer, False)
        except JudgeFailed as exc:
            if exc.why == "model-error":
                raise
            self.turns += exc.turns
            return StoryOutcome(story.name, "unsure", f"the model failed: {exc.why}: {exc.detail[:300]}", {})
        if review.verdict == "unsure":
            return StoryOutcome(story.name, "unsure", f"reviewer unsure: {review.reason[:300]}", {})
        if review.verdict == "revise" and review.script and review.smoke == smoke.outcome:
            script = review.script
        (self.scratch / f"story-{index}" / "final_script.py").parent.mkdir(parents=True, exist_ok=True)
        (self.scratch / f"story-{index}" / "final_script.py").write_text(script)
        outcome, _ = await self.run_cases(index, script, story, len(story.cases))
        return outcome


def _record(status: str, outcomes: list[StoryOutcome], turns: int, usage: Usage, rationale: str = "") -> JudgeRecord:
    passed = sum(o.outcome == "pass" for o in outcomes)
    scores = {"score": passed / len(outcomes)} if status == "ok" and outcomes else {}
    return JudgeRecord(status=status, scores=scores, rationale=rationale, turns=turns, usage=usage,
                       details={"stories": [o.as_dict() for o in outcomes]})


async def validate(client: LLMClient, task: Task, backend: Backend, env: PreparedEnvironment, patch: str,
                   spec: ValidationSpec, snapshot_dir: Path, scratch: Path, limits: Limits = Limits(),
                   labels: dict[str, str] | None = None) -> JudgeRecord:
    """Run the validation agent on ``patch`` (``snapshot_dir``: the patched repository on the host,
    for the model's tools). Returns the ``validation`` record (``skipped`` for a spec without
    stories). Raises :class:`ValidationInvalid` (see the module docstring) and
    :class:`~lancebench.errors.ModelAuthError`."""
    if not spec.stories:
        return JudgeRecord(status="skipped", rationale="the validation spec has no stories")
    start_usage = client.usage
    unsupported = [f"{s.name}: driver {s.driver!r}" for s in spec.stories if s.driver not in SUPPORTED_DRIVERS]
    if unsupported:
        refused = [StoryOutcome(s.name, "unsure", f"driver {s.driver!r} is unsupported (lancebench runs: "
                                f"{', '.join(SUPPORTED_DRIVERS)})",
                                {}) for s in spec.stories if s.driver not in SUPPORTED_DRIVERS]
        rec = _record("failed:unsupported-driver", refused, 0, Usage())
        raise ValidationInvalid("validation: unsupported driver(s): " + "; ".join(unsupported), rec)
    if scratch.exists():
        remove_tree(scratch)
    scratch.mkdir(parents=True)
    sandbox = backend.open(task, env, scratch / "sandbox", labels=labels)
    run = _Run(client, task, env, sandbox, RepoSnapshot(snapshot_dir), patch, scratch, limits)
    outcomes: list[StoryOutcome] = []
    try:
        await sandbox.start()
        await apply_patch(task, backend, sandbox, env, patch, scratch)
        before = await fingerprint(sandbox, env.workdir, VDIR, scratch / "before.txt")
        for i, story in enumerate(spec.stories):
            outcomes.append(await run.story(i, story))
        after = await fingerprint(sandbox, env.workdir, VDIR, scratch / "after.txt")
    except JudgeFailed as exc:
        rec = _record("failed:model-error", outcomes, run.turns, client.usage.since(start_usage), exc.detail[:1000])
        raise ValidationInvalid(f"validation: the model failed: {exc.detail[:300]}", rec) from exc
    except SandboxError as exc:
        rec = _record("failed:infrastructure", outcomes, run.turns, client.usage.since(start_usage), str(exc)[:1000])
        raise ValidationInvalid(f"validation: sandbox failure: {exc}", rec) from exc
    finally:
        await sandbox.stop()
    if before != after:
        changed = changed_paths(before, after)
        rec = _record("failed:discarded", outcomes, run.turns, client.usage.since(start_usage),
                      "the validation scripts changed the repository: " + "; ".join(changed))
        raise ValidationInvalid("validation discarded: its scripts changed the repository outside "
                                f"{VDIR}/ ({'; '.join(changed)[:300]})", rec)
    return _record("ok", outcomes, run.turns, client.usage.since(start_usage),
                   f"{sum(o.outcome == 'pass' for o in outcomes)} of {len(outcomes)} stories passed")

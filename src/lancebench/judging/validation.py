"""The validation agent (Senior SWE-Bench): behavioural tests adapted to the patch, from an expert spec.

For each story of ``validation_spec.toml`` (see :mod:`lancebench.judging.validation_spec`):

1. the model explores the patched repository (read-only tools) and writes ``check(inputs,
   expected)`` in the story's driver's language (Python for ``pytest``, JavaScript for ``jest``,
   Go for ``go-test``, Elixir for ``mix-test``), adapted to the patch's actual interfaces;
   lancebench wraps it in a test file of that runner with one test per case
   (:mod:`lancebench.judging.drivers`); the spec's ``instructions`` and ``stack_profile`` are
   part of the prompt;
2. the script is smoke-tested on the story's first case, in a sandbox holding the patched
   repository; the model reviews the script and the smoke result once and may revise it once
   (``ok``, ``revise`` with a new script, or ``unsure``);
3. every case then runs without a model. The story ends as ``pass`` (every case passed),
   ``behavioural-fail`` (a case failed), ``script-error`` (the script did not load, errored, or
   the cases did not all run) or ``unsure`` (the model gave up or failed).

Score = passed stories / stories. The scripts live in the drivers' folders inside the repository
(:func:`lancebench.judging.drivers.script_folders`); the repository outside them (and outside the
runners' own build output, :func:`lancebench.judging.drivers.runner_outputs`) is fingerprinted
before the first script and after the last: a change discards the run (:class:`ValidationInvalid`),
as do model outages (never the agent's fault), unless a control
shows the agent's code made the change (issue 20): the run's final scripts run again, with no
model, on the reference solution (the untouched base without one) in a fresh sandbox; when the
repository changes there too, the scripts did it and the run is discarded
(:class:`ValidationInvalid`, the control recorded); when it does not, the patched code did (code
under test writing a file at import) and validation fails as the agent's doing
(:class:`ValidationByAgent`: the trial is ``unresolved``). A story's cases may run for
``[settings] script_timeout_sec`` (default :data:`CASE_TIMEOUT_SEC`).

A sandbox failure once the patch is applied gets the same kind of control (:func:`_blame_sandbox`):
the scripts that ran, smoke runs included, run again on the reference solution (or the base) in a
fresh sandbox; it fails too -> :class:`ValidationInvalid`, it works -> the patched code broke the
sandbox (:class:`ValidationByAgent`). One before the patch is applied is the harness's, and so is
a sandbox that cannot be stopped (:data:`STOP_FAILED`: :class:`ValidationInvalid` with the stop's
error, whatever else failed before it; no control is run).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, model_validator

from lancebench.errors import LancebenchError, ModelAuthError, ModelError, ModelRefused, SandboxError
from lancebench.judging.conversation import TOOL_HELP, JudgeFailed, Limits, converse
from lancebench.judging.drivers import CaseResults, driver_for, runner_outputs, script_folders
from lancebench.judging.snapshot import RepoSnapshot
from lancebench.judging.untrusted import block, review_prompt, system
from lancebench.judging.validation_spec import Story, ValidationSpec
from lancebench.judging.workspace import apply_patch, changed_paths, fingerprint
from lancebench.llm.client import LLMClient
from lancebench.results.models import JudgeRecord, Usage
from lancebench.sandbox.backend import Backend, PreparedEnvironment
from lancebench.sandbox.base import Sandbox
from lancebench.sandbox.fstree import remove_tree
from lancebench.task.model import Task

CASE_TIMEOUT_SEC = 300.0
Outcome = Literal["pass", "behavioural-fail", "script-error", "unsure"]


#: The control of a validation run whose sandbox failed to stop: stopping is the harness's work
#: (the backend's), never the task's or the agent's, whatever ran in the sandbox before.
STOP_FAILED = "outside every sandbox: the harness could not stop the validation sandbox"


class ValidationInvalid(LancebenchError):
    """The validation run cannot be trusted (repository changed, sandbox or model outage): the
    trial is ``invalid`` with this reason. ``record`` is what to store; ``control`` what showed
    the fault is not the agent's (``TrialResult.control``)."""

    def __init__(self, reason: str, record: JudgeRecord, control: str | None = None):
        self.record = record
        self.control = control
        super().__init__(reason)


class ValidationByAgent(LancebenchError):
    """The validation run changed the repository, and a control showed the agent's patched code
    did it (the same scripts on the reference solution or the base change nothing): the trial
    is ``unresolved`` with this reason; ``record`` is what to store, ``control`` the control."""

    def __init__(self, reason: str, record: JudgeRecord, control: str):
        self.record = record
        self.control = control
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
tools to learn its actual interfaces, then write a function check(inputs, expected), in the language
the story's driver asks for, that exercises the behaviour the story describes with the given inputs
and asserts the expected result. Reply with one JSON object per message and nothing else."""


def _write_prompt(story: Story, spec: ValidationSpec, patch: str) -> str:
    driver = driver_for(story)
    cases = json.dumps([c.payload() for c in story.cases], indent=1)[:6000]
    steps = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(story.procedure)) or "(none given)"
    example = json.dumps({"answer": {"script": driver.example, "notes": "..."}})
    context = [f"## Instructions for every story\n{spec.instructions.strip()}"] if spec.instructions.strip() else []
    if spec.stack_profile is not None:
        context.append(f"## Stack profile\n{json.dumps(spec.stack_profile)[:2000]}")
    return "\n\n".join([
        *context, f"## Story: {story.name}\n{story.description}", f"## Procedure\n{steps}", f"## Cases\n{cases}",
        "## Patch (applied in the repository, the working directory of the check)\n" + block("patch", patch.strip()),
        f"{TOOL_HELP}\nDriver: {driver.name}; language: {driver.language}.\nAnswer format (the script must "
        f"define check(inputs, expected); imports allowed):\n{example}"])


def classify(exit_code: int | None, results: CaseResults | None, names: list[str]) -> tuple[Outcome, str,
                                                                                       dict[str, str]]:
    """The story's outcome from the runner's exit code (None: timed out) and each case's result as
    its driver's report gave it (:mod:`lancebench.judging.drivers`; None: no report). Every case
    must have run cleanly for a pass or a behavioural fail; anything else is a script error."""
    n_cases = len(names)
    if results is None:
        return "script-error", f"no test report (exit {exit_code})", {}
    cases = {names[i]: v for i, v in sorted(results.items()) if 0 <= i < n_cases}
    outcomes = list(cases.values())
    if len(cases) != n_cases or "error" in outcomes or "skipped" in outcomes:
        return "script-error", f"{len(cases)} of {n_cases} cases ran cleanly (exit {exit_code})", cases
    if "failed" in outcomes:
        failed = sorted(k for k, v in cases.items() if v == "failed")
        return "behavioural-fail", f"failed cases: {', '.join(failed)}", cases
    if exit_code != 0:
        return "script-error", f"the runner exited {exit_code} although every case passed", cases
    return "pass", f"{n_cases} cases passed", cases


class _Run:
    """One validation run: the sandbox, the model client and the host scratch folder."""

    def __init__(self, client: LLMClient, task: Task, env: PreparedEnvironment, sandbox: Sandbox,
                 snap: RepoSnapshot, patch: str, scratch: Path, limits: Limits, spec: ValidationSpec):
        self.client, self.task, self.env, self.sandbox, self.spec = client, task, env, sandbox, spec
        self.snap, self.patch, self.scratch, self.limits = snap, patch, scratch, limits
        self.turns = 0
        self.final: dict[int, str] = {}  # story index -> the script its cases ran with
        self.ran: dict[int, str] = {}  # story index -> the last script that ran (the smoke run's too)

    async def ask(self, system: str, prompt: str, model: type, tools: bool):
        got: Any = await asyncio.to_thread(converse, self.client, system, prompt, model, self.limits,
                                      self.snap if tools else None)
        self.turns += got.turns
        return got.answer

    async def refused(self, story: Story, exc: JudgeFailed) -> StoryOutcome:
        """The provider refused a request of ``story`` (:class:`ModelRefused`, not retried): the
        control sends the story's first prompt without the patch. Accepted -> the patch's content
        caused the refusal: the story is ``unsure`` (the agent's; attack pass after issue 20: a
        patch written to trip a content filter made validation ``invalid``). Refused too -> the
        model is at fault: :class:`JudgeFailed` (``model-error``), the trial ``invalid``."""
        messages = [{"role": "system", "content": system(SYSTEM)},
                    {"role": "user", "content": _write_prompt(story, self.spec, "")}]
        try:
            await asyncio.to_thread(self.client.complete, messages, max_tokens=16)
        except ModelAuthError:
            raise
        except ModelError as again:
            raise JudgeFailed("model-error", f"{exc.detail} (control: the same prompt without the patch is refused "
                                             f"too: {str(again)[:200]})", turns=exc.turns) from again
        return StoryOutcome(story.name, "unsure", f"the judge's provider refused the prompt that holds the patch, "
                                                  f"and accepts it without the patch (control): {exc.detail[:300]}", {})

    async def run_cases(self, index: int, script: str, story: Story, cases: int) -> tuple[StoryOutcome, str]:
        driver = driver_for(story)
        self.ran[index] = script
        local = self.scratch / f"story-{index}"
        if local.exists():
            remove_tree(local)
        local.mkdir(parents=True)
        for name, text in driver.files(script).items():
            (local / name).write_text(text)
        name, data = driver.cases([c.payload() for c in story.cases[:cases]])
        (local / name).write_bytes(data)
        inside = f"{self.env.workdir}/{driver.folder(story, self.spec)}/story-{index}"
        await self.sandbox.put(local, inside)
        report = f"/tmp/lancebench/v-{secrets.token_hex(8)}/report"
        argv, cwd = driver.command(inside, report, story, self.spec, self.env.workdir)
        res = await self.sandbox.exec(["bash", "-c", 'mkdir -p "$(dirname "$1")" && shift && exec "$@"', "validate",
                                       report, *argv], cwd=cwd, env={"PYTHONDONTWRITEBYTECODE": "1"},
                                      timeout=self.spec.script_timeout_sec(CASE_TIMEOUT_SEC))
        got: Path | None = local / "report.out"
        try:
            await self.sandbox.get(report, local / "report.out")
        except (SandboxError, OSError):
            got = None
        results = driver.read(got, res.stdout, cases)
        outcome, detail, by_case = classify(None if res.timed_out else res.exit_code, results,
                                            [c.name for c in story.cases[:cases]])
        return StoryOutcome(story.name, outcome, detail, by_case), res.output

    async def story(self, index: int, story: Story) -> StoryOutcome:
        try:
            script = (await self.ask(system(SYSTEM), _write_prompt(story, self.spec, self.patch), ScriptAnswer,
                                     True)).script
            smoke, log = await self.run_cases(index, script, story, 1)
            review = await self.ask(system(SYSTEM), review_prompt(script, smoke.outcome, smoke.detail, log),
                                    ReviewAnswer, False)
        except JudgeFailed as exc:
            if exc.why == "model-error":
                if isinstance(exc.__cause__, ModelRefused):
                    return await self.refused(story, exc)
                raise
            self.turns += exc.turns
            return StoryOutcome(story.name, "unsure", f"the model failed: {exc.why}: {exc.detail[:300]}", {})
        if review.verdict == "unsure":
            return StoryOutcome(story.name, "unsure", f"reviewer unsure: {review.reason[:300]}", {})
        if review.verdict == "revise" and review.script and review.smoke == smoke.outcome:
            script = review.script
        (self.scratch / f"story-{index}").mkdir(parents=True, exist_ok=True)
        (self.scratch / f"story-{index}" / "final_script.txt").write_text(script)
        self.final[index] = script
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
    if scratch.exists():
        remove_tree(scratch)
    scratch.mkdir(parents=True)
    sandbox = backend.open(task, env, scratch / "sandbox", labels=labels)
    run = _Run(client, task, env, sandbox, RepoSnapshot(snapshot_dir), patch, scratch, limits, spec)
    folders = script_folders(spec)
    outcomes: list[StoryOutcome] = []
    applied, failure, stage = False, None, "start"

    def record(status: str, why: str) -> JudgeRecord:
        return _record(status, outcomes, run.turns, client.usage.since(start_usage), why)

    try:
        async with sandbox:  # started, and stopped however the block ends
            try:
                stage = "run"
                await apply_patch(task, backend, sandbox, env, patch, scratch)
                applied = True  # from here on the patched code may run in the sandbox (a script imports it)
                made = await sandbox.exec(["mkdir", "-p", *folders], cwd=env.workdir)
                if not made.ok:
                    raise SandboxError(f"the validation folders could not be made: {made.output[-300:]}")
                before = await fingerprint(sandbox, env.workdir, [*folders, *runner_outputs(spec)],
                                           scratch / "before.txt")
                for i, story in enumerate(spec.stories):
                    outcomes.append(await run.story(i, story))
                after = await fingerprint(sandbox, env.workdir, [*folders, *runner_outputs(spec)],
                                          scratch / "after.txt")
            except JudgeFailed as exc:
                raise ValidationInvalid(f"validation: the model failed: {exc.detail[:300]}",
                                        record("failed:model-error", exc.detail[:1000]),
                                        "outside every sandbox: the judge model failed after the client's retries"
                                        ) from exc
            except SandboxError as exc:
                failure = exc
            finally:
                stage = "stop"
    except SandboxError as exc:  # the start's (nothing of the patch ran) or the stop's: the harness's
        if stage == "stop":
            raise ValidationInvalid(f"validation: the sandbox could not be stopped: {exc}"[:4000],
                                    record("failed:infrastructure", f"stop: {exc}"[:1000]), STOP_FAILED) from exc
        failure = exc
    if failure is not None:
        await _blame_sandbox(task, backend, env, spec, run.ran if applied else None, scratch, labels, failure, folders,
                             record)
    if before != after:
        changed = changed_paths(before, after)
        await _blame_change(task, backend, env, spec, run.final, scratch, labels, changed, folders,
                            lambda status, why: _record(status, outcomes, run.turns, client.usage.since(start_usage),
                                                        why))
    return _record("ok", outcomes, run.turns, client.usage.since(start_usage),
                   f"{sum(o.outcome == 'pass' for o in outcomes)} of {len(outcomes)} stories passed")


async def _blame_change(task: Task, backend: Backend, env: PreparedEnvironment, spec: ValidationSpec,
                        scripts: dict[int, str], scratch: Path, labels: dict[str, str] | None, changed: list[str],
                        folders: list[str], record: Any) -> None:
    """The repository changed during validation (``changed``): who did it? The control of the
    module docstring. Raises :class:`ValidationByAgent` or :class:`ValidationInvalid`
    (``record(status, rationale)`` makes the record to store)."""
    what = "; ".join(changed)[:300]
    try:
        where, again = await _rerun_scripts(task, backend, env, spec, scripts, scratch / "control", labels, folders)
    except SandboxError as exc:
        raise ValidationInvalid(f"validation discarded: the repository changed outside {', '.join(folders)} ({what})",
                                record("failed:discarded", f"changed: {what}; control failed: {exc}"),
                                f"none could run ({exc})"[:500]) from exc
    if again:
        control = f"the same scripts change the repository with {where} too ({'; '.join(again)[:200]})"
        raise ValidationInvalid(f"validation discarded: its scripts changed the repository outside "
                                f"{', '.join(folders)} ({what})", record("failed:discarded", control), control)
    control = f"the same scripts change nothing with {where}: the patched code made the change"
    raise ValidationByAgent(f"validation failed: the patched code changed the repository while validated ({what})",
                            record("failed:patch-changed-repository", control), control)


async def _blame_sandbox(task: Task, backend: Backend, env: PreparedEnvironment, spec: ValidationSpec,
                         scripts: dict[int, str] | None, scratch: Path, labels: dict[str, str] | None,
                         failure: SandboxError, folders: list[str], record: Any) -> None:
    """The validation sandbox failed (``failure``): the harness's fault or the patched code's?
    Before the patch was applied (``scripts`` None) no code of the agent had run: invalid.
    After, the control of ``runner/control.py``'s rule for the validation phase: the scripts
    that ran (``scripts``, the smoke runs' included; no model) run again on the reference
    solution (the untouched base without one) in a fresh sandbox; when that fails too, the
    environment or the engine is at fault (:class:`ValidationInvalid`, the control recorded), else
    the patched code broke the sandbox (code under test killing every process or leaving a file the
    fingerprint cannot read: :class:`ValidationByAgent`, the trial ``unresolved``). Always raises."""
    why = f"validation: sandbox failure: {failure}"
    if scripts is None:
        control = "before any of the patched code ran in the validation sandbox (its start or the patch's apply)"
        raise ValidationInvalid(why, record("failed:infrastructure", str(failure)[:1000]), control) from failure
    try:
        where, _ = await _rerun_scripts(task, backend, env, spec, scripts, scratch / "control", labels, folders)
    except SandboxError as exc:
        control = f"the same scripts fail the sandbox without the agent's patch too: {exc}"[:500]
        raise ValidationInvalid(why, record("failed:infrastructure", f"{failure}; control: {exc}"[:1000]),
                                control) from failure
    control = f"the same scripts run with {where} in a fresh sandbox: the patched code broke the sandbox"
    raise ValidationByAgent(f"validation failed: the sandbox failed with the patched code ({failure})"[:4000],
                            record("failed:patch-broke-sandbox", control), control) from failure


async def _rerun_scripts(task: Task, backend: Backend, env: PreparedEnvironment, spec: ValidationSpec,
                         scripts: dict[int, str], scratch: Path, labels: dict[str, str] | None,
                         folders: list[str]) -> tuple[str, list[str]]:
    """Run the run's final ``scripts`` (story index -> script; no model) on the
    reference solution, or the untouched base without one, in a fresh sandbox; returns (which of
    the two, the paths the scripts changed there). Raises :class:`SandboxError`."""
    from lancebench.judging.workspace import reference_patch
    reference = await reference_patch(task, backend, env, scratch / "reference", labels)
    where = "the reference solution" if reference is not None else "the untouched base"
    async with backend.open(task, env, scratch / "sandbox", labels=labels) as box:
        run = _Run(None, task, env, box, None, reference or "", scratch, Limits(), spec)  # type: ignore[arg-type]
        await apply_patch(task, backend, box, env, reference or "", scratch / "apply")
        made = await box.exec(["mkdir", "-p", *folders], cwd=env.workdir)
        if not made.ok:
            raise SandboxError(f"the validation folders could not be made: {made.output[-300:]}")
        before = await fingerprint(box, env.workdir, [*folders, *runner_outputs(spec)], scratch / "before.txt")
        for i, script in sorted(scripts.items()):
            await run.run_cases(i, script, spec.stories[i], len(spec.stories[i].cases))
        after = await fingerprint(box, env.workdir, [*folders, *runner_outputs(spec)], scratch / "after.txt")
    return where, changed_paths(before, after)

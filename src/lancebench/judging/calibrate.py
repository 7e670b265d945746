"""Calibration of a task and a judge model: can their senior grading be trusted?

For one task, ``k`` times each: the validation agent against the reference patch (it must pass:
score 1) and against an empty patch (it must fail: some story ends ``behavioural-fail``; stories
that are only unsure or script errors show a validator that cannot tell), and the rubric and taste
judges on the reference patch. Reported: how often each check held (an ``invalid`` validation
run does not hold, and its reason is kept), each judge's statuses, and the spread of each score
(min, median, max, population standard deviation over the ``ok`` runs).
"""

from __future__ import annotations

import asyncio
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from lancebench.errors import ConfigError
from lancebench.judging.record import recorded
from lancebench.judging.rubric import find_rubric, judge_rubric, load_rubric
from lancebench.judging.senior import JudgeSettings
from lancebench.judging.snapshot import RepoSnapshot
from lancebench.judging.taste import judge_taste
from lancebench.judging.validation import ValidationInvalid, validate
from lancebench.judging.validation_spec import find_spec, load_spec
from lancebench.judging.workspace import reference_patch, snapshot
from lancebench.results.models import JudgeRecord
from lancebench.sandbox.backend import Backend
from lancebench.task.model import Task


@dataclass
class Check:
    """One calibration check: ``held`` of ``runs`` times, and the reasons it did not hold."""

    name: str
    runs: int = 0
    held: int = 0
    reasons: list[str] = field(default_factory=list)

    def add(self, ok: bool, reason: str | None = None) -> None:
        self.runs += 1
        self.held += ok
        if not ok and reason:
            self.reasons.append(reason[:300])


@dataclass
class Calibration:
    """The outcome for one task: ``checks`` (validation on reference / empty patch), ``statuses``
    (judge -> status -> count) and ``scores`` (``<judge>.<score>`` -> values over ok runs)."""

    task: str
    k: int
    checks: list[Check] = field(default_factory=list)
    statuses: dict[str, dict[str, int]] = field(default_factory=dict)
    scores: dict[str, list[float]] = field(default_factory=dict)

    def record(self, name: str, rec: JudgeRecord) -> None:
        by = self.statuses.setdefault(name, {})
        by[rec.status] = by.get(rec.status, 0) + 1
        for key, value in rec.scores.items():
            self.scores.setdefault(f"{name}.{key}", []).append(value)

    def spread(self) -> dict[str, dict[str, float]]:
        """Per score: ``n``, ``min``, ``median``, ``max``, ``stdev`` (population; 0 for one value)."""
        return {name: {"n": len(v), "min": min(v), "median": statistics.median(v), "max": max(v),
                       "stdev": statistics.pstdev(v)} for name, v in sorted(self.scores.items()) if v}

    def as_dict(self) -> dict:
        return {"task": self.task, "k": self.k,
                "checks": [{"name": c.name, "runs": c.runs, "held": c.held, "reasons": c.reasons} for c in self.checks],
                "statuses": self.statuses, "spread": self.spread()}


async def _validation_checks(s: JudgeSettings, task: Task, backend: Backend, env, ref: str, snaps: dict[str, Path],
                             k: int, scratch: Path, cal: Calibration) -> None:
    spec_path = find_spec(task.paths.root)
    if spec_path is None:
        return
    spec = load_spec(spec_path)
    must_pass = Check("validation passes on the reference patch")
    must_fail = Check("validation fails on an empty patch")
    cal.checks += [must_pass, must_fail]
    for i in range(k):
        for check, patch, want_pass in ((must_pass, ref, True), (must_fail, "", False)):
            try:
                kind = "reference" if patch else "empty"
                rec = await validate(s.client(), task, backend, env, patch, spec, snaps[kind],
                                     scratch / f"validation-{i}-{kind}", s.limits)
            except ValidationInvalid as exc:
                check.add(False, f"invalid: {exc}")
                continue
            score = rec.scores.get("score")
            outcomes = [st["outcome"] for st in rec.details.get("stories", [])]
            stories = ", ".join(f"{st['name']}={st['outcome']}" for st in rec.details.get("stories", []))
            # failing on an empty patch counts only when a check caught the missing behaviour
            held = score == 1.0 if want_pass else "behavioural-fail" in outcomes
            check.add(held, f"score {score}: {stories}")


def _judge_runs(s: JudgeSettings, task: Task, ref: str, snap: Path, k: int, cal: Calibration) -> None:
    rubric_path = find_rubric(task.paths.root)
    rubric = load_rubric(rubric_path) if rubric_path else None
    for _ in range(k):
        if rubric is not None:
            cal.record("rubric", recorded(s.model, lambda: judge_rubric(s.client(), task.instruction, rubric, ref,
                                                                        RepoSnapshot(snap), s.limits)))
        cal.record("taste", recorded(s.model, lambda: judge_taste(s.client(), task.instruction, ref, ref,
                                                                  RepoSnapshot(snap), s.taste_limits)))


async def calibrate(s: JudgeSettings, task: Task, backend: Backend, k: int, scratch: Path) -> Calibration:
    """Calibrate ``task`` with the judge settings ``s`` (see the module docstring). Raises
    :class:`ConfigError` when the task has no reference solution, :class:`TaskError` for a broken
    spec or rubric, :class:`SandboxError` when the environment or the reference solution fails."""
    env = await backend.prepare(task)
    ref = await reference_patch(task, backend, env, scratch / "reference")
    if ref is None:
        raise ConfigError(f"{task.paths.root}: no solution/solve.sh, so there is no reference patch to calibrate on")
    snaps = {"reference": await snapshot(task, backend, env, ref, scratch / "snap-reference"),
             "empty": await snapshot(task, backend, env, "", scratch / "snap-empty")}
    cal = Calibration(task=task.name, k=k)
    await _validation_checks(s, task, backend, env, ref, snaps, k, scratch, cal)
    await asyncio.to_thread(_judge_runs, s, task, ref, snaps["reference"], k, cal)
    return cal

"""The files of a multi-step task's steps (Harbor's ``[[steps]]``, ``steps/<name>/``), and the
task as senior grading judges a multi-step trial (:func:`judged_as_one`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from lancebench.task.harbor import StepConfig
from lancebench.task.model import Task


def step_instruction(task: Task, step: StepConfig) -> str:
    """The instruction of ``step`` (``steps/<name>/instruction.md``)."""
    return (task.paths.root / "steps" / step.name / "instruction.md").read_text(encoding="utf-8", errors="replace")


def step_solution_dir(task: Task, step: StepConfig) -> Path | None:
    """``steps/<name>/solution`` when the step has one, else the task's ``solution/`` (Harbor's oracle)."""
    own = task.paths.root / "steps" / step.name / "solution"
    if own.is_dir():
        return own
    return task.paths.solution if task.paths.solution.is_dir() else None


def judged_as_one(task: Task, ran: list[str]) -> Task:
    """``task`` as senior grading judges a multi-step trial whose steps ``ran`` (names, in order):
    one change, the final workspace, asked for by the instructions of those steps joined in order
    under ``## Step i of n: name`` headings; its ``steps`` are those steps (the reference is their
    solutions run in order, :func:`lancebench.judging.workspace.reference_patch`). Rubric and
    validation spec stay the task's (docs/judges.md)."""
    steps = [s for name in ran for s in task.config.steps or [] if s.name == name]
    parts = [f"This change was asked for in {len(steps)} steps, in this order; the work is the result of all of them."]
    parts += [f"## Step {i} of {len(steps)}: {s.name}\n\n{step_instruction(task, s).strip()}"
              for i, s in enumerate(steps, 1)]
    config = task.config.model_copy(update={"steps": steps})
    return dataclasses.replace(task, instruction="\n\n".join(parts) + "\n", config=config)

"""A task's ``validation_spec.toml`` (Senior SWE-Bench): behaviour stories an expert wrote, each
with a procedure, test cases and the driver that runs them.

In the task's ``tests/`` folder (hidden from the agent), at the task root, or below ``tests/``::

    [[stories]]
    name = "split-by-prefix"                 # unique
    description = "split_keys splits a dict by a predicate on its keys"
    driver = "pytest"                        # the only driver lancebench runs; others are reported
    procedure = ["Import split_keys from funcy", "Call it with the inputs", "Compare both dicts"]

    [[stories.cases]]
    name = "prefix"                          # unique within the story
    inputs = { prefix = "x_", data = { x_a = 1, b = 2 } }
    expected = [{ x_a = 1 }, { b = 2 }]
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from lancebench.errors import TaskError
from lancebench.judging.rubric import find_task_file

SUPPORTED_DRIVERS = ("pytest",)


class Case(BaseModel):
    """One test case: its ``name``, the ``inputs`` and the ``expected`` outcome (any TOML values)."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    inputs: Any = None
    expected: Any = None


class Story(BaseModel):
    """One behaviour story: ``name``, ``description``, the ``driver`` that runs its cases, the
    expert's ``procedure`` (steps) and its ``cases`` (at least one)."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    description: str = ""
    driver: str = "pytest"
    procedure: list[str] = Field(default_factory=list)
    cases: list[Case] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_cases(self) -> Story:
        names = [c.name for c in self.cases]
        if len(names) != len(set(names)):
            raise ValueError(f"story {self.name!r}: case names must be unique")
        return self


class ValidationSpec(BaseModel):
    """The whole file: a list of :class:`Story` with unique names."""

    model_config = ConfigDict(extra="forbid")
    stories: list[Story] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique(self) -> ValidationSpec:
        names = [s.name for s in self.stories]
        if len(names) != len(set(names)):
            raise ValueError("story names must be unique")
        return self


def find_spec(task_root: Path) -> Path | None:
    """The task's ``validation_spec.toml``: ``tests/``, the task root, or anywhere under ``tests/``
    (:func:`lancebench.judging.rubric.find_task_file`), or None."""
    return find_task_file(task_root, "validation_spec.toml")


def load_spec(path: Path) -> ValidationSpec:
    """Read and validate a spec. Raises :class:`TaskError` naming the file, the field and the fix."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TaskError(path, f"not readable TOML: {exc}", fix="see docs/judges.md for the format") from exc
    try:
        return ValidationSpec.model_validate(data)
    except ValidationError as exc:
        e = exc.errors()[0]
        raise TaskError(path, str(e.get("msg")).removeprefix("Value error, "),
                        key=".".join(str(x) for x in e.get("loc", ())) or None,
                        fix="each story needs a unique name and at least one case with a name") from exc

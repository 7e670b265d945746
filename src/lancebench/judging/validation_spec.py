"""A task's ``validation_spec.toml`` (Senior SWE-Bench): behaviour stories an expert wrote, each
with a procedure, test cases and the driver that runs them.

In the task's ``tests/`` folder (hidden from the agent), at the task root, or below ``tests/``
(the release keeps it in ``tests/validate/``). Two shapes are read, both into :class:`ValidationSpec`:

lancebench's own::

    [[stories]]
    name = "split-by-prefix"                 # unique
    description = "split_keys splits a dict by a predicate on its keys"
    driver = "pytest"                        # pytest, jest, go-test or mix-test (DRIVERS)
    procedure = ["Import split_keys from funcy", "Call it with the inputs", "Compare both dicts"]

    [[stories.cases]]
    name = "prefix"                          # unique within the story
    inputs = { prefix = "x_", data = { x_a = 1, b = 2 } }
    expected = [{ x_a = 1 }, { b = 2 }]

and the release's, as it ships: top-level ``instructions`` (text for the validation agent),
``stack_profile`` (the stack the stories run on: any TOML value), ``[settings]`` (free-form: the
validation model, timeouts such as ``script_timeout_sec``, one table per driver configuration
such as ``[settings.jest]``), and ``[[story]]`` tables with ``id``, ``driver``, ``description``,
``procedure`` (text or a list of steps), driver keys of their own (kept in ``Story.options``)
and ``[[story.test_case]]`` tables (``inputs``, ``expected`` and any other key, kept; a case
without ``name`` is ``case<i>``); another top-level field of the release is kept in
``ValidationSpec.other``, never given to the model. A field the file gets wrong is named in the error.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from lancebench.errors import TaskError
from lancebench.judging.rubric import find_task_file

DriverName = Literal["pytest", "jest", "go-test", "mix-test"]
DRIVERS: tuple[str, ...] = get_args(DriverName)
"""Drivers the validation agent runs (:mod:`lancebench.judging.drivers`)."""


class Case(BaseModel):
    """One test case: its ``name``, the ``inputs`` and the ``expected`` outcome (any TOML values)."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    inputs: Any = None
    expected: Any = None
    extra: dict[str, Any] = Field(default_factory=dict)

    def payload(self) -> dict[str, Any]:
        """What the check gets for this case: ``inputs``, ``expected`` and the release's other keys."""
        return {**self.extra, "inputs": self.inputs, "expected": self.expected}


class Story(BaseModel):
    """One behaviour story: ``name``, ``description``, the ``driver`` that runs its cases, the
    expert's ``procedure`` (steps), its ``cases`` (at least one) and the release's driver keys
    (``options``: e.g. ``jest_config_key``)."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    description: str = ""
    driver: DriverName = "pytest"
    procedure: list[str] = Field(default_factory=list)
    cases: list[Case] = Field(min_length=1)
    options: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _unique_cases(self) -> Story:
        names = [c.name for c in self.cases]
        if len(names) != len(set(names)):
            raise ValueError(f"story {self.name!r}: case names must be unique")
        return self


class ValidationSpec(BaseModel):
    """The whole file: :class:`Story` items with unique names, the release's ``instructions``,
    ``stack_profile`` and ``settings``, and ``other``: the release's top-level fields lancebench
    does not use, kept as read (all empty for lancebench's own shape, whose unknown keys are errors)."""

    model_config = ConfigDict(extra="forbid")
    stories: list[Story] = Field(default_factory=list)
    instructions: str = ""
    stack_profile: Any = None
    settings: dict[str, Any] = Field(default_factory=dict)
    other: dict[str, Any] = Field(default_factory=dict)

    def script_timeout_sec(self, default: float) -> float:
        """Seconds one story's cases may run: ``[settings] script_timeout_sec``, else ``default``."""
        value = self.settings.get("script_timeout_sec")
        return float(value) if isinstance(value, int | float) and value > 0 else default

    @model_validator(mode="after")
    def _unique(self) -> ValidationSpec:
        names = [s.name for s in self.stories]
        if len(names) != len(set(names)):
            raise ValueError("story names must be unique")
        return self


class _ReleaseCase(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str | None = None
    inputs: Any = None
    expected: Any = None


class _ReleaseStory(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str = Field(min_length=1)
    driver: DriverName
    description: str = ""
    procedure: str | list[str] = ""
    test_case: list[_ReleaseCase] = Field(min_length=1)


class _ReleaseSpec(BaseModel):
    model_config = ConfigDict(extra="allow")  # a release field lancebench does not use is kept, never an error
    instructions: str = ""
    stack_profile: Any = None
    settings: dict[str, Any] = Field(default_factory=dict)
    story: list[_ReleaseStory] = Field(default_factory=list)


def _from_release(data: dict[str, Any]) -> dict[str, Any]:
    """The release's shape (``[[story]]``, ``id``, ``[[story.test_case]]``) as lancebench's
    (validated first, so an error names the release's own field)."""
    release = _ReleaseSpec.model_validate(data)
    stories = []
    for story in release.story:
        steps = story.procedure if isinstance(story.procedure, list) else [story.procedure.strip()]
        cases = [{"name": c.name or f"case{i}", "inputs": c.inputs, "expected": c.expected,
                  "extra": dict(c.model_extra or {})} for i, c in enumerate(story.test_case)]
        stories.append({"name": story.id, "description": story.description, "driver": story.driver,
                        "procedure": [s for s in steps if s], "cases": cases,
                        "options": dict(story.model_extra or {})})
    return {"stories": stories, "instructions": release.instructions, "stack_profile": release.stack_profile,
            "settings": release.settings, "other": dict(release.model_extra or {})}


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
    release = "story" in data or "stories" not in data and any(k in data for k in ("instructions", "settings"))
    try:
        return ValidationSpec.model_validate(_from_release(data) if release else data)
    except ValidationError as exc:
        e = exc.errors()[0]
        fix = ("each [[story]] needs an id, a driver (one of " + ", ".join(DRIVERS) + ") and at least one "
               "[[story.test_case]]" if release else
               "each story needs a unique name, a driver (one of " + ", ".join(DRIVERS) + ") and at least one "
               "case with a name")
        raise TaskError(path, str(e.get("msg")).removeprefix("Value error, "),
                        key=".".join(str(x) for x in e.get("loc", ())) or None, fix=fix) from exc

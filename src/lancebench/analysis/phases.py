"""Phases of an agent's work, one per agent step, by rules over its commands:

- ``implementation``: the step writes or removes files (redirects, ``tee``, ``sed -i``, ``cp``/
  ``mv``, ``rm``, ``patch``/``git apply``, a script fed on standard input that writes files);
- ``verification``: it runs tests (``pytest``, ``unittest``, ``tox``, ``npm test``, ``go test``,
  ``cargo test``, ``make test``...), runs a script file (``python repro.py``), or reviews the
  change (``git diff``/``git status``) after an implementation step;
- ``comprehension``: it reads the instruction, or it is a command-free step before any command;
- ``design``: a command-free step after the first command (planning in words);
- ``investigation``: everything else (listing, reading, searching the code).

A step with several commands takes the first phase of implementation, verification,
comprehension, investigation that any of them has. System and user steps have no phase.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from lancebench.analysis.findings import StepView
from lancebench.analysis.shell import SimpleCommand, simple_commands

PHASES = ("comprehension", "investigation", "design", "implementation", "verification")
_TEST_RUNNERS = {"pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "karma", "phpunit", "rspec"}
_RUNNER_SUBS = {"npm": {"test", "t"}, "yarn": {"test"}, "pnpm": {"test"}, "go": {"test"}, "cargo": {"test"},
                "make": {"test", "check"}}
_PY = re.compile(r"^(?:python(?:\d(?:\.\d+)?)?|pypy3?|node|ruby)$")
_WRITE_CODE = re.compile(r"open\([^)]*['\"][wa]\+?b?['\"]|\.write_text\(|\.write_bytes\(|writeFileSync"
                         r"|shutil\.(?:copy|move)")
_SCRATCH = ("/tmp/", "/dev/")
_QUIET = {"echo", "printf", "true", "exit", ":"}


def _writes(c: SimpleCommand) -> bool:
    targets = [p for p in (*c.writes, *c.removes) if not p.startswith(_SCRATCH) and not p.isdigit()]
    if targets or c.name in {"patch"} or (c.name == "git" and c.sub in {"apply", "am", "checkout", "restore"}):
        return True
    return bool(_PY.match(c.name) and _WRITE_CODE.search(" ".join(c.args) + "\n" + c.body))


def _verifies(c: SimpleCommand, implemented: bool) -> bool:
    if c.name in _TEST_RUNNERS or c.sub in _RUNNER_SUBS.get(c.name, ()):
        return True
    if _PY.match(c.name):
        if {"pytest", "unittest"} & set(c.args):
            return True
        first = next((a for a in c.args if not a.startswith("-")), "")
        if "-c" not in c.args and re.search(r"\.(?:py|js|mjs|rb)$", first):
            return True
    return implemented and c.name == "git" and c.sub in {"diff", "status"}


def _reads_instruction(command: str) -> bool:
    return "LANCEBENCH_INSTRUCTION" in command or "instruction.md" in command


def step_phase(step: StepView, *, commanded: bool, implemented: bool) -> str | None:
    """The phase of one step (see the module docstring); ``commanded``: a command step came before;
    ``implemented``: an implementation step came before. None for system and user steps."""
    if step.source != "agent":
        return None
    parsed = [c for command in step.commands for c in simple_commands(command)]
    active = [c for c in parsed if c.name not in _QUIET or c.writes]
    if not active:
        return "design" if commanded else "comprehension"
    if any(_writes(c) for c in active):
        return "implementation"
    if any(_verifies(c, implemented) for c in active):
        return "verification"
    if any(_reads_instruction(cmd) for cmd in step.commands):
        return "comprehension"
    return "investigation"


def trajectory_phases(steps: Iterable[StepView]) -> dict[int, str]:
    """``step_id -> phase`` for every agent step, in order."""
    out: dict[int, str] = {}
    commanded = implemented = False
    for s in steps:
        phase = step_phase(s, commanded=commanded, implemented=implemented)
        if phase is None:
            continue
        out[s.step_id] = phase
        commanded = commanded or any(c.name not in _QUIET for cmd in s.commands for c in simple_commands(cmd))
        implemented = implemented or phase == "implementation"
    return out


def phase_shares(labels: Iterable[str]) -> dict[str, float]:
    """Share of steps in each phase (fractions summing to 1; all 0.0 when there is no step), in
    the order of :data:`PHASES`."""
    counts = Counter(labels)
    total = sum(counts.values())
    return {p: (counts[p] / total if total else 0.0) for p in PHASES}

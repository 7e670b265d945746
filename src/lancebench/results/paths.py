"""Paths of a job's results folder, as frozen objects instead of strings everywhere."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class TrialPaths:
    """One trial's folder: ``result.json`` (written last, atomically), ``instruction.md``, ``patch.diff`` (as captured),
    ``agent/`` (agent logs, ``trajectory.json``), ``verifier/`` (one ``run-N/`` per verifier run:
    test.sh output, JUnit, rewards), ``artifacts/`` (when the task lists artifacts), ``usage.json``
    (the model spend so far)."""

    root: Path

    @property
    def result(self) -> Path:
        return self.root / "result.json"

    @property
    def patch(self) -> Path:
        return self.root / "patch.diff"

    @property
    def instruction(self) -> Path:
        """The instruction the agent was given (``instruction.md``, written before the agent starts)."""
        return self.root / "instruction.md"

    @property
    def graded_patch(self) -> Path:
        """The patch the verifier graded, when protected files' diffs were dropped from ``patch``."""
        return self.root / "patch.graded.diff"

    @property
    def agent(self) -> Path:
        return self.root / "agent"

    @property
    def trajectory(self) -> Path:
        return self.root / "agent" / "trajectory.json"

    @property
    def verifier(self) -> Path:
        return self.root / "verifier"

    @property
    def artifacts(self) -> Path:
        """Harbor's artifacts of the trial (``manifest.json`` and the files collected); for a
        multi-step task, per step under ``steps/<name>/artifacts/``."""
        return self.root / "artifacts"

    @property
    def error_log(self) -> Path:
        return self.root / "error.txt"

    @property
    def usage(self) -> Path:
        """The trial's model spend so far (``usage.json``, a ``Usage``), rewritten after every model
        call and when the result is recorded: it survives a crash, a cancel or a killed process."""
        return self.root / "usage.json"


@dataclass(frozen=True)
class JobPaths:
    """A job's folder: ``job.json``, ``summary.json``, ``trials/<trial_id>/``."""

    root: Path

    @property
    def job(self) -> Path:
        return self.root / "job.json"

    @property
    def summary(self) -> Path:
        return self.root / "summary.json"

    @property
    def trials(self) -> Path:
        return self.root / "trials"

    @property
    def task_errors(self) -> Path:
        return self.root / "task_errors.json"

    @property
    def grade_report(self) -> Path:
        """``lancebench grade``'s SWE-bench-style report (resolved, unresolved, empty-patch, error ids)."""
        return self.root / "grade_report.json"

    def trial(self, trial_id: str) -> TrialPaths:
        return TrialPaths(self.trials / trial_id)

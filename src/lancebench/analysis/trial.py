"""Analysis of recorded trials: the rules of :mod:`lancebench.analysis.rules` and the phases of
:mod:`lancebench.analysis.phases` over each trial's ``agent/trajectory.json``, ``patch.diff`` and
``result.json``, and their sums per configuration (:meth:`TrialResult.configuration`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from lancebench.agents.trajectory import read_trajectory
from lancebench.analysis.contamination import contamination, guided_pairs
from lancebench.analysis.findings import Finding, StepView, step_views
from lancebench.analysis.forgery import forgery_findings
from lancebench.analysis.more_rules import grader_talk_findings, package_findings
from lancebench.analysis.phases import PHASES, phase_shares, trajectory_phases
from lancebench.analysis.rules import awareness_findings, command_findings, grading_findings, patch_findings
from lancebench.results.load import JobResults
from lancebench.results.models import TrialResult
from lancebench.results.paths import TrialPaths


@dataclass
class TrialAnalysis:
    """One trial: ``findings``, ``phases`` (step_id -> phase), ``steps`` (the trajectory's
    steps; empty when the agent wrote none) and ``problem`` (why the trajectory could not be read,
    or None)."""

    result: TrialResult
    findings: list[Finding] = field(default_factory=list)
    phases: dict[int, str] = field(default_factory=dict)
    steps: list[StepView] = field(default_factory=list)
    problem: str | None = None


def read_steps(paths: TrialPaths) -> tuple[list[StepView], str | None]:
    """The trial's trajectory as steps, and a problem text when it is absent or unreadable (an
    agent's broken trajectory is reported, never raised)."""
    if not paths.trajectory.is_file():
        return [], "the agent recorded no trajectory"
    try:
        return step_views(read_trajectory(paths.trajectory)), None
    except (OSError, ValueError, ValidationError) as exc:
        return [], f"{paths.trajectory} cannot be read: {str(exc).splitlines()[0][:300]}"


def read_patch(paths: TrialPaths, limit: int = 5_000_000, *, graded: bool = False) -> str:
    """``patch.diff`` (with ``graded``: ``patch.graded.diff``, what was graded after protected
    paths were dropped, when it exists) as text, undecodable bytes replaced, cut at ``limit``
    characters; "" when absent."""
    path = paths.root / "patch.graded.diff" if graded and (paths.root / "patch.graded.diff").is_file() else paths.patch
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            return fh.read(limit)
    except OSError:
        return ""


def analyze_trial(trial_dir: Path, result: TrialResult) -> TrialAnalysis:
    """Findings and phases of one trial folder (see the module docstring)."""
    paths = TrialPaths(trial_dir)
    steps, problem = read_steps(paths)
    findings = [*awareness_findings(steps), *grader_talk_findings(steps), *command_findings(steps),
                *package_findings(steps, result.task, read_patch(paths)),
                *patch_findings(read_patch(paths), result, steps),
                *grading_findings(result, steps, read_patch(paths, graded=True)), *forgery_findings(result)]
    findings.sort(key=lambda f: (f.step_id is None, f.step_id or 0))
    return TrialAnalysis(result=result, findings=findings, phases=trajectory_phases(steps), steps=steps,
                         problem=problem)


def analyze_job(job: JobResults) -> list[TrialAnalysis]:
    """:func:`analyze_trial` for every finished trial of a job."""
    return [analyze_trial(job.path / "trials" / r.trial_id, r) for r in job.results]


def summarize(analyses: list[TrialAnalysis]) -> list[dict]:
    """Per configuration (:meth:`TrialResult.configuration`): ``agent``, ``model``, ``dataset``,
    ``settings``, ``trials``, ``trials_with_findings``,
    ``findings`` (rule -> count of trials showing it), ``phase_steps`` (agent steps classified)
    and ``phase_shares`` (phase -> share of those steps, see :func:`phase_shares`)."""
    groups: dict[tuple, list[TrialAnalysis]] = {}
    for a in analyses:
        groups.setdefault(a.result.configuration(), []).append(a)
    out = []
    for (agent, model, dataset, settings), items in groups.items():
        rules = Counter(rule for a in items for rule in {f.rule for f in a.findings})
        labels = [p for a in items for p in a.phases.values()]
        out.append({"agent": agent, "model": model, "dataset": dataset, "settings": settings, "trials": len(items),
                    "trials_with_findings": sum(bool(a.findings) for a in items), "findings": dict(rules),
                    "phase_steps": len(labels), "phase_shares": phase_shares(labels)})
    return out


def analyze_jobs(jobs: list[JobResults]) -> list[TrialAnalysis]:
    """:func:`analyze_job` for each job, in order."""
    return [a for job in jobs for a in analyze_job(job)]


def analysis_report(analyses: list[TrialAnalysis]) -> dict:
    """The whole analysis as JSON-ready data: ``configurations`` (:func:`summarize`), ``trials``
    (trial_id, job, task, agent, model, status, findings, phases, problem), ``contamination``
    (:func:`contamination`) and ``guided`` (:func:`guided_pairs`)."""
    results = [a.result for a in analyses]
    return {
        "phases": list(PHASES),
        "configurations": summarize(analyses),
        "trials": [{"trial_id": a.result.trial_id, "job": a.result.job, "task": a.result.task,
                    "agent": a.result.agent, "model": a.result.model, "status": a.result.status,
                    "findings": [f.to_dict() for f in a.findings],
                    "phases": {str(k): v for k, v in sorted(a.phases.items())}, "problem": a.problem}
                   for a in analyses],
        "contamination": contamination(results),
        "guided": guided_pairs(results),
    }

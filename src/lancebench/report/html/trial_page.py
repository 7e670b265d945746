"""What one trial page shows, read from the trial's folder: the instruction, the trajectory step by
step (with phases and findings), the patch per file, the verifier's output and test table, the
artifacts collected (Harbor's manifest), judge scores and rationales. Everything here was
written by the agent or by code it changed, so it is only ever rendered as escaped text (Jinja2
autoescape, Pygments)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from lancebench.analysis.trial import TrialAnalysis, read_patch
from lancebench.report.html.highlight import markdown, patch_files, shell
from lancebench.results.models import readable
from lancebench.results.paths import TrialPaths

FENCE = re.compile(r"```[\w+-]*[ \t]*\n(.*?)\n?```", re.S)  # a fenced code block of an agent message
MAX_TEXT = 20_000  # characters of one output or log shown on a page; the rest is cut with a note


def cut(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters, saying how many were left out."""
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit:,} more characters not shown)"


def _read(path: Path, limit: int = MAX_TEXT) -> str | None:
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            return cut(fh.read(limit + 1), limit)
    except OSError:
        return None


def instruction(paths: TrialPaths, analysis: TrialAnalysis) -> str | None:
    """The instruction: ``instruction.md`` of the trial, else the trajectory's first user step."""
    text = _read(paths.instruction, 100_000)
    if text is None:
        text = next((s.text for s in analysis.steps if s.source == "user"), None)
    return text


REPORT_FILES = 20  # files of one run's ``logs/`` shown (JUnit reports, reward files); the rest are named


def _files(folder: Path, suffixes: tuple[str, ...]) -> list[Path]:
    if not folder.is_dir() or folder.is_symlink():
        return []
    return [f for f in sorted(folder.iterdir()) if f.is_file() and not f.is_symlink() and f.suffix in suffixes]


def verifier_runs(paths: TrialPaths) -> list[dict]:
    """Each verifier run's files: ``name`` (``run-0``, ``canary``...) and ``logs`` [(file name,
    text)]: the text files at its top level (test output, apply log), then every report the
    verifier wrote under ``logs/`` (each JUnit report, reward files; at most
    :data:`REPORT_FILES`, the others named in ``more``)."""
    runs: list[dict] = []
    if not paths.verifier.is_dir():
        return runs
    for run in sorted(p for p in paths.verifier.iterdir() if p.is_dir() and not p.is_symlink()):
        reports = _files(run / "logs", (".xml", ".txt", ".json"))
        logs = [(f.name, _read(f) or "") for f in _files(run, (".log", ".txt"))]
        logs += [(f"logs/{f.name}", _read(f) or "") for f in reports[:REPORT_FILES]]
        runs.append({"name": run.name, "logs": logs, "more": [f"logs/{f.name}" for f in reports[REPORT_FILES:]]})
    return runs


def _without_commands(text: str, commands: Sequence[str]) -> str:
    """An agent message without the fenced code blocks that only repeat one of the step's
    ``commands`` (each command is shown once, under the message, with its output)."""
    wanted = {c.strip() for c in commands}
    return FENCE.sub(lambda m: "" if m.group(1).strip() in wanted else m.group(0), text).strip()


def artifacts(paths: TrialPaths) -> list[dict]:
    """One row per artifact entry collected for the trial (``artifacts/manifest.json``, then each
    step's ``steps/<name>/artifacts/manifest.json``): ``step`` ("" for the trial), ``source``,
    ``destination``, ``type``, ``status``, ``reason`` and ``notes`` (what was left out, which may
    name files the agent made). Empty when the task lists no artifacts; an unreadable manifest is
    skipped."""
    manifests = [("", paths.artifacts / "manifest.json")]
    steps = paths.root / "steps"
    if steps.is_dir() and not steps.is_symlink():
        manifests += [(d.name, d / "artifacts" / "manifest.json") for d in sorted(steps.iterdir())
                      if d.is_dir() and not d.is_symlink()]
    rows = []
    for step, manifest in manifests:
        try:
            entries = json.loads(_read(manifest, 1_000_000) or "[]")
        except ValueError:
            continue
        for e in entries if isinstance(entries, list) else []:
            if isinstance(e, dict):
                rows.append(readable({"step": step, **{k: str(e.get(k) or "") for k in
                                                       ("source", "destination", "type", "status", "reason")},
                                      "notes": cut("\n".join(map(str, e.get("notes") or [])), 4000)}))
    return rows


def judges(result) -> list[dict]:
    """One dict per judge of the trial (``TrialResult.judges``): ``name``, ``status``, ``scores``,
    ``rationale``, ``criteria`` (per-criterion or per-story records of ``details``), ``model``;
    empty when the trial was not judged."""
    out = []
    for name, j in sorted(result.judges.items()):
        items = [*j.details.get("criteria", []), *j.details.get("stories", [])]
        out.append({"name": name, "status": j.status, "scores": j.scores, "rationale": cut(j.rationale),
                    "criteria": [c for c in items if isinstance(c, dict)], "model": j.model,
                    "cost": j.usage.cost_usd, "turns": j.turns})
    return out


def trial_context(trial_dir: Path, analysis: TrialAnalysis) -> dict:
    """The template context of one trial page (see the module docstring). The instruction is given
    as text (``instruction``): the site renders each distinct one once
    (:func:`lancebench.report.html.site.instruction_file`)."""
    paths = TrialPaths(trial_dir)
    r = analysis.result
    by_step: dict[int, list] = {}
    for f in analysis.findings:
        if f.step_id is not None:
            by_step.setdefault(f.step_id, []).append(f)
    steps = [{"id": s.step_id, "source": s.source, "text": cut(s.text),
              "html": markdown(cut(_without_commands(s.text, s.commands) if s.source == "agent" else s.text)),
              "phase": analysis.phases.get(s.step_id),
              "commands": [shell(cut(c, 8000)) for c in s.commands], "outputs": [cut(o) for o in s.outputs],
              "prompt_tokens": s.prompt_tokens, "completion_tokens": s.completion_tokens,
              "timestamp": s.timestamp, "findings": by_step.get(s.step_id, [])} for s in analysis.steps]
    text = instruction(paths, analysis)
    return {"r": r, "instruction": text, "steps": steps,
            "problem": analysis.problem,
            "findings": analysis.findings, "patch": patch_files(read_patch(paths), r.dropped_paths),
            "verifier": verifier_runs(paths), "tests": sorted(r.tests.items()), "judges": judges(r),
            "artifacts": artifacts(paths),
            "quality": r.quality,
            "agent_logs": [(f.name, _read(f) or "") for f in sorted(paths.agent.glob("*.log"))
                           if f.is_file() and not f.is_symlink()] if paths.agent.is_dir() else []}

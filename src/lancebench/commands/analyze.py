"""``lancebench analyze``: findings (benchmark awareness, reward-hacking attempts) with the step
that shows each, each configuration's share of steps per phase, and the contamination check."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from lancebench.analysis.classifier import ClassifierRun, classify
from lancebench.analysis.phases import PHASES
from lancebench.analysis.trial import analysis_report, analyze_jobs
from lancebench.commands.aliases import aliased
from lancebench.commands.common import load_finished_jobs
from lancebench.errors import LancebenchError, ModelError
from lancebench.report.terminal import terminal_console
from lancebench.results.text import ascii_json

EXAMPLES = """Examples:

  lancebench analyze jobs/run-1

  lancebench analyze jobs/ --json > analysis.json

  lancebench analyze jobs/run-1 --judge-model openai/gpt-4o-mini

Rules (fast, explainable) run first; --judge-model adds a model's reading of every agent step
(phase, awareness, gaming). Rules and thresholds: docs/analysis.md."""


def analyze(
    job_dirs: list[Path] = typer.Argument(..., metavar="JOB_DIR...", help="Job folders, or folders of them."),
    as_json: bool = typer.Option(False, "--json", help="Print the whole analysis as JSON."),
    judge_model: str | None = typer.Option(None, "--judge-model", help="Also classify each agent step with this "
                                                                          "model (litellm name, or local)."),
    judge_api_base: str | None = typer.Option(None, "--judge-api-base",
                                              help="OpenAI-compatible server of --judge-model."),
) -> None:
    """Find benchmark awareness and reward-hacking attempts in trajectories, split work into phases,
    and compare solve rates on public and private tasks."""
    try:
        jobs = load_finished_jobs(job_dirs)
        analyses = analyze_jobs(jobs)
        run = _classify(analyses, judge_model, judge_api_base) if judge_model else None
        data = analysis_report(analyses)
        if run is not None:
            data["classifier"] = {"model": judge_model, "steps": run.steps, "unparsed": run.unparsed,
                                  "changed": run.changed, "usage": run.usage.model_dump()}
    except LancebenchError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from exc
    if as_json:
        sys.stdout.write(ascii_json(json.dumps(data, indent=2)) + "\n")
    else:
        render(data, terminal_console(width=None if sys.stdout.isatty() else 100))


def _classify(analyses, model: str, api_base: str | None) -> ClassifierRun:
    from lancebench.llm.client import LLMClient

    client = LLMClient(model, api_base, max_retries=2)
    run = ClassifierRun()
    try:
        for a in analyses:
            classify(a, client, run)
    except ModelError as exc:
        raise ModelError(f"--judge-model {model}: {exc} (the rules' findings are not affected; "
                         f"run without --judge-model to see them)") from exc
    return run


def _who(c: dict) -> str:
    """``agent / model`` of a configuration record, with its settings when it has any (escaped)."""
    return escape(" / ".join([c["agent"], c["model"] or "-"] + ([c["settings"]] if c.get("settings") else [])))


def render(data: dict, console: Console) -> None:
    """Print findings, phase shares and the contamination check as tables that fit 80 columns."""
    findings = Table(title="Findings", show_lines=False)
    for name in ("trial", "step", "finding", "evidence"):
        findings.add_column(name, overflow="fold")
    for t in data["trials"]:
        for f in t["findings"]:
            findings.add_row(escape(t["trial_id"]), str(f["step_id"] or "-"),
                             escape(f["title"] + ("" if f["source"] == "rules" else f" ({f['source']})")),
                             escape(f["evidence"][:160]))
    console.print(findings if findings.row_count else "No findings.")
    phases = Table(title="Share of agent steps per phase",
                   caption="phases: " + ", ".join(f"{p[:6]} = {p}" for p in PHASES if len(p) > 6)
                   + " (docs/analysis.md)")
    for name in ("agent", "model", "steps", *(p[:6] for p in PHASES)):
        phases.add_column(name, justify="left" if name in ("agent", "model") else "right", overflow="fold")
    for c in data["configurations"]:
        phases.add_row(escape(c["agent"] + (f" ({c['settings']})" if c["settings"] else "")),
                       escape(c["model"] or "-"), str(c["phase_steps"]),
                       *(f"{100 * c['phase_shares'][p]:.0f}%" if c["phase_steps"] else "-" for p in PHASES))
    console.print(phases)
    for c in data["contamination"]:
        console.print(f"{_who(c)}: public {c['x1']}/{c['n1']}, private {c['x2']}/{c['n2']}, "
                      f"difference {100 * c['diff']:+.1f} points, two-proportion p = {c['p_value']:.3g}"
                      + (" [red]WARNING: public tasks solved more often[/red]" if c["warning"] else ""),
                      highlight=False)
    for g in data["guided"]:
        console.print(f"{_who(g)}: {escape(g['task'])}: plain {g['plain_rate']}, "
                      f"guided {g['guided_rate']}: {g['reading']}", highlight=False)
    for t in data["trials"]:
        if t["problem"] and "no trajectory" not in t["problem"]:
            console.print(f"{t['trial_id']}: {escape(t['problem'])}", highlight=False)


def register(app: typer.Typer) -> None:
    """Add the ``analyze`` command to the ``lancebench`` app."""
    app.command("analyze", epilog=EXAMPLES, help=analyze.__doc__, cls=aliased("analyze"))(analyze)

"""``lancebench run``, ``show`` and ``grade``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from lancebench.commands.common import (
    backend_options,
    console,
    out,
    print_task_errors,
    run_async,
    runnable,
    select_tasks,
    slug,
)
from lancebench.errors import ConfigError, LancebenchError, ModelAuthError
from lancebench.metrics.rewards import reward_cell
from lancebench.results.models import TrialResult
from lancebench.results.paths import JobPaths
from lancebench.results.store import read_results, write_json
from lancebench.runner.executor import AgentRecipe
from lancebench.runner.job import JobOptions, run_job

if TYPE_CHECKING:
    from lancebench.judging.senior import JudgeSettings

LOCAL_MAX_STEPS = 5  # default --max-steps for -m local
STATUS_STYLE = {"resolved": "green", "unresolved": "red", "invalid": "yellow"}


def parse_agent_options(items: list[str]) -> dict:
    """``KEY=VALUE`` strings to a dict; VALUE is JSON when it parses, else the string. Raises
    :class:`ConfigError` for an item without ``=``."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--agent-option {item!r}: write KEY=VALUE, e.g. temperature=0")
        try:
            out[key.strip()] = json.loads(value)
        except ValueError:
            out[key.strip()] = value
    return out


def judge_settings(model: str | None, api_base: str | None, taste_min: float = 3.0, rubric_min: float | None = None,
                   max_turns: int = 16, max_tokens: int = 1024, timeout_sec: float = 600.0,
                   bloat_model: bool = False) -> JudgeSettings | None:
    """Senior grading settings from ``--judge-model``, the thresholds and the bounds of each judge
    conversation (model calls, tokens per reply, seconds); None without a model."""
    if not model:
        return None
    from lancebench.judging.senior import JudgeSettings, judge_limits
    from lancebench.judging.verdict import Thresholds
    from lancebench.llm.client import is_local_model
    if is_local_model(model) and api_base:
        raise ConfigError(f"--judge-model {model} starts its own server: do not give --judge-api-base with it")
    limits, taste_limits = judge_limits(max_turns, max_tokens, timeout_sec)
    return JudgeSettings(model=model, api_base=api_base, thresholds=Thresholds(taste_min, rubric_min),
                         limits=limits, taste_limits=taste_limits, bloat_model=bloat_model)


def summarize(results: list[TrialResult]) -> dict:
    """The job summary (see :func:`lancebench.metrics.summarize`)."""
    from lancebench.metrics import summarize as metrics_summarize
    return metrics_summarize(results)


def judges_cell(r: TrialResult) -> str:
    """Senior grading of one trial in a few words: validation score, rubric mean, taste medians
    (practice/relative), each judge's status when not ok, and the tasteful flag."""
    parts = []
    for name, key in (("validation", "score"), ("rubric", "mean")):
        rec = r.judges.get(name)
        if rec is not None:
            parts.append(f"{name} {rec.scores[key]:.2g}" if rec.ok else f"{name} {rec.status}")
    taste = r.judges.get("taste")
    if taste is not None:
        parts.append(f"taste {taste.scores['practice_alignment']:g}/{taste.scores['relative_taste']:g}" if taste.ok
                     else f"taste {taste.status}")
    if r.quality is not None and r.quality.tasteful is not None:
        parts.append("tasteful" if r.quality.tasteful else "not tasteful")
    return ", ".join(parts)


def results_table(results: list[TrialResult], title: str) -> Table:
    table = Table(title=title)
    judged = any(r.judges for r in results)
    for col in ("task", "try", "status", "reward", "model $", "time", *(("judges",) if judged else ()), "reason"):
        table.add_column(col, overflow="fold")
    for r in sorted(results, key=lambda r: (r.task, r.attempt)):
        cost = "?" if r.usage.cost_usd is None else f"{r.usage.cost_usd:.4f}"
        table.add_row(escape(r.task), str(r.attempt), f"[{STATUS_STYLE[r.status]}]{r.status}[/]",
                      escape(reward_cell(r.rewards)), cost, f"{r.timings.total_sec:.1f}s",
                      *((escape(judges_cell(r)),) if judged else ()), escape((r.reason or "")[:120]))
    return table


def print_summary(summary: dict) -> None:
    keys = ("trials", "resolved", "unresolved", "invalid", "invalid_rate", "pass_at_1", "earned_usd", "available_usd",
            "earn_rate", "cost_usd")
    parts = []
    for k in keys:
        v = summary.get(k)
        if v is None:
            parts.append(f"{k}=n/a")
        elif isinstance(v, float):
            parts.append(f"{k}={v:,.2f}" if k.endswith("_usd") else f"{k}={v:.1%}" if k in ("pass_at_1", "earn_rate",
                                                                                            "invalid_rate")
                         else f"{k}={v:.4g}")
        else:
            parts.append(f"{k}={v}")
    out.print("  ".join(parts), highlight=False)
    from lancebench.report.render import quality_line
    line = quality_line(summary)
    if line:
        out.print(line, highlight=False)
    for note in summary.get("notes", []):
        if note.startswith("warning: invalid rate"):
            out.print(f"[yellow]{escape(note)}[/]", highlight=False)


def _summary(results: list[TrialResult]) -> dict:
    """The job summary, with SWE-Lancer's per-variant numbers (IC, manager, both) when they apply."""
    summary = summarize(results)
    from lancebench.report.swelancer import is_swelancer, variant_breakdown
    if is_swelancer(results):
        summary["by_variant"] = variant_breakdown(results)
    return summary


def _print(results: list[TrialResult], summary: dict, title: str) -> None:
    out.print(results_table(results, title))
    if "by_variant" in summary:
        from lancebench.report.swelancer import breakdown_table
        out.print(breakdown_table(summary["by_variant"]))
    print_summary(summary)


def _finish(job_paths: JobPaths, results: list[TrialResult]) -> dict:
    summary = _summary(results)
    write_json(job_paths.summary, summary)
    _print(results, summary, f"job {job_paths.root.name}")
    out.print(f"results: {job_paths.root}")
    return summary


async def _run(tasks, opts: JobOptions, errors) -> list[TrialResult]:
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=False) as progress:
        bar = progress.add_task(f"{opts.name}", total=len(tasks) * opts.attempts)
        from lancebench.runner.job import plan
        _, kept = plan(tasks, opts)
        progress.update(bar, advance=len(kept))

        def on_result(r: TrialResult) -> None:
            progress.update(bar, advance=1)
            progress.console.print(f"  {r.task} #{r.attempt}: [{STATUS_STYLE[r.status]}]{r.status}[/]"
                                   + (f" ({escape(r.reason[:100])})" if r.reason else ""), highlight=False)

        return await run_job(tasks, opts, on_result=on_result, task_errors=errors)


REPO_PATH_HELP = ("SWE-Lancer manager tasks: a clone of Expensify/App; the agent browses it at the parent of each "
                  "task's manager_commit (local backend).")
JUDGE_MODEL_HELP = ("Senior grading (validation agent, rubric and taste judges) with this model: any litellm name, "
                    "or local. See docs/judges.md.")
AGENT_OPTION_HELP = ('Agent option KEY=VALUE (VALUE read as JSON when it parses), e.g. --ao temperature=0 '
                     '--ao \'prices={"input": 0.5, "output": 1.5}\' (repeatable).')


HELP = {  # the run command's option help, by parameter
    "path": "A task folder or a folder of tasks (repeatable).",
    "dataset": "A dataset name, e.g. mini, mini:public, swelancer:manager.",
    "agent": "oracle, nop, random, script:PATH, mini-swe-agent, or module:Class.",
    "model": "Model for LLM agents: provider/name, or local[:/path.gguf].",
    "api_base": "Base URL of an OpenAI-compatible server.",
    "attempts": "Attempts per task (for pass@k).",
    "concurrency": "Trials at once.",
    "jobs_dir": "Where job folders go.",
    "job_name": "Job folder name (default: from source, agent, model).",
    "task_glob": "Only tasks whose name matches (glob, repeatable).",
    "limit": "At most this many tasks.",
    "backend": "Sandbox backend: local (bubblewrap) or docker.",
    "executor": "local (this process) or ray.",
    "ray_address": "Ray cluster address (with --executor ray).",
    "retry_invalid": "Rerun trials recorded as invalid.",
    "agent_timeout": "Agent wall-time budget in seconds (default: task.toml).",
    "max_steps": "LLM agents: step limit (default 50; 5 with -m local).",
    "max_cost": "LLM agents: cost limit per trial (USD).",
    "seed": "Seed for the random agent.",
    "source": "Adapter input (e.g. the SWE-Lancer CSV).",
    "ca_bundle": "CA bundle passed into environment builds (corporate proxies).",
    "judge_api_base": "Base URL of an OpenAI-compatible server for --judge-model.",
    "taste_min": "Tasteful solve: least median of each taste group (1-5).",
    "rubric_min": "Tasteful solve: least rubric mean (0-1); default none.",
    "judge_max_turns": "Model calls per judge conversation.",
    "judge_max_tokens": "Tokens per judge reply.",
    "judge_timeout": "Seconds per judge conversation.",
    "bloat_model": ("Patch bloat: the judge model may reclassify files the path rules call behavioural (tests, docs, "
                    "formatting)."),
}


def _agent_name(agent: str | None, model: str | None) -> str:
    """``-a AGENT``, or mini-swe-agent when only ``-m MODEL`` is given. Raises ConfigError without either."""
    if agent is not None:
        return agent
    if model is None:
        raise ConfigError("pass -a AGENT (oracle, nop, script:PATH, ...) or -m MODEL (runs mini-swe-agent)")
    return "mini-swe-agent"


def _agent_options(agent: str, model: str | None, max_steps: int | None, max_cost: float | None, seed: int,
                   agent_option: list[str]) -> dict[str, Any]:
    """The agent's options from ``--max-steps``, ``--max-cost`` (USD), ``--seed`` and ``--ao KEY=VALUE``."""
    if max_steps is None and agent == "mini-swe-agent" and (model or "").split(":")[0] == "local":
        max_steps = LOCAL_MAX_STEPS  # a 135M model on a CPU: a short loop is all it can use
    options: dict[str, Any] = {k: v for k, v in {"max_steps": max_steps, "max_cost": max_cost}.items()
                               if v is not None}
    options.update(parse_agent_options(agent_option))
    if agent == "random":
        options["seed"] = seed
    return options


def _sources(path: list[Path] | None, dataset: str | None, repo_path: Path | None) -> list[str]:
    """What the job ran on, as recorded in ``job.json``."""
    return ([str(p) for p in path or []] + ([dataset] if dataset else [])
            + ([f"--repo-path {repo_path.resolve()}"] if repo_path else []))


def run(
    path: list[Path] | None = typer.Option(None, "-p", "--path", help=HELP["path"]),
    dataset: str | None = typer.Option(None, "-d", "--dataset", help=HELP["dataset"]),
    agent: str | None = typer.Option(None, "-a", "--agent", help=HELP["agent"]),
    model: str | None = typer.Option(None, "-m", "--model", help=HELP["model"]),
    api_base: str | None = typer.Option(None, "--api-base", help=HELP["api_base"]),
    attempts: int = typer.Option(1, "-k", "--attempts", min=1, help=HELP["attempts"]),
    concurrency: int = typer.Option(1, "-n", "--concurrency", min=1, help=HELP["concurrency"]),
    jobs_dir: Path = typer.Option(Path("jobs"), "-o", "--jobs-dir", help=HELP["jobs_dir"]),
    job_name: str | None = typer.Option(None, "--job-name", help=HELP["job_name"]),
    task_glob: list[str] | None = typer.Option(None, "-t", "--task", help=HELP["task_glob"]),
    limit: int | None = typer.Option(None, "-l", "--limit", min=1, help=HELP["limit"]),
    backend: str = typer.Option("local", "--backend", help=HELP["backend"]),
    executor: str = typer.Option("local", "--executor", help=HELP["executor"]),
    ray_address: str | None = typer.Option(None, "--ray-address", help=HELP["ray_address"]),
    retry_invalid: bool = typer.Option(False, "--retry-invalid", help=HELP["retry_invalid"]),
    agent_timeout: float | None = typer.Option(None, "--agent-timeout", help=HELP["agent_timeout"]),
    max_steps: int | None = typer.Option(None, "--max-steps", help=HELP["max_steps"]),
    max_cost: float | None = typer.Option(None, "--max-cost", help=HELP["max_cost"]),
    seed: int = typer.Option(0, "--seed", help=HELP["seed"]),
    source: Path | None = typer.Option(None, "--source", help=HELP["source"]),
    repo_path: Path | None = typer.Option(None, "--repo-path", help=REPO_PATH_HELP),
    ca_bundle: Path | None = typer.Option(None, "--ca-bundle", help=HELP["ca_bundle"]),
    judge_model: str | None = typer.Option(None, "--judge-model", help=JUDGE_MODEL_HELP),
    judge_api_base: str | None = typer.Option(None, "--judge-api-base", help=HELP["judge_api_base"]),
    taste_min: float = typer.Option(3.0, "--taste-min", help=HELP["taste_min"]),
    rubric_min: float | None = typer.Option(None, "--rubric-min", help=HELP["rubric_min"]),
    judge_max_turns: int = typer.Option(16, "--judge-max-turns", min=2, help=HELP["judge_max_turns"]),
    judge_max_tokens: int = typer.Option(1024, "--judge-max-tokens", min=16, help=HELP["judge_max_tokens"]),
    judge_timeout: float = typer.Option(600.0, "--judge-timeout", min=1, help=HELP["judge_timeout"]),
    bloat_model: bool = typer.Option(False, "--bloat-model", help=HELP["bloat_model"]),
    agent_option: list[str] | None = typer.Option(None, "--agent-option", "--ao", help=AGENT_OPTION_HELP),
) -> None:
    """Run an agent on tasks; one results folder per job. Running the same command again resumes.

    Examples:
      lancebench run -d mini -a oracle
      lancebench run -d mini -m local --max-steps 10
      lancebench run -p tests/fixtures/tasks/calc -a script:my_agent.sh -k 3 -n 2
    """
    backend_opts = backend_options(ca_bundle, repo_path)
    try:
        agent = _agent_name(agent, model)
        tasks, errors, label = select_tasks(path, dataset, task_glob, limit, source, repo_path)
        tasks, errors = runnable(tasks, errors, backend)
        print_task_errors(errors)
        if not tasks:
            raise ConfigError("no tasks selected" + (" (every task had errors)" if errors else ""))
        options = _agent_options(agent, model, max_steps, max_cost, seed, agent_option or [])
        opts = JobOptions(name=job_name or slug(label, agent, model), jobs_dir=jobs_dir,
                          agent=AgentRecipe(agent, model=model, api_base=api_base, options=options),
                          attempts=attempts, concurrency=concurrency, backend=backend, backend_options=backend_opts,
                          executor=executor, executor_options={"address": ray_address} if ray_address else {},
                          retry_invalid=retry_invalid, agent_timeout_sec=agent_timeout,
                          sources=_sources(path, dataset, repo_path),
                          task_filters=list(task_glob or []), limit=limit,
                          senior=judge_settings(judge_model, judge_api_base, taste_min, rubric_min, judge_max_turns,
                                                judge_max_tokens, judge_timeout, bloat_model))
        opts.agent.build()  # fail on a bad agent name before any sandbox is built
        from lancebench.runner.model_session import model_session
        with model_session(opts) as opts:
            results = run_async(_run(tasks, opts, errors))
    except ModelAuthError as exc:
        console.print(f"[red]stopped:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(3) from None
    except LancebenchError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None
    _finish(JobPaths(opts.jobs_dir / opts.name), results)
    if errors:
        raise typer.Exit(1)


def show(job_dir: Path = typer.Argument(..., help="A job folder made by `lancebench run`."),
         as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON.")) -> None:
    """Print a job's summary and trials.

    Example: lancebench show jobs/mini__oracle --json
    """
    try:
        results = read_results(job_dir)
    except LancebenchError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None
    summary = _summary(results)
    if as_json:
        print(json.dumps(summary, indent=2, default=str))
        return
    _print(results, summary, f"job {job_dir.name}")


def grade(
    path: list[Path] = typer.Option(..., "-p", "--path", help="Task folders (instance_id = task folder name)."),
    predictions: Path = typer.Option(..., "--predictions", help="SWE-bench predictions: JSON or JSONL."),
    jobs_dir: Path = typer.Option(Path("jobs"), "-o", "--jobs-dir", help="Where job folders go."),
    job_name: str | None = typer.Option(None, "--job-name", help="Job folder name (default: from tasks and model)."),
    concurrency: int = typer.Option(1, "-n", "--concurrency", min=1, help="Trials at once."),
    backend: str = typer.Option("local", "--backend", help="Sandbox backend: local or docker."),
) -> None:
    """Grade given patches (SWE-bench predictions format) exactly as agent trials are graded.

    Example: lancebench grade -p tasks/ --predictions preds.jsonl
    """
    from lancebench.agents.replay import PatchAgent, read_predictions
    try:
        records = read_predictions(predictions)
        tasks, errors, label = select_tasks(path, None, None, None)
        tasks, errors = runnable(tasks, errors, backend)
        print_task_errors(errors)
        by_model: dict[str, dict[str, str]] = {}
        for rec in records:
            patches = by_model.setdefault(str(rec["model_name_or_path"]), {})
            if str(rec["instance_id"]) in patches:
                raise ConfigError(f"{predictions}: two predictions of model {rec['model_name_or_path']!r} for "
                                  f"{rec['instance_id']}; keep one")
            patches[str(rec["instance_id"])] = rec["model_patch"]
        known = {t.name for t in tasks}
        unknown = sorted({i for patches in by_model.values() for i in patches} - known)
        if unknown:
            console.print(f"[red]error:[/red] {len(unknown)} prediction(s) name no task under -p: "
                          f"{', '.join(unknown[:10])}")
            if len(unknown) == sum(len(p) for p in by_model.values()):
                raise ConfigError(f"{predictions}: no instance_id matches a task folder name under "
                                  f"{', '.join(map(str, path))}")
        for model_name, patches in by_model.items():
            chosen = [t for t in tasks if t.name in patches]
            missing = len(tasks) - len(chosen)
            if missing:
                console.print(f"[yellow]note:[/yellow] {missing} of {len(tasks)} task(s) under -p have no "
                              f"prediction of "
                              f"{model_name!r}: not graded, not counted")
            opts = JobOptions(name=job_name or slug(label, "predictions", model_name), jobs_dir=jobs_dir,
                              agent=AgentRecipe("predictions", model=model_name, instance=PatchAgent(patches)),
                              concurrency=concurrency, backend=backend, sources=[str(predictions)])
            results = run_async(_run(chosen, opts, errors))
            _finish(JobPaths(jobs_dir / opts.name), results)
    except LancebenchError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None
    if unknown or errors:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("run")(run)
    app.command("show")(show)
    app.command("grade")(grade)

"""``lancebench run`` and ``grade`` (``show`` is :mod:`lancebench.commands.show`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from lancebench.commands.aliases import aliased
from lancebench.commands.common import (
    EXIT_SKIPPED,
    backend_options,
    console,
    fail,
    out,
    print_task_errors,
    run_async,
    runnable,
    select_tasks,
    slug,
)
from lancebench.commands.dry_run import print_plan
from lancebench.commands.preflight import (
    check_agent,
    check_backend,
    check_executor,
    check_input_file,
    check_job_name,
    check_local_network,
    check_model,
    check_output_folder,
    cpu_warnings,
    load_env_file,
)
from lancebench.commands.progress_lines import Display
from lancebench.commands.settings import RunSettings, applicable_options, job_settings, read_job_file, recorded_settings
from lancebench.commands.show import Selection, indexed_summary, print_indexed
from lancebench.commands.status import JobStatus
from lancebench.errors import ConfigError, LancebenchError, RunStopped
from lancebench.results.load import open_job
from lancebench.results.models import TrialResult
from lancebench.results.paths import JobPaths
from lancebench.results.store import atomic_write, write_json
from lancebench.runner.executor import AgentRecipe
from lancebench.runner.job import JobOptions, check_job, run_job
from lancebench.task.timeouts import scale_timeouts

if TYPE_CHECKING:
    from lancebench.judging.senior import JudgeSettings

LOCAL_MAX_STEPS = 5  # default --max-steps for -m local


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


def record_settings(paths: JobPaths, settings: RunSettings) -> None:
    """Write ``JOB/job.yaml``: the settings of this run as a job file (:func:`recorded_settings`,
    naming this job folder), before any trial starts, so that ``lancebench resume JOB`` (or
    ``run -c JOB/job.yaml``) can finish an interrupted run."""
    import yaml
    paths.root.mkdir(parents=True, exist_ok=True)
    data = {**recorded_settings(settings), "jobs_dir": str(paths.root.parent.absolute()), "job_name": paths.root.name}
    atomic_write(paths.root / "job.yaml", yaml.safe_dump(data, sort_keys=False))


def fresh_job_name(jobs_dir: Path, name: str) -> str:
    """``name`` when ``jobs_dir/name`` does not exist, else the first free ``name-2``, ``name-3``, ..."""
    candidate, n = name, 1
    while (jobs_dir / candidate).exists():
        n += 1
        candidate = f"{name}-{n}"
    return candidate


def _finish(job_paths: JobPaths) -> dict:
    """Read the job back through its index (every trial any run planned), write ``summary.json``,
    print it as ``lancebench show`` does (the summary, a page of trials)."""
    with open_job(job_paths.root) as job:
        summary = indexed_summary(job, Selection())
        summary.pop("exclusion_rule")
        write_json(job_paths.summary, summary)
        print_indexed(job, summary, Selection())
    out.print(f"results: {job_paths.root}")
    return summary


async def _run(tasks, opts: JobOptions, errors, display: Display | None = None,
               with_kept: bool = True, planned: tuple | None = None) -> list[TrialResult]:
    """Run the job, showing it on standard error as ``display`` says (a live status on a terminal,
    plain lines off one: :mod:`lancebench.commands.progress_lines`); returns the job's results, the
    kept ones only ``with_kept`` (:func:`lancebench.runner.job.run_job`). ``planned``: the plan of
    these options when the caller has it (:func:`lancebench.runner.job.plan`), shown as it is."""
    from lancebench.runner.job import plan
    todo, kept = planned or plan(tasks, opts)
    console.print(f"job {opts.jobs_dir / opts.name}: {len(todo) + len(kept)} trial(s), {len(kept)} already recorded, "
                  f"{len(todo)} to run, {opts.concurrency} at a time", highlight=False, soft_wrap=True)
    status = JobStatus(len(todo) + len(kept), kept, opts.concurrency)
    with (display or Display()).show(status, console) as on_result:
        results = await run_job(tasks, opts, on_result=on_result, task_errors=errors, with_kept=with_kept)
    console.print(status.headline(), highlight=False, soft_wrap=True)
    return results


def agent_help() -> str:
    """The help of ``-a``: every agent name the registry knows (:mod:`lancebench.agents.registry`:
    the built-in agents without a model, the model agents including the installed ones such as
    Claude Code and Codex), read from it so that a new agent shows up by itself."""
    from lancebench.agents.registry import BUILTIN, INSTALLED, LLM_AGENTS
    own = [name for name in LLM_AGENTS if name not in INSTALLED]
    return (f"The agent. Without a model: {', '.join(BUILTIN)}, script:PATH. With -m: {', '.join(own)}; installed "
            f"agents: {', '.join(INSTALLED)} (docs/agents.md). Your own: module:Class.")


HELP = {  # the run command's option help, by parameter
    "config": "A job file (YAML; docs/cli.md): tasks, agents x models, attempts, limits. Flags override it.",
    "path": "A task folder or a folder of tasks (repeatable).",
    "dataset": "A dataset name, e.g. mini, mini:public, swelancer:manager.",
    "agent": agent_help(),
    "model": "Model for LLM agents: provider/name, or local[:/path.gguf].",
    "api_base": "Base URL of an OpenAI-compatible server.",
    "attempts": "Attempts per task (for pass@k; default 1).",
    "concurrency": "Trials at once (default 1).",
    "jobs_dir": "Where job folders go (default jobs/).",
    "job_name": "Job folder name (default: from source, agent, model).",
    "new_job": "Start a new job folder (NAME-2, NAME-3, ...) when NAME exists.",
    "task_glob": "Only tasks whose name matches (glob, repeatable).",
    "exclude": "Leave out tasks whose name matches (glob, repeatable), after -t.",
    "limit": "At most this many tasks.",
    "backend": "Sandbox backend: local (bubblewrap, default) or docker.",
    "executor": "local (this process, default) or ray.",
    "ray_address": "Ray cluster address (with --executor ray).",
    "retry_invalid": "Rerun trials recorded as invalid.",
    "lenient": "Ignore task.toml keys unknown to Harbor's task model instead of refusing the task "
               "(tasks written for another Harbor version; `tasks validate --lenient` lists them).",
    "agent_timeout": "Agent wall-time budget in seconds, > 0 (default: task.toml).",
    "max_steps": "LLM agents: step limit, > 0 or 'unlimited' (default 50; 5 with -m local; installed agents: "
                 "model calls, held by the gateway, no default).",
    "max_cost": "LLM agents: cost limit per trial (USD), > 0 or 'unlimited' (default 3; installed agents: "
                "held by the gateway, no default).",
    "seed": "Seed for the random agent (default 0); attempt i draws with the seed and i.",
    "source": "Adapter input (e.g. the SWE-Lancer CSV).",
    "repo_path": ("SWE-Lancer manager tasks: a clone of Expensify/App; the agent browses it at the parent of each "
                  "task's manager_commit (local backend)."),
    "ca_bundle": "CA bundle passed into environment builds (corporate proxies).",
    "verifier_network": ("harbor (default) or none: none gives no network to the verifier of a Harbor task that "
                         "declares none (Harbor gives it the public network; a network the task declares stays)."),
    "judge_model": ("Senior grading (validation agent, rubric and taste judges) with this model: any litellm name, "
                    "or local. See docs/judges.md."),
    "judge_api_base": "Base URL of an OpenAI-compatible server for --judge-model.",
    "taste_min": "Tasteful solve: least median of each taste group (1-5; default 3).",
    "rubric_min": "Tasteful solve: least rubric mean (0-1); default none.",
    "judge_max_turns": "Model calls per judge conversation (default 16).",
    "judge_max_tokens": "Tokens per judge reply (default 1024).",
    "judge_timeout": "Seconds per judge conversation (default 600).",
    "bloat_model": ("Patch bloat: the judge model may reclassify files the path rules call behavioural (tests, docs, "
                    "formatting)."),
    "max_total_cost": "Model spend for the whole job (USD), > 0: the job stops there, the rest resumable.",
    "max_total_tokens": "Input + output tokens for the whole job, > 0: the job stops there, the rest resumable.",
    "max_invalid_rate": "Stop the job when more than this fraction (0-1) of its finished trials are invalid.",
    "invalid_rate_min_trials": "Trials that must finish before --max-invalid-rate is judged (default 5).",
    "max_calls_in_flight": "Model calls at once per model (they also back off together on 429s).",
    "timeout_multiplier": "Multiply every phase timeout (environment build, agent, verifier, ...) by this (> 0; "
                          "Harbor's name). Part of the job's configuration.",
    "dry_run": "Print the resolved configuration and the planned trials, then exit: no sandbox, no model.",
    "env_file": "A .env file (KEY=VALUE lines) loaded into the environment first: API keys for agents and "
                "models. Its values override the environment's and are never written into the job.",
    "quiet": "No per-trial progress: only the start line and the results.",
    "heartbeat": "Off a terminal: seconds between status lines while trials run (default 60).",
    "agent_option": ('Agent option KEY=VALUE (VALUE read as JSON when it parses), e.g. --ao temperature=0 '
                     '--ao \'prices={"input": 0.5, "output": 1.5}\' (repeatable).'),
}


def run(
    config: Path | None = typer.Option(None, "-c", "--config", help=HELP["config"]),
    path: list[Path] | None = typer.Option(None, "-p", "--path", help=HELP["path"]),
    dataset: str | None = typer.Option(None, "-d", "--dataset", help=HELP["dataset"]),
    agent: str | None = typer.Option(None, "-a", "--agent", help=HELP["agent"]),
    model: str | None = typer.Option(None, "-m", "--model", help=HELP["model"]),
    api_base: str | None = typer.Option(None, "--api-base", help=HELP["api_base"]),
    attempts: int | None = typer.Option(None, "-k", "--attempts", min=1, help=HELP["attempts"]),
    concurrency: int | None = typer.Option(None, "-n", "--concurrency", min=1, help=HELP["concurrency"]),
    jobs_dir: Path | None = typer.Option(None, "-o", "--jobs-dir", help=HELP["jobs_dir"]),
    job_name: str | None = typer.Option(None, "--job-name", help=HELP["job_name"]),
    new_job: bool = typer.Option(False, "--new-job", help=HELP["new_job"]),
    task_glob: list[str] | None = typer.Option(None, "-t", "--task", help=HELP["task_glob"]),
    exclude: list[str] | None = typer.Option(None, "-x", "--exclude", help=HELP["exclude"]),
    limit: int | None = typer.Option(None, "-l", "--limit", min=1, help=HELP["limit"]),
    backend: str | None = typer.Option(None, "--backend", help=HELP["backend"]),
    executor: str | None = typer.Option(None, "--executor", help=HELP["executor"]),
    ray_address: str | None = typer.Option(None, "--ray-address", help=HELP["ray_address"]),
    retry_invalid: bool = typer.Option(False, "--retry-invalid", help=HELP["retry_invalid"]),
    lenient: bool = typer.Option(False, "--lenient", help=HELP["lenient"]),
    agent_timeout: str | None = typer.Option(None, "--agent-timeout", help=HELP["agent_timeout"]),
    max_steps: str | None = typer.Option(None, "--max-steps", help=HELP["max_steps"]),
    max_cost: str | None = typer.Option(None, "--max-cost", help=HELP["max_cost"]),
    seed: int | None = typer.Option(None, "--seed", help=HELP["seed"]),
    source: Path | None = typer.Option(None, "--source", help=HELP["source"]),
    repo_path: Path | None = typer.Option(None, "--repo-path", help=HELP["repo_path"]),
    ca_bundle: Path | None = typer.Option(None, "--ca-bundle", help=HELP["ca_bundle"]),
    verifier_network: str | None = typer.Option(None, "--verifier-network", help=HELP["verifier_network"]),
    judge_model: str | None = typer.Option(None, "--judge-model", help=HELP["judge_model"]),
    judge_api_base: str | None = typer.Option(None, "--judge-api-base", help=HELP["judge_api_base"]),
    taste_min: float | None = typer.Option(None, "--taste-min", help=HELP["taste_min"]),
    rubric_min: float | None = typer.Option(None, "--rubric-min", help=HELP["rubric_min"]),
    judge_max_turns: int | None = typer.Option(None, "--judge-max-turns", min=2, help=HELP["judge_max_turns"]),
    judge_max_tokens: int | None = typer.Option(None, "--judge-max-tokens", min=16, help=HELP["judge_max_tokens"]),
    judge_timeout: float | None = typer.Option(None, "--judge-timeout", min=1, help=HELP["judge_timeout"]),
    bloat_model: bool = typer.Option(False, "--bloat-model", help=HELP["bloat_model"]),
    agent_option: list[str] | None = typer.Option(None, "--agent-option", "--ao", help=HELP["agent_option"]),
    max_total_cost: str | None = typer.Option(None, "--max-total-cost", help=HELP["max_total_cost"]),
    max_total_tokens: str | None = typer.Option(None, "--max-total-tokens", help=HELP["max_total_tokens"]),
    max_invalid_rate: float | None = typer.Option(None, "--max-invalid-rate", help=HELP["max_invalid_rate"]),
    invalid_rate_min_trials: int | None = typer.Option(None, "--invalid-rate-min-trials",
                                                       help=HELP["invalid_rate_min_trials"]),
    max_calls_in_flight: int | None = typer.Option(None, "--max-calls-in-flight", help=HELP["max_calls_in_flight"]),
    timeout_multiplier: float | None = typer.Option(None, "--timeout-multiplier", help=HELP["timeout_multiplier"]),
    dry_run: bool = typer.Option(False, "--dry-run", help=HELP["dry_run"]),
    env_file: Path | None = typer.Option(None, "--env-file", help=HELP["env_file"]),
    quiet: bool = typer.Option(False, "-q", "--quiet", help=HELP["quiet"]),
    heartbeat: float | None = typer.Option(None, "--heartbeat", help=HELP["heartbeat"]),
) -> None:
    """Run an agent on tasks; one results folder per job. Running the same command again resumes;
    a run with another configuration (agent options, model, API base, backend, limits) is
    refused unless --new-job. Exit codes: docs/cli.md.

    Examples:
      lancebench run -d mini -a oracle
      lancebench run -d mini -m local --max-steps 10
      lancebench run -p tests/fixtures/tasks/calc -a script:my_agent.sh -k 3 -n 2
    """
    given = {k: v for k, v in locals().items() if v is not None and v is not False and v != []}
    try:
        skipped = _run_command(config, given)
    except LancebenchError as exc:
        raise fail(exc) from None
    if skipped:
        raise typer.Exit(EXIT_SKIPPED)


def _run_command(config: Path | None, given: dict) -> bool:
    """The job(s) of ``run``: from the flags given, or from job file ``config`` with the flags
    overriding it (every job of the file is checked before the first starts). Returns whether
    some tasks had errors and were left out."""
    if config is None:
        settings = RunSettings.from_flags(given)
        settings.check_options_apply(given)
        return _run_settings(settings)[0]
    check_input_file(config, "-c")
    return run_job_file(config, given)


def run_job_file(config: Path, given: dict, doc: dict | None = None) -> bool:
    """Every job of job file ``config`` (``-c``, or a job's ``job.yaml`` for ``resume``; or the
    mapping ``doc`` read elsewhere, ``config`` naming where) with the flags ``given`` overriding it;
    each is checked before the first starts. Returns whether some tasks had errors and were left
    out. Raises :class:`LancebenchError` subclasses."""
    jobs = read_job_file(config, given) if doc is None else job_settings(doc, config, given)
    if len(jobs) > 1 and any(s.job_name for _, s in jobs):
        raise ConfigError(f"{config}: job_name with {len(jobs)} agent x model pairs: leave it out "
                          "(each pair gets its own job folder)")
    for _, settings in jobs:
        preflight(settings)
    ran = [_run_settings(settings) for _, settings in jobs]
    if len(ran) > 1 and not any(s.dry_run for _, s in jobs):
        print_leaderboard([root for _, root in ran])
    return any(skipped for skipped, _ in ran)


def print_leaderboard(job_dirs: list[Path]) -> None:
    """A sweep's leaderboard after each job's own table: one row per job of ``job_dirs`` with a
    finished trial, as ``lancebench report JOB...`` prints it (issue 28: a sweep ended with separate
    tables only); comparisons are left to ``report``."""
    from lancebench.report.build import ReportOptions, build_report
    from lancebench.report.render import render_table
    from lancebench.results.load import load_jobs
    jobs = [j for j in load_jobs(job_dirs) if j.results]
    if len(jobs) < 2:
        return
    out.print(f"\nsweep leaderboard: {len(jobs)} jobs (pairwise comparisons: lancebench report "
              f"{' '.join(str(d) for d in job_dirs)})", highlight=False, soft_wrap=True, markup=False)
    render_table(build_report(jobs, ReportOptions()), out)


def _job_options(settings: RunSettings, tasks, label: str) -> JobOptions:
    """The job's options from checked settings (agent options from the limits and ``--ao``).
    Raises :class:`ConfigError` when ``--ca-bundle`` is not a file."""
    if settings.ca_bundle is not None and not settings.ca_bundle.is_file():
        raise ConfigError(f"--ca-bundle {settings.ca_bundle}: is not a file; pass the CA bundle's path")
    agent, model = settings.agent_name(), settings.model
    max_steps = settings.max_steps
    if max_steps is None and agent == "mini-swe-agent" and (model or "").split(":")[0] == "local":
        max_steps = LOCAL_MAX_STEPS  # a 135M model on a CPU: a short loop is all it can use
    options = {k: v for k, v in {"max_steps": max_steps, "max_cost": settings.max_cost}.items() if v is not None}
    options.update(settings.agent_options)
    options.update(parse_agent_options(settings.agent_option))
    if agent == "random":
        options["seed"] = settings.seed
    options = applicable_options(agent, options)
    name = settings.job_name or slug(label, agent, model)
    if settings.new_job:
        name = fresh_job_name(settings.jobs_dir, name)
    return JobOptions(name=name, jobs_dir=settings.jobs_dir,
                      agent=AgentRecipe(agent, model=model, api_base=settings.api_base, options=options),
                      attempts=settings.attempts, concurrency=settings.concurrency, backend=settings.backend,
                      backend_options=backend_options(settings.ca_bundle, settings.repo_path),
                      executor=settings.executor,
                      executor_options={"address": settings.ray_address} if settings.ray_address else {},
                      retry_invalid=settings.retry_invalid, agent_timeout_sec=settings.agent_timeout,
                      sources=[str(p) for p in settings.path] + ([settings.dataset] if settings.dataset else [])
                      + ([f"--repo-path {settings.repo_path.resolve()}"] if settings.repo_path else []),
                      task_filters=list(settings.task), limit=settings.limit,
                      senior=judge_settings(settings.judge_model, settings.judge_api_base, settings.taste_min,
                                            settings.rubric_min, settings.judge_max_turns, settings.judge_max_tokens,
                                            settings.judge_timeout, settings.bloat_model),
                      controls=settings.controls(), verifier_network=settings.verifier_network,
                      timeout_multiplier=settings.timeout_multiplier)


def preflight(settings: RunSettings) -> None:
    """The checks of :mod:`lancebench.commands.preflight` for one job's settings (no trial starts
    before all pass). Raises a :class:`LancebenchError` subclass with its exit code."""
    load_env_file(settings.env_file)  # first: the model checks below read the keys it holds
    check_output_folder(settings.jobs_dir)
    settings.check_agent_flags()
    check_agent(settings.agent_name(), settings.model, settings.backend)
    check_backend(settings.backend)
    check_executor(settings.executor)
    check_model(settings.model, settings.api_base)
    check_model(settings.judge_model, settings.judge_api_base, "--judge-model", "--judge-api-base")


def _run_settings(settings: RunSettings) -> tuple[bool, Path]:
    """Pre-flight checks, task selection, then the job (with ``--dry-run``: its plan, printed).
    Returns (whether some tasks had errors and were left out, the job folder)."""
    preflight(settings)
    tasks, errors, label = select_tasks(settings.path, settings.dataset, settings.task, settings.limit,
                                        settings.source, settings.repo_path, lenient=settings.lenient,
                                        excludes=settings.exclude)
    tasks, errors = runnable(tasks, errors, settings.backend)
    print_task_errors(errors)
    check_local_network(tasks, settings.backend)
    for warning in cpu_warnings(tasks, settings.backend):
        console.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False)
    if not tasks:
        raise ConfigError("no tasks selected" + (" (every task had errors)" if errors else ""))
    tasks = [scale_timeouts(t, settings.timeout_multiplier) for t in tasks]
    opts = _job_options(settings, tasks, label)
    opts.agent.build()  # fail on a bad agent name before any sandbox is built
    check_job(opts, tasks)  # busy, or another configuration: refused before a model server starts
    from lancebench.runner.job import plan
    from lancebench.runner.model_session import model_session
    if settings.dry_run:
        print_plan(recorded_settings(settings), opts, *plan(tasks, opts))
        return bool(errors), opts.jobs_dir / opts.name
    paths = JobPaths(opts.jobs_dir / opts.name)
    record_settings(paths, settings)
    display = Display(quiet=settings.quiet, heartbeat_sec=settings.heartbeat)
    stopped: RunStopped | None = None
    try:
        planned = plan(tasks, opts)
        if planned[0]:
            with model_session(opts) as session_opts:
                run_async(_run(tasks, session_opts, errors, display, with_kept=False))
        else:  # every trial recorded: no model server is started or probed (issue 28: 28 s for nothing)
            run_async(_run(tasks, opts, errors, display, with_kept=False, planned=planned))
    except RunStopped as exc:  # a run-level control: the summary first, then the stop (exit 6)
        stopped = exc
    _finish(paths)
    if stopped is not None:
        raise stopped
    if errors:  # said again at the end: the list is above a long run's output
        console.print(f"[yellow]left out:[/yellow] {len(errors)} task problem(s), listed above the results "
                      f"and in {paths.root / 'task_errors.json'}; fix them and run the same command to add "
                      "those tasks (exit 5)", highlight=False)
    return bool(errors), paths.root


def grade(
    path: list[Path] | None = typer.Option(None, "-p", "--path",
                                           help="Task folders (instance_id = task folder name)."),
    dataset: str | None = typer.Option(None, "-d", "--dataset", help="Or a dataset (instance_id = task name)."),
    predictions: Path = typer.Option(..., "--predictions", help="SWE-bench predictions: JSON or JSONL."),
    instance_ids: list[str] | None = typer.Option(
        None, "--instance-ids", help="Grade only these instance ids (repeatable; or several in one value, "
                                     "space- or comma-separated); each must name a task with a prediction."),
    jobs_dir: Path = typer.Option(Path("jobs"), "-o", "--jobs-dir", help="Where job folders go."),
    job_name: str | None = typer.Option(None, "--job-name", help="Job folder name (default: from tasks and model)."),
    concurrency: int = typer.Option(1, "-n", "--concurrency", min=1, help="Trials at once."),
    backend: str = typer.Option("local", "--backend", help="Sandbox backend: local or docker."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help=HELP["quiet"]),
) -> None:
    """Grade given patches (SWE-bench predictions format) exactly as agent trials are graded.

    Each model's job folder gets grade_report.json: resolved, unresolved, empty-patch and error ids apart.

    Examples:
      lancebench grade -p tasks/ --predictions preds.jsonl
      lancebench grade -d mini --predictions preds.jsonl   (the output of `lancebench predictions`)
      lancebench grade -p tasks/ --predictions preds.jsonl --instance-ids "calc pick"   (or repeat the flag)
    """
    from lancebench.agents.replay import PatchAgent, read_predictions
    from lancebench.commands.grade_report import (
        filter_instances,
        grade_report,
        parse_instance_ids,
        patches_by_model,
        report_line,
    )
    try:
        check_input_file(predictions, "--predictions")
        check_output_folder(jobs_dir)
        check_job_name(job_name)
        check_backend(backend)
        ids = parse_instance_ids(instance_ids)
        records = read_predictions(predictions)
        tasks, errors, label = select_tasks(path, dataset, None, None)
        where = f"-d {dataset}" if dataset else "-p"
        tasks, errors = runnable(tasks, errors, backend)
        print_task_errors(errors)
        known = {t.name for t in tasks}
        by_model = filter_instances(patches_by_model(records, predictions), ids, known)
        unknown = sorted({i for patches in by_model.values() for i in patches} - known)
        if unknown:
            console.print(f"[red]error:[/red] {len(unknown)} prediction(s) name no task of {where}: "
                          f"{', '.join(unknown[:10])}")
            if len(unknown) == sum(len(p) for p in by_model.values()):
                raise ConfigError(f"{predictions}: no instance_id matches a task name of "
                                  f"{dataset or ', '.join(map(str, path or []))}")
        if ids is not None:
            tasks = [t for t in tasks if t.name in ids]
        for model_name, patches in by_model.items():
            chosen = [t for t in tasks if t.name in patches]
            missing = len(tasks) - len(chosen)
            if missing:
                console.print(f"[yellow]note:[/yellow] {missing} of {len(tasks)} task(s) of {where} have no "
                              f"prediction of {model_name!r}: not graded, not counted")
            opts = JobOptions(name=job_name or slug(label, "predictions", model_name), jobs_dir=jobs_dir,
                              agent=AgentRecipe("predictions", model=model_name, instance=PatchAgent(patches)),
                              concurrency=concurrency, backend=backend, sources=[str(predictions)])
            results = run_async(_run(chosen, opts, errors, Display(quiet=quiet)))
            paths = JobPaths(jobs_dir / opts.name)
            _finish(paths)
            report = grade_report(results, {t.name: patches[t.name] for t in chosen}, len(tasks))
            write_json(paths.grade_report, report)
            out.print(report_line(model_name, report), highlight=False, soft_wrap=True, markup=False)
    except LancebenchError as exc:
        raise fail(exc) from None
    if unknown or errors:
        raise typer.Exit(EXIT_SKIPPED)


def register(app: typer.Typer) -> None:
    app.command("run", cls=aliased("run"))(run)
    app.command("grade", cls=aliased("grade"))(grade)

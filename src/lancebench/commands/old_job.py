"""``lancebench resume`` of a job folder without ``job.yaml``: one an older lancebench wrote (before
issue 28 every run recorded only ``job.json``), or one ``lancebench grade`` wrote.

``job.json`` (:class:`lancebench.results.models.JobConfig`) holds the latest run's agent, model,
attempts, concurrency, backend, task sources (``-p`` folders as given, a dataset name,
``--repo-path FOLDER``), ``-t`` globs, ``-l``, the agent's options and, from issue 13 on, the
trials' configuration (API base, agent timeout, judge model, verifier network, timeout
multiplier) and the run-level controls. From these, :func:`settings_from_job_json` rebuilds the
job file mapping of the run, and :func:`command_line` the ``lancebench run`` command it stands
for. What ``job.json`` never recorded takes its default and is named in the note the user sees.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from lancebench.datasets.registry import DATASETS, parse_name
from lancebench.errors import ConfigError
from lancebench.results.load import load_job_config
from lancebench.results.models import JobConfig, TrialConfig

# flags of `run` that job.json never held (their defaults apply when the job is resumed from it)
NOT_RECORDED = ("-x", "--executor", "--ray-address", "--source", "--ca-bundle", "--lenient")
JUDGE_NOT_RECORDED = ("--judge-api-base", "--taste-min", "--rubric-min", "--judge-max-turns", "--judge-max-tokens",
                      "--judge-timeout", "--bloat-model")  # named only when the job had a judge model
# job.json's control names -> the settings' names
CONTROLS = {"max_total_cost_usd": "max_total_cost", "max_total_tokens": "max_total_tokens",
            "max_invalid_rate": "max_invalid_rate", "invalid_rate_min_trials": "invalid_rate_min_trials",
            "max_calls_in_flight": "max_calls_in_flight"}
REPO_PATH_SOURCE = "--repo-path "


def settings_from_job_json(job_dir: Path) -> tuple[dict[str, Any], list[str]]:
    """(the job file mapping of ``job_dir``'s latest run rebuilt from its ``job.json``, the flags
    whose values it does not record). Paths come out absolute; the job folder is ``job_dir``.

    Raises :class:`ConfigError` naming the folder and what to run instead for a job made by
    ``lancebench grade``, or when a task source is neither a folder (as given, relative to the
    current folder or to the folder holding the jobs folder) nor a dataset;
    :class:`lancebench.errors.ResultsError` for an unreadable ``job.json``."""
    job_dir = job_dir.resolve()
    cfg = load_job_config(job_dir / "job.json")
    if cfg.agent == "predictions":
        raise ConfigError(f"{job_dir}: `lancebench grade` made this job (it has no job.yaml and its agent is "
                          "'predictions'), and resume runs agents only; grade again, which keeps the graded "
                          f"instances: lancebench grade -p TASKS --predictions {shlex.quote(_first(cfg.sources))} "
                          f"-o {shlex.quote(str(job_dir.parent))} --job-name {shlex.quote(job_dir.name)}")
    trial = cfg.config or TrialConfig(agent=cfg.agent, model=cfg.model, agent_options=cfg.agent_options,
                                      backend=cfg.backend)
    doc: dict[str, Any] = {**_sources(cfg, job_dir), "agent": trial.agent, "model": trial.model,
                           "api_base": trial.api_base, "backend": trial.backend,
                           "agent_timeout": trial.agent_timeout_sec, "agent_options": dict(trial.agent_options),
                           "attempts": cfg.attempts, "concurrency": cfg.concurrency, "task": list(cfg.task_filters),
                           "limit": cfg.limit, "judge_model": trial.judge_model,
                           "verifier_network": trial.verifier_network, "timeout_multiplier": trial.timeout_multiplier,
                           "jobs_dir": str(job_dir.parent), "job_name": job_dir.name}
    if trial.agent == "random":  # `run` sets the random agent's seed from --seed over its options
        doc["seed"] = trial.agent_options.get("seed", 0)
    doc.update({CONTROLS[k]: v for k, v in cfg.controls.items() if k in CONTROLS})
    missing = list(NOT_RECORDED) + (list(JUDGE_NOT_RECORDED) if trial.judge_model else []) \
        + ([] if cfg.config else ["--api-base", "--agent-timeout", "--timeout-multiplier"])
    return {k: v for k, v in doc.items() if v not in (None, [])}, missing


def _first(sources: list[str]) -> str:
    return sources[0] if sources else "PREDICTIONS"


def _sources(cfg: JobConfig, job_dir: Path) -> dict[str, Any]:
    """``path`` / ``dataset`` / ``repo_path`` from ``job.json``'s ``sources``. A folder given
    relative to where the job was run is looked for in the current folder, then in the folder that
    holds the jobs folder (``-o jobs``, the default, was relative to it)."""
    found: dict[str, Any] = {"path": []}
    for source in cfg.sources:
        if source.startswith(REPO_PATH_SOURCE):
            found["repo_path"] = source.removeprefix(REPO_PATH_SOURCE)
            continue
        places = [Path(source)] if Path(source).is_absolute() else [Path.cwd() / source, job_dir.parent.parent / source]
        folder = next((p for p in places if p.exists()), None)
        if folder is not None:
            found["path"].append(str(folder.resolve()))
        elif parse_name(source)[0] in DATASETS:
            found["dataset"] = source
        else:
            looked = " or ".join(str(p) for p in places)
            raise ConfigError(f"{job_dir / 'job.json'}: sources: {source!r} is neither a dataset nor a folder "
                              f"(looked for {looked}); run resume from the folder the job was run in, or run the "
                              "job's command with the tasks' folder: "
                              + command_line({"path": ["TASKS"], **_agent_part(cfg), "jobs_dir": str(job_dir.parent),
                                              "job_name": job_dir.name}))
    return found


def _agent_part(cfg: JobConfig) -> dict[str, Any]:
    trial = cfg.config
    return {k: v for k, v in {"agent": cfg.agent, "model": cfg.model, "agent_options": cfg.agent_options,
                              "api_base": trial.api_base if trial else None}.items() if v}


# job file key -> the flag of `run` it stands for
FLAGS = {"path": "-p", "dataset": "-d", "repo_path": "--repo-path", "agent": "-a", "seed": "--seed", "model": "-m",
         "api_base": "--api-base", "backend": "--backend", "agent_timeout": "--agent-timeout", "attempts": "-k",
         "concurrency": "-n", "task": "-t", "limit": "-l", "judge_model": "--judge-model",
         "verifier_network": "--verifier-network", "timeout_multiplier": "--timeout-multiplier",
         "max_total_cost": "--max-total-cost", "max_total_tokens": "--max-total-tokens",
         "max_invalid_rate": "--max-invalid-rate", "invalid_rate_min_trials": "--invalid-rate-min-trials",
         "max_calls_in_flight": "--max-calls-in-flight", "jobs_dir": "-o", "job_name": "--job-name"}
DEFAULTS = {"backend": "local", "verifier_network": "harbor", "timeout_multiplier": 1.0, "attempts": 1,
            "concurrency": 1}


def command_line(doc: dict[str, Any]) -> str:
    """The ``lancebench run`` command that job file mapping ``doc`` stands for (shell-quoted; values
    at their default left out; each agent option as ``--ao KEY=JSON``, which ``run`` reads back as
    the same value)."""
    words = ["lancebench", "run"]
    for key, flag in FLAGS.items():
        value = doc.get(key)
        if value is None or DEFAULTS.get(key) == value:
            continue
        for one in value if isinstance(value, list) else [value]:
            words += [flag, _text(one)]
    for key, value in doc.get("agent_options", {}).items():
        if key == "seed" and "seed" in doc:
            continue
        words += ["--ao", f"{key}={json.dumps(value)}"]
    return shlex.join(words)


def _text(value: Any) -> str:
    """A flag's value as typed: ``2`` for 2.0."""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)

"""The settings of ``lancebench run``: from flags, or from a job file (``-c job.yaml``) with flags
overriding it. A job file may sweep agents x models: each pair is one job (one configuration).

Job file keys are the long flag names with ``_`` (``jobs_dir``, ``max_cost``, ...) plus:
``agents`` (a list of agent names, or mappings with ``agent``, ``model``, ``api_base``,
``max_steps``, ``max_cost``, ``seed``, ``agent_options``) and ``models`` (a list of model names,
crossed with every agent that takes a model and names none itself);
``tasks`` may be a mapping holding ``path``, ``dataset``, ``task``, ``limit``. See
``docs/cli.md`` for an example.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from lancebench.commands.preflight import check_job_name, positive_limit
from lancebench.errors import ConfigError
from lancebench.runner.controls import RunControls

# flag parameter name -> settings field, where they differ
FLAG_FIELDS = {"task_glob": "task"}
NO_MODEL_AGENTS = {"oracle", "nop", "random"}
AGENT_KEYS = {"agent", "model", "api_base", "max_steps", "max_cost", "seed", "agent_options"}


class RunSettings(BaseModel):
    """One job's settings. Limits: ``agent_timeout`` seconds (> 0), ``max_steps`` (> 0),
    ``max_cost`` USD (> 0); ``unlimited`` gives 0 (no limit) for the latter two. Run-level
    controls (:mod:`lancebench.runner.controls`): ``max_total_cost`` USD and ``max_total_tokens``
    for the whole job (> 0, or ``unlimited``), ``max_invalid_rate`` (a fraction in (0, 1)) after
    ``invalid_rate_min_trials`` trials, ``max_calls_in_flight`` per model (>= 1).
    ``timeout_multiplier`` (> 0) scales every phase timeout; ``dry_run`` prints the plan and
    starts nothing; ``env_file`` is a dotenv file loaded into the environment (never recorded);
    ``quiet`` prints no per-trial progress; ``heartbeat`` is the seconds between status lines off a
    terminal."""

    model_config = ConfigDict(extra="forbid")

    path: list[Path] = Field(default_factory=list)
    dataset: str | None = None
    agent: str | None = None
    model: str | None = None
    api_base: str | None = None
    attempts: int = Field(1, ge=1)
    concurrency: int = Field(1, ge=1)
    jobs_dir: Path = Path("jobs")
    job_name: str | None = None
    new_job: bool = False
    task: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    limit: int | None = Field(None, ge=1)
    backend: str = "local"
    executor: str = "local"
    ray_address: str | None = None
    retry_invalid: bool = False
    lenient: bool = False
    agent_timeout: float | None = None
    max_steps: int | None = None
    max_cost: float | None = None
    seed: int = 0
    source: Path | None = None
    repo_path: Path | None = None
    ca_bundle: Path | None = None
    verifier_network: Literal["harbor", "none"] = "harbor"
    agent_option: list[str] = Field(default_factory=list)
    agent_options: dict[str, Any] = Field(default_factory=dict)
    judge_model: str | None = None
    judge_api_base: str | None = None
    taste_min: float = 3.0
    rubric_min: float | None = None
    judge_max_turns: int = Field(16, ge=2)
    judge_max_tokens: int = Field(1024, ge=16)
    judge_timeout: float = Field(600.0, gt=0)
    bloat_model: bool = False
    max_total_cost: float | None = None
    max_total_tokens: int | None = None
    max_invalid_rate: float | None = Field(None, gt=0, lt=1)
    invalid_rate_min_trials: int = Field(5, ge=1)
    max_calls_in_flight: int | None = Field(None, ge=1)
    # issue 28: Harbor's --timeout-multiplier (part of the configuration), and how a run is shown
    # and started (not recorded in job.yaml: dry_run, env_file, whose values never enter the job)
    timeout_multiplier: float = Field(1.0, gt=0)
    dry_run: bool = False
    env_file: Path | None = None
    quiet: bool = False
    heartbeat: float = Field(60.0, gt=0)

    @field_validator("job_name")
    @classmethod
    def _job_name(cls, v):
        return check_job_name(v)

    @field_validator("agent_timeout", mode="before")
    @classmethod
    def _timeout(cls, v):
        # the harness always ends an agent at its budget: no 'unlimited' (issue 28: -5 was told to
        # write 'unlimited', which was then refused)
        return positive_limit("--agent-timeout", v, unlimited=False)

    @field_validator("max_steps", mode="before")
    @classmethod
    def _steps(cls, v):
        return positive_limit("--max-steps", v, integer=True)

    @field_validator("max_cost", mode="before")
    @classmethod
    def _cost(cls, v):
        return positive_limit("--max-cost", v)

    def check_agent_flags(self) -> None:
        """Flags that do not apply to the chosen agent are refused with the reason (issue 28: ``-a
        oracle -m MODEL`` demanded a key or started a model server for an agent that never calls
        one). Raises :class:`ConfigError`."""
        agent = self.agent_name()
        given = [flag for flag, value in (("-m", self.model), ("--api-base", self.api_base)) if value]
        if given and _takes_no_model(agent):
            raise ConfigError(f"-a {agent} calls no model: leave out {' and '.join(given)} (with them, lancebench "
                              "would check an API key or start a model server that no trial uses)")

    def check_options_apply(self, given: Iterable[str]) -> None:
        """Limits and options given on the command line (``given``: the flags' parameter names)
        that the chosen agent never reads are refused with the reason: ``--max-steps`` and
        ``--max-cost`` (limits of agents that call a model), ``--seed`` (the random agent's) and
        ``--ao KEY=...`` for an agent without the option ``KEY``, for ``oracle``, ``nop``,
        ``random`` and ``script:`` agents (issue 28: ``-a oracle --max-steps 3`` was recorded in the
        job's configuration and ignored). A job file's top-level limits apply to the agents that
        take them (a sweep mixes such agents). Raises :class:`ConfigError`."""
        agent = self.agent_name()
        if not _takes_no_model(agent):
            return
        from lancebench.agents.registry import BUILTIN
        takes = set(inspect.signature(BUILTIN[agent]).parameters) if agent in BUILTIN else set()
        wrong = [flag for flag, name in (("--max-steps", "max_steps"), ("--max-cost", "max_cost"), ("--seed", "seed"))
                 if name in given and name not in takes]
        keys = [item.partition("=")[0].strip() for item in self.agent_option] + list(self.agent_options)
        wrong += [f"--ao {key}=..." for key in dict.fromkeys(keys) if key not in takes]
        if wrong:
            own = f"takes only {', '.join(sorted(takes))}" if takes else "takes no options"
            them = "it" if len(wrong) == 1 else "them"
            raise ConfigError(f"-a {agent} does not read {', '.join(wrong)}: leave {them} out (--max-steps and "
                              "--max-cost limit agents that call a model, --seed seeds the random agent; "
                              f"-a {agent} {own})")

    @field_validator("max_total_cost", mode="before")
    @classmethod
    def _total_cost(cls, v):
        return positive_limit("--max-total-cost", v) or None

    @field_validator("max_total_tokens", mode="before")
    @classmethod
    def _total_tokens(cls, v):
        return positive_limit("--max-total-tokens", v, integer=True) or None

    def controls(self) -> RunControls:
        """The run-level controls of these settings."""
        return RunControls(max_total_cost_usd=self.max_total_cost, max_total_tokens=self.max_total_tokens,
                           max_invalid_rate=self.max_invalid_rate,
                           invalid_rate_min_trials=self.invalid_rate_min_trials,
                           max_calls_in_flight=self.max_calls_in_flight)

    def agent_name(self) -> str:
        """``-a``, or ``mini-swe-agent`` when only ``-m`` is given. Raises :class:`ConfigError`."""
        if self.agent:
            return self.agent
        if self.model is None:
            raise ConfigError("pass -a AGENT (oracle, nop, script:PATH, ...) or -m MODEL (runs mini-swe-agent)")
        return "mini-swe-agent"

    @classmethod
    def from_flags(cls, given: dict[str, Any], where: str = "the command line") -> RunSettings:
        """Settings from the flags given (name -> value; absent flags take the defaults)."""
        data = {FLAG_FIELDS.get(k, k): v for k, v in given.items() if k != "config"}
        return _validate(data, where)


def _validate(data: dict, where: str) -> RunSettings:
    try:
        return RunSettings.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        fix = "remove it (allowed: " + ", ".join(sorted(RunSettings.model_fields)) + ", agents, models, tasks)" \
            if err["type"] == "extra_forbidden" else f"got {err.get('input')!r}"
        raise ConfigError(f"{where}: {field}: {err['msg']}; {fix}") from None


def _plural_hint(doc: dict, path: Path) -> None:
    """Raise :class:`ConfigError` when ``agent`` or ``model`` holds a list: one job takes one agent and
    one model, a sweep lists them under ``agents`` / ``models`` (a new user wrote ``agent: [oracle]``
    and got "Input should be a valid string")."""
    for single, plural, example in (("agent", "agents", "oracle"), ("model", "models", "local")):
        value = doc.get(single)
        if isinstance(value, list):
            names = ", ".join(map(str, value)) or example
            raise ConfigError(f"{path}: {single}: {value!r} is a list, and {single} takes one name; for a list (one "
                              f"job per {single}) write `{plural}: [{names}]` instead, or `{single}: "
                              f"{value[0] if value else example}` for one")


def _agent_entries(doc: dict, path: Path) -> list[dict]:
    _plural_hint(doc, path)
    agents = doc.pop("agents", None)
    models = doc.pop("models", None)
    entries = [{}] if agents is None else agents
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{path}: agents: write a list, e.g. "
                          "agents: [oracle, {agent: mini-swe-agent, model: local}]")
    out = []
    for i, e in enumerate(entries):
        e = {"agent": e} if isinstance(e, str) else e
        if not isinstance(e, dict) or set(e) - AGENT_KEYS:
            unknown = f"unknown key {', '.join(sorted(map(str, set(e) - AGENT_KEYS)))}: " if isinstance(e, dict) else ""
            raise ConfigError(f"{path}: agents[{i}]: {unknown}write a name or a mapping of "
                              f"{', '.join(sorted(AGENT_KEYS))}")
        out.append(e)
    if models is None:
        return out
    if not isinstance(models, list) or not all(isinstance(m, str) for m in models):
        raise ConfigError(f"{path}: models: write a list of model names, e.g. models: [local, openai/gpt-4o-mini]")
    swept = []
    for e in out:
        if "model" in e or _takes_no_model(e.get("agent", doc.get("agent"))):
            swept.append(e)
        else:
            swept += [{**e, "model": m} for m in models]
    return swept


def applicable_options(agent: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` without those ``agent`` never reads when it calls no model (``oracle``, ``nop``,
    ``random``, ``script:PATH``: only its constructor's parameters are kept). A job file's top-level
    limits and options apply to the agents that take them; recorded on the others, they made the
    same agent's job ``another configuration`` than a plain ``-a oracle`` run (a new user's find)."""
    if not _takes_no_model(agent):
        return options
    from lancebench.agents.registry import BUILTIN
    takes = set(inspect.signature(BUILTIN[agent]).parameters) if agent in BUILTIN else set()
    return {k: v for k, v in options.items() if k in takes}


def _takes_no_model(agent: str | None) -> bool:
    """Agents that use no model (``oracle``, ``nop``, ``random``, ``script:PATH``) are not swept."""
    return agent in NO_MODEL_AGENTS or (agent or "").startswith("script:")


def _one_source(doc: dict, path: Path, where: str, flags: dict[str, Any]) -> None:
    """A job runs the tasks of one source: ``path`` or ``dataset``. A source given on the command
    line (``-p``/``-d``) replaces the file's. Raises :class:`ConfigError` naming the file and both
    fields when the file gives both (issue 28: the error named command-line flags)."""
    if flags.get("path") or flags.get("dataset"):
        doc.pop("path", None)
        doc.pop("dataset", None)
    elif doc.get("path") and doc.get("dataset"):
        raise ConfigError(f"{path}: {where}path and {where}dataset are both given; a job runs the tasks of one "
                          f"source: keep one of them (a sweep over both needs two job files)")


# how one run starts and shows itself, not what the job is: resume takes them anew
RECORD_EXCLUDE = {"dry_run", "env_file", "new_job", "retry_invalid", "quiet", "heartbeat"}


def recorded_settings(settings: RunSettings) -> dict[str, Any]:
    """``settings`` as a job file (``JOB/job.yaml``) that ``lancebench resume`` reads back: every
    field but :data:`RECORD_EXCLUDE` (the env file's path and values never enter the job), with
    paths made absolute (the job file's folder is not the one the run started in)."""
    data = settings.model_dump(mode="json", exclude=RECORD_EXCLUDE)
    data["path"] = [str(p.absolute()) for p in settings.path]
    for key in ("source", "repo_path", "ca_bundle", "jobs_dir"):
        value = getattr(settings, key)
        data[key] = str(value.absolute()) if value is not None else None
    return data


def read_job_file(path: Path, flags: dict[str, Any]) -> list[tuple[dict, RunSettings]]:
    """The jobs of job file ``path``: one (resolved mapping, settings) per agent x model, with
    ``flags`` (the ones given on the command line) overriding the file. Raises
    :class:`ConfigError` naming the file, the field and the fix."""
    import yaml
    try:
        doc = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise ConfigError(f"-c {path}: cannot be read ({exc.strerror or exc})") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc})") from None
    if not isinstance(doc, dict):
        raise ConfigError(f"{path}: write a mapping of settings (see docs/cli.md)")
    return job_settings(doc, path, flags)


def job_settings(doc: dict, path: Path, flags: dict[str, Any]) -> list[tuple[dict, RunSettings]]:
    """The jobs of the job file mapping ``doc`` (as :func:`read_job_file` reads it; ``path`` names
    it in messages and relative paths are relative to its folder), ``flags`` overriding it; jobs
    whose settings came out the same (``-a oracle`` over a sweep's ``agents``) once. Raises
    :class:`ConfigError` naming ``path``, the field and the fix."""
    tasks = doc.pop("tasks", None)
    if isinstance(tasks, dict):
        doc.update(tasks)
    elif tasks is not None:
        raise ConfigError(f"{path}: tasks: write a mapping with path, dataset, task and limit")
    _one_source(doc, path, "tasks." if isinstance(tasks, dict) else "", flags)
    if isinstance(doc.get("path"), (str, Path)):
        doc["path"] = [doc["path"]]
    base = Path(path).parent
    for key in ("path", "source", "repo_path", "ca_bundle", "jobs_dir", "env_file"):  # relative to the file
        if isinstance(doc.get(key), list):
            doc[key] = [str(base / p) for p in doc[key]]
        elif isinstance(doc.get(key), str):
            doc[key] = str(base / doc[key])
    flags = {FLAG_FIELDS.get(k, k): v for k, v in flags.items() if k != "config"}
    jobs: list[tuple[dict, RunSettings]] = []
    for entry in _agent_entries(doc, path):
        resolved = {**doc, **entry, **flags}
        settings = _validate(resolved, str(path))
        if all(settings != kept for _, kept in jobs):  # `-a X` over a sweep's agents: one job, not one per entry
            jobs.append((resolved, settings))
    return jobs

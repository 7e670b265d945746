"""Pydantic models of a task folder's ``task.toml`` (Harbor's tables plus lancebench's own).

Harbor's tables (``[metadata]``, ``[verifier]``, ``[agent]``, ``[environment]``) are read as they
are: keys lancebench does not use are kept, not rejected, so Harbor datasets load unchanged.
lancebench's own table ``[lancebench]`` (and its sub-tables) is strict: an unknown key is an
error naming the file, the key and the allowed keys.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from lancebench.task.harbor import (
    ArtifactConfig,
    CollectHook,
    Healthcheck,
    PackageInfo,
    PhaseNetwork,
    SolutionConfig,
    StepConfig,
    check_hosts,
    parse_size_mb,
)

# Paths of the repository that belong to the test runner: a patch's changes there are dropped
# before grading (docs/architecture.md, "The life of a trial", step 4). Globs match repository-relative POSIX paths;
# "**/" matches any number of folders, including none.
DEFAULT_PROTECTED: tuple[str, ...] = (
    "tests/**", "test/**", "testing/**", "**/tests/**", "**/test/**",
    "**/test_*.py", "**/*_test.py", "**/conftest.py",
    # every configuration file name a Python test runner reads
    "**/pytest.ini", "**/.pytest.ini", "**/pytest.toml", "**/.pytest.toml", "**/tox.ini", "**/setup.cfg",
    "**/pyproject.toml", "**/noxfile.py", "**/.coveragerc",
    # what Python loads at start-up, in every form: module, package, bytecode, compiled extension
    "**/sitecustomize*", "**/sitecustomize/**", "**/usercustomize*", "**/usercustomize/**",
    "**/*.pth", "**/*.pyc", "**/*.pyo", "**/__pycache__/**", "**/site-packages/**", "**/dist-packages/**",
    # package metadata: entry points register pytest plugins
    "**/*.dist-info/**", "**/*.egg-info/**", "**/*.egg-link", "**/entry_points.txt",
    # modules that would shadow the test runner itself under `python -m pytest`
    "pytest.py", "py.py", "_pytest/**", "pytest/**", "pluggy/**",
)


# For Harbor tasks (no [lancebench] table): only what runs code when Python or pytest starts, or
# shadows the test runner; the repository's own tests and build files (pyproject.toml, setup.cfg)
# are source an agent may change (Harbor's verifiers bring their tests from /tests).
STARTUP_HOOKS: tuple[str, ...] = (
    "**/conftest.py", "**/pytest.ini", "**/.pytest.ini", "**/pytest.toml", "**/.pytest.toml",
    "**/sitecustomize*", "**/sitecustomize/**", "**/usercustomize*", "**/usercustomize/**",
    "**/*.pth", "**/*.pyc", "**/*.pyo", "**/__pycache__/**", "**/site-packages/**", "**/dist-packages/**",
    "**/*.dist-info/**", "**/*.egg-info/**", "**/*.egg-link", "**/entry_points.txt",
    "pytest.py", "py.py", "_pytest/**", "pytest/**", "pluggy/**",
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class VerifierConfig(PhaseNetwork):
    """Harbor ``[verifier]``: ``timeout_sec`` (seconds) for ``tests/test.sh``; ``env`` passed to it
    (``${VAR}`` / ``${VAR:-default}`` filled from the host); an explicit ``network_mode`` for the
    grading sandbox; ``collect`` hooks run before the artifacts are collected
    (:mod:`lancebench.runner.artifacts`). ``user``, ``environment_mode`` and ``environment`` are
    Harbor's (``tasks validate`` names what is not acted on)."""

    timeout_sec: float = Field(600.0, gt=0)
    env: dict[str, str] = Field(default_factory=dict)
    user: str | int | None = None
    environment_mode: Literal["shared", "separate"] | None = None
    environment: dict | None = None
    collect: list[CollectHook] = Field(default_factory=list)


class AgentConfig(PhaseNetwork):
    """Harbor ``[agent]``: ``timeout_sec`` is the agent phase's wall-time budget in seconds; an
    explicit ``network_mode`` overrides the environment's for the agent phase."""

    timeout_sec: float = Field(1800.0, gt=0)
    user: str | int | None = None


class EnvironmentConfig(PhaseNetwork):
    """Harbor ``[environment]``: build timeout (s), an optional prebuilt ``docker_image``, resource
    limits (``cpus``, ``memory_mb``, ``storage_mb``; the legacy size strings ``memory = "8G"`` and
    ``storage = "20G"`` are converted by :func:`~lancebench.task.harbor.parse_size_mb`, as Harbor
    does) applied to every sandbox, ``env`` for every command in the environment, ``workdir``,
    ``healthcheck`` and the network baseline (``network_mode``, ``allowed_hosts`` and their checks
    from :class:`~lancebench.task.harbor.PhaseNetwork`, the legacy ``allow_internet``). Raises
    ``ValueError`` (a validation error) for a bad size string or a ``memory``/``memory_mb`` conflict."""

    build_timeout_sec: float = Field(900.0, gt=0)
    docker_image: str | None = None
    os: Literal["linux", "windows"] = "linux"
    cpus: float = Field(1.0, gt=0)
    memory_mb: int = Field(2048, gt=0)
    storage_mb: int = Field(10240, gt=0)
    gpus: int | None = None
    gpu_types: list[str] | None = None
    tpu: dict | None = None
    mcp_servers: list[dict] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    skills_dir: str | None = None
    healthcheck: Healthcheck | None = None
    workdir: str | None = None
    allow_internet: bool | None = None

    # Harbor's legacy size strings: converted to memory_mb / storage_mb by _legacy_sizes; left
    # here (and never dumped) only when they cannot be, so that _bad_size names the key
    memory: Any = Field(None, exclude=True)
    storage: Any = Field(None, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _legacy_sizes(cls, data):
        """``memory``/``storage`` size strings become ``memory_mb``/``storage_mb``; a value that
        cannot be converted, or conflicts, stays for :meth:`_bad_size` (an error at its own key,
        reported beside the table's other errors)."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if isinstance(data.get("os"), str):
            data["os"] = data["os"].lower()
        for legacy in ("memory", "storage"):
            value = data.get(legacy)
            try:
                mb = parse_size_mb(value) if isinstance(value, str) else None
            except ValueError:
                continue
            if mb is not None and data.get(f"{legacy}_mb", mb) == mb:
                data.pop(legacy)
                data[f"{legacy}_mb"] = mb
        return data

    @field_validator("memory", "storage")
    @classmethod
    def _bad_size(cls, value, info: ValidationInfo):
        """Reached only with a size :meth:`_legacy_sizes` could not use: raises ``ValueError``."""
        if value is None:
            return None
        key = info.field_name
        if not isinstance(value, str):
            raise ValueError(f"a size string like '8G' or '512M' is expected, not {value!r} (or give {key}_mb in MiB)")
        mb = parse_size_mb(value)  # raises for a bad suffix or number
        raise ValueError(f"{key} = {value!r} ({mb} MB) conflicts with {key}_mb = {info.data.get(f'{key}_mb')!r}: "
                         "keep one of them")


class Checkout(_Strict):
    """``[lancebench.local.checkout]``: start the workdir from a snapshot of a git repository on the
    host: the tree of ``rev`` in ``repo`` (an absolute path) is checked out into the workdir before
    ``setup`` runs, without any history (the base commit is a fresh single commit of it). ``rev``
    should be a full commit id, so the snapshot (and the environment digest, which includes both
    fields) names one tree for good."""

    repo: str
    rev: str


class LocalRecipe(_Strict):
    """``[lancebench.local]``: how the ``local`` backend builds the environment.

    ``checkout`` (optional, :class:`Checkout`) fills the workdir from a host repository first.
    ``setup`` (a path relative to ``environment/``; ``""`` for none) runs once per environment digest, with
    network, inside a sandbox where the workdir (``/app`` by default) and ``/env`` are writable;
    ``environment/`` is visible read-only at ``/task-env``. It must leave the repository in the
    workdir (a git repository at the base commit; if it is not one, lancebench commits what is
    there as the base) and may put tools, such as a venv, under ``/env``. ``env`` is added to every
    command's environment; ``path`` is prepended to ``PATH`` (``/env/venv/bin`` always is).
    """

    setup: str = "setup.sh"
    env: dict[str, str] = Field(default_factory=dict)
    path: list[str] = Field(default_factory=list)
    checkout: Checkout | None = None


class ChoiceConfig(_Strict):
    """``[lancebench.choice]`` for ``kind = "choice"`` tasks: the proposal ids the agent may pick,
    and the workspace-relative file where it writes ``{"selected_proposal_id": N}``.
    The right id lives in ``tests/choice.json`` (``{"correct_proposal_id": N}``), hidden from the agent."""

    proposal_ids: list[int] = Field(min_length=2)
    answer_file: str = "answer.json"


class LimitsConfig(_Strict):
    """``[lancebench.limits]``: limits beyond Harbor's: processes, CPU seconds per command, output
    bytes kept per stream (head and tail), and ``patch_mb``, the largest captured patch (MiB,
    checked inside the capture sandbox before the harness reads it; a larger one makes the trial
    ``unresolved``)."""

    pids: int = Field(1024, gt=0)
    cpu_time_sec: int | None = Field(None, gt=0)
    output_bytes: int = Field(1_000_000, gt=1024)
    patch_mb: int = Field(32, gt=0)


class LancebenchConfig(_Strict):
    """``[lancebench]``: lancebench's own fields (strict: unknown keys are errors).

    - ``price_usd``: what the task pays (USD), for dollars earned.
    - ``kind``: ``code`` (graded by tests) or ``choice`` (graded against the right proposal).
    - ``reward_key``: the reward key that decides the verdict (default ``reward``).
    - ``split``: ``public`` or ``private`` (contamination analysis).
    - ``workdir``: where the repository is inside the sandbox.
    - ``protect`` / ``unprotect``: globs added to / removed from :data:`DEFAULT_PROTECTED`.
    - ``f2p`` / ``p2p``: fail-to-pass and pass-to-pass test ids (JUnit ``classname::name`` or
      pytest node ids); when given, the status comes from ``/logs/verifier/junit.xml``.
    - ``allow_hosts``: an allowlist (host names, ``*.suffix``, IPs, CIDRs) for every phase whose network
      no ``network_mode`` sets (empty: no network); enforced on the docker backend only.
    - ``browser``: the task's tests drive Chromium (the sandbox exposes it).
    - ``test_runs`` / ``pass_if``: run the verifier N times; ``any`` (SWE-Lancer) or ``all`` must pass.
    - ``pytest_plugins``: pytest plugins (module names) the verifier loads; plugin auto-loading is
      off during grading (``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``), so a task needing one names it.
    - ``scan_patch``: scan the patch for changes to test-runner machinery (see
      :mod:`lancebench.grading.scan`); ``false`` only for a task on a test tool's own repository.
    - ``app_server``: a browser task's app server, a shell command run from the workdir: the
      harness starts it beside ``tests/test.sh`` under another uid, so the code under test cannot
      reach the test runner (:mod:`lancebench.grading.app_server`); ``test.sh`` then sees
      ``LANCEBENCH_APP_SERVER=1`` and must not start the server itself.
    """

    price_usd: float = Field(0.0, ge=0)
    kind: Literal["code", "choice"] = "code"
    reward_key: str = Field("reward", min_length=1)
    split: Literal["public", "private"] = "public"
    workdir: str = "/app"
    protect: list[str] = Field(default_factory=list)
    unprotect: list[str] = Field(default_factory=list)
    f2p: list[str] = Field(default_factory=list)
    p2p: list[str] = Field(default_factory=list)
    allow_hosts: list[str] = Field(default_factory=list)
    browser: bool = False
    test_runs: int = Field(1, ge=1, le=20)
    pass_if: Literal["any", "all"] = "all"
    pytest_plugins: list[str] = Field(default_factory=list)
    scan_patch: bool = True
    app_server: str | None = Field(None, min_length=1)
    local: LocalRecipe | None = None
    choice: ChoiceConfig | None = None
    limits: LimitsConfig = Field(default_factory=LimitsConfig)

    @field_validator("allow_hosts")
    @classmethod
    def _hosts(cls, value: list[str]) -> list[str]:
        return check_hosts(value) or []

    def protected_globs(self) -> list[str]:
        """Globs of protected paths: the defaults plus ``protect``. A path matching one of them is
        protected unless it also matches an ``unprotect`` glob (so ``unprotect = ["tests/**"]``
        works although several default globs cover ``tests/``)."""
        return [*DEFAULT_PROTECTED, *self.protect]


RESULT_METADATA = ("oracle_scope", "origin")
"""Top-level ``[metadata]`` keys kept with the taxonomy in every result (Senior SWE-Bench's)."""


class TaskConfig(_Open):
    """The whole ``task.toml``. ``metadata`` is Harbor's free-form table (``taxonomy`` inside it);
    ``version`` is Harbor's ``schema_version`` (either name is read); ``task`` is the registry
    package, ``solution`` the reference solution's env; ``steps`` makes a multi-step task whose
    trial reward follows ``multi_step_reward_strategy`` (``mean`` unless set)."""

    version: str = "1.0"
    task: PackageInfo | None = None
    source: str | None = None
    metadata: dict = Field(default_factory=dict)
    verifier: VerifierConfig = Field(default_factory=VerifierConfig)
    agent: AgentConfig = Field(default_factory=AgentConfig)
    environment: EnvironmentConfig = Field(default_factory=EnvironmentConfig)
    solution: SolutionConfig = Field(default_factory=SolutionConfig)
    multi_step_reward_strategy: Literal["mean", "final"] | None = None
    steps: list[StepConfig] | None = None
    artifacts: list[str | ArtifactConfig] = Field(default_factory=list)
    lancebench: LancebenchConfig = Field(default_factory=LancebenchConfig)

    @model_validator(mode="before")
    @classmethod
    def _schema_version(cls, data):
        if isinstance(data, dict) and "schema_version" in data:
            data = dict(data)
            data.setdefault("version", str(data.pop("schema_version")))
        return data

    @model_validator(mode="before")
    @classmethod
    def _harbor_workdir(cls, data):
        """``[environment] workdir`` is where the repository is, unless ``[lancebench] workdir``
        says so too (then both must agree). lancebench's table may also be ``[metadata.lancebench]``
        (as ``lancebench export`` writes it, so that ``harbor lint`` accepts the task)."""
        data = hoist_lancebench_table(data)
        if not isinstance(data, dict) or not isinstance(data.get("environment"), dict):
            return data
        workdir = data["environment"].get("workdir")
        lb = data.get("lancebench", {})
        if workdir is None or not isinstance(lb, dict):
            return data
        if lb.get("workdir", workdir) != workdir:
            raise ValueError(f"[environment] workdir = {workdir!r} and [lancebench] workdir = {lb['workdir']!r} "
                             "disagree: keep one")
        return {**data, "lancebench": {**lb, "workdir": workdir}}


def hoist_lancebench_table(data):
    """``data`` (a parsed task.toml) with ``[metadata.lancebench]`` as its ``[lancebench]`` table
    when it has no ``[lancebench]`` of its own; else ``data`` as it is. Harbor's ``metadata`` is
    free-form, so a task keeps lancebench's settings there and still passes ``harbor lint``."""
    if not isinstance(data, dict) or "lancebench" in data:
        return data
    meta = data.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("lancebench"), dict):
        return {**data, "lancebench": meta["lancebench"]}
    return data


@dataclass(frozen=True)
class TaskPaths:
    """Paths of one task folder, as a frozen object instead of strings everywhere."""

    root: Path

    @property
    def task_toml(self) -> Path:
        return self.root / "task.toml"

    @property
    def instruction(self) -> Path:
        return self.root / "instruction.md"

    @property
    def environment(self) -> Path:
        return self.root / "environment"

    @property
    def dockerfile(self) -> Path:
        return self.root / "environment" / "Dockerfile"

    @property
    def tests(self) -> Path:
        return self.root / "tests"

    @property
    def test_sh(self) -> Path:
        return self.root / "tests" / "test.sh"

    @property
    def solution(self) -> Path:
        return self.root / "solution"

    @property
    def solve_sh(self) -> Path:
        return self.root / "solution" / "solve.sh"

    @property
    def choice_json(self) -> Path:
        return self.root / "tests" / "choice.json"


def tree_digest(root: Path, *, extra: bytes = b"") -> str:
    """sha256 hex digest of every regular file under ``root`` (relative path, mode bit x, bytes),
    in sorted order, plus ``extra``. Symlinks contribute their target string."""
    h = hashlib.sha256()
    if root.exists():
        for p in sorted(root.rglob("*")):
            rel = p.relative_to(root).as_posix()
            if p.is_symlink():
                h.update(b"L" + rel.encode() + b"\0" + str(p.readlink()).encode() + b"\0")
            elif p.is_file():
                h.update(b"F" + rel.encode() + b"\0" + (b"x" if p.stat().st_mode & 0o111 else b"-"))
                h.update(hashlib.sha256(p.read_bytes()).digest())
    h.update(extra)
    return h.hexdigest()


VerifierNetwork = Literal["harbor", "none"]
"""A run's ``--verifier-network``: see :class:`Task` and :func:`lancebench.task.settings.network_policy`."""


@dataclass(frozen=True)
class Task:
    """One loaded, validated task.

    ``name`` is the folder name (or the adapter's id); ``digest`` is the sha256 of the whole task
    folder (a trial's identity uses it); ``dataset`` names the dataset it came from, if any;
    ``harbor`` is True for a Harbor task (its ``task.toml`` has no ``[lancebench]`` table), which
    gets Harbor's defaults where lancebench's own would differ (protected paths, the verifier's
    network). ``verifier_network`` is the run's ``--verifier-network``: ``harbor`` (Harbor's
    public verifier network for a Harbor task that declares none) or ``none`` (no network for
    such a verifier); it never changes a network the task declares, and is not part of the digest.
    """

    name: str
    paths: TaskPaths
    config: TaskConfig
    instruction: str
    digest: str
    dataset: str | None = None
    harbor: bool = False
    verifier_network: VerifierNetwork = "harbor"

    @property
    def lb(self) -> LancebenchConfig:
        return self.config.lancebench

    @property
    def price_usd(self) -> float:
        return self.config.lancebench.price_usd

    @property
    def kind(self) -> Literal["code", "choice"]:
        return self.config.lancebench.kind

    @property
    def split(self) -> Literal["public", "private"]:
        """``[lancebench] split``; when that is not set, Harbor's ``[metadata] visibility`` (Senior
        SWE-Bench's field) if it is ``public`` or ``private``; else ``public``."""
        lb = self.config.lancebench
        visibility = str(self.config.metadata.get("visibility", "")).lower()
        if "split" not in lb.model_fields_set and visibility in ("public", "private"):
            return "private" if visibility == "private" else "public"
        return lb.split

    @property
    def taxonomy(self) -> dict:
        """``[metadata.taxonomy]``, plus the top-level ``[metadata]`` keys of :data:`RESULT_METADATA`
        (Senior SWE-Bench's ``oracle_scope`` and ``origin``) when they are short scalars: what
        every result keeps for the report's breakdowns (never the agent: task.toml stays hidden)."""
        tax = self.config.metadata.get("taxonomy", {})
        out = dict(tax) if isinstance(tax, dict) else {}
        for key in RESULT_METADATA:
            value = self.config.metadata.get(key)
            if key not in out and isinstance(value, str | int | float | bool) and len(str(value)) <= 200:
                out[key] = value
        return out

    def protected_globs(self) -> list[str]:
        """Globs of the paths a patch may not change (see :meth:`LancebenchConfig.protected_globs`).
        A Harbor task (no ``[lancebench]`` table) protects what its verifier reads: the start-up
        hooks (:data:`STARTUP_HOOKS`) and the destinations of its tests: every path under the
        workdir on a line of a ``test.sh`` that also names ``/tests/`` (``cp /tests/x /app/y``),
        plus ``protect``; ``unprotect`` narrows both."""
        if not self.harbor:
            return self.lb.protected_globs()
        named: list[str] = []
        prefix = re.escape(self.lb.workdir.rstrip("/") + "/")
        scripts = [self.paths.test_sh, *sorted(self.paths.root.glob("steps/*/tests/test.sh"))]
        for script in scripts:
            text = script.read_text(errors="replace") if script.is_file() else ""
            copies = "\n".join(line for line in text.splitlines() if "/tests/" in line)  # cp /tests/x /app/y
            for rel in re.findall(prefix + r"([A-Za-z0-9_.][A-Za-z0-9_./-]*)", copies):
                rel = rel.rstrip("/.")
                if rel:
                    named += [rel, f"{rel}/**"]
        return [*STARTUP_HOOKS, *dict.fromkeys(named), *self.lb.protect]

    def environment_digest(self) -> str:
        """Digest of what the environment build depends on: ``environment/`` and the recipe."""
        cfg = self.config
        local = cfg.lancebench.local.model_dump_json() if cfg.lancebench.local else ""
        extra = (cfg.environment.model_dump_json() + local + cfg.lancebench.workdir).encode()
        return tree_digest(self.paths.environment, extra=extra)

"""A task's effective settings per phase: environment variables (host templates filled) and
network policy, resolved as Harbor 0.25 resolves them, plus lancebench's stricter default.

Phases: ``agent`` (the agent's commands), ``solution`` (the oracle's ``solution/solve.sh``),
``verifier`` (``tests/test.sh`` in the grading sandbox) and ``healthcheck``.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from lancebench.errors import ConfigError, TaskError
from lancebench.task.model import Task, VerifierNetwork

# Harbor's whole-value template (harbor.utils.env): "${NAME}" or "${NAME:-default}"; any other
# value is literal. A variable set to "" on the host is used as "" (no fallback to the default).
_TEMPLATE = re.compile(r"\$\{([^}:]+)(?::-(.*))?\}")

PHASES = ("agent", "solution", "verifier", "healthcheck")


def fill_env(values: Mapping[str, str], host: Mapping[str, str] | None = None) -> dict[str, str]:
    """``values`` with every whole-value ``${VAR}`` / ``${VAR:-default}`` replaced from ``host``
    (default: ``os.environ``), exactly as Harbor's ``resolve_env_vars`` does.

    Raises ``KeyError`` (its argument the missing host variable's name) for ``${VAR}`` without a
    default when ``VAR`` is not set on the host."""
    host = os.environ if host is None else host
    out = {}
    for key, value in values.items():
        m = _TEMPLATE.fullmatch(value)
        if not m:
            out[key] = value
        elif m.group(1) in host:
            out[key] = host[m.group(1)]
        elif m.group(2) is not None:
            out[key] = m.group(2)
        else:
            raise KeyError(m.group(1))
    return out


def _tables(task: Task, phase: str, step: str | None) -> list[tuple[str, Mapping[str, str]]]:
    """(TOML table name, env table) in the order they apply; later ones win."""
    cfg = task.config
    tables: list[tuple[str, Mapping[str, str]]] = [("environment.env", cfg.environment.env)]
    if phase == "solution":
        tables.append(("solution.env", cfg.solution.env))
    elif phase == "verifier":
        tables.append(("verifier.env", cfg.verifier.env))
        step_cfg = _step(task, step)
        if step_cfg is not None:
            tables.append((f"steps.{step}.verifier.env", step_cfg.verifier.env))
    return tables


def phase_env(task: Task, phase: str, *, step: str | None = None,
              host: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment variables the task gives ``phase`` (one of :data:`PHASES`), templates filled.

    ``[environment].env`` applies to every phase (in Harbor it is what the environment's compose
    file passes to its containers); ``[solution].env`` adds to it for the oracle, ``[verifier].env``
    (then the step's) for the verifier. Verifier values never reach the agent or the solution.
    Raises :class:`TaskError` naming ``task.toml``, the table and the host variable when a
    ``${VAR}`` has no value and no default.
    """
    if phase not in PHASES:
        raise ValueError(f"unknown phase {phase!r}; one of {PHASES}")
    out: dict[str, str] = {}
    for name, table in _tables(task, phase, step):
        try:
            out.update(fill_env(table, host))
        except KeyError as exc:
            raise TaskError(task.paths.task_toml, f"${{{exc.args[0]}}} is not set on this machine", key=name,
                            task_dir=task.paths.root,
                            fix=f"export {exc.args[0]}=... before running, "
                                f"or write ${{{exc.args[0]}:-default}}") from None
    return out


def missing_host_vars(task: Task, host: Mapping[str, str] | None = None) -> list[TaskError]:
    """Every env table of ``task`` whose templates cannot be filled on this host (one
    :class:`TaskError` each): checked when a job is planned, before any trial runs."""
    errors = []
    steps: list[str | None] = [s.name for s in task.config.steps or []] or [None]
    seen = set()
    for phase in ("solution", "verifier"):
        for step in steps:
            try:
                phase_env(task, phase, step=step, host=host)
            except TaskError as exc:
                if str(exc) not in seen:
                    seen.add(str(exc))
                    errors.append(exc)
    return errors


@dataclass(frozen=True)
class NetworkPolicy:
    """A phase's network: ``mode`` is ``no-network``, ``public`` or ``allowlist`` (then ``hosts``:
    host names, ``*.suffix``, IPs or CIDRs; empty: nothing is reachable); ``source`` says which
    TOML key decided it (not part of equality)."""

    mode: str
    hosts: tuple[str, ...] = ()
    source: str = field(default="lancebench default", compare=False)

    @property
    def public(self) -> bool:
        """Whether the phase has the whole network (``mode`` is ``public``)."""
        return self.mode == "public"

    def __bool__(self) -> bool:
        """A policy is not a bool: read :attr:`mode` (or :attr:`public`). Raises :class:`TypeError`,
        so that code written for the old ``network: bool`` fails loudly instead of reading every
        policy as true (the whole network) or as an object's default truth."""
        raise TypeError(f"a NetworkPolicy ({self.mode}) has no truth value: read its .mode or .public")


#: The policy of a phase without any network (the default of :meth:`Backend.open`).
NO_NETWORK = NetworkPolicy("no-network")


def _step(task: Task, step: str | None):
    if step is None:
        return None
    for s in task.config.steps or []:
        if s.name == step:
            return s
    raise ValueError(f"task {task.name} has no step {step!r}")


def baseline_network(task: Task) -> NetworkPolicy:
    """The environment's policy: ``[environment] network_mode`` (with ``allowed_hosts``), else
    the legacy ``allow_internet`` (true: public, false: none), else lancebench's default, no
    network (Harbor's default is public: a task that needs the network must say so)."""
    e = task.config.environment
    if e.network_mode is not None:
        return NetworkPolicy(e.network_mode, tuple(e.allowed_hosts or ()), "environment.network_mode")
    if e.allow_internet is not None:
        return NetworkPolicy("public" if e.allow_internet else "no-network", (), "environment.allow_internet")
    if task.lb.allow_hosts:
        return NetworkPolicy("allowlist", tuple(task.lb.allow_hosts), "lancebench.allow_hosts")
    return NetworkPolicy("no-network")


HARBOR_VERIFIER_DEFAULT = "Harbor's default: the task declares no network"
VERIFIER_NETWORK_CLOSED = "--verifier-network none: the task declares no network"
VERIFIER_NETWORKS = ("harbor", "none")


def verifier_network_choice(value: str) -> VerifierNetwork:
    """``value`` of ``--verifier-network`` checked. Raises :class:`ConfigError` naming the flag and
    the choices."""
    if value == "harbor":
        return "harbor"
    if value == "none":
        return "none"
    raise ConfigError(f"--verifier-network {value}: expected harbor (Harbor's public verifier network for a "
                      "Harbor task that declares none; the default) or none (no network for such a verifier)")


def with_verifier_network(tasks: list[Task], mode: VerifierNetwork) -> list[Task]:
    """``tasks`` as a run with ``--verifier-network MODE`` grades them: ``harbor`` leaves them as
    they are; ``none`` closes the public verifier network Harbor gives a Harbor task that declares
    no network (see :func:`network_policy`). Raises :class:`ValueError` for another mode (the
    command line offers only these two)."""
    if mode not in VERIFIER_NETWORKS:
        raise ValueError(f"verifier network {mode!r}: expected one of {VERIFIER_NETWORKS}")
    return [dataclasses.replace(t, verifier_network=mode) if t.verifier_network != mode else t for t in tasks]


def network_policy(task: Task, phase: str, *, step: str | None = None) -> NetworkPolicy:
    """The network of ``phase`` (``agent`` or ``verifier``; the solution runs as the agent):
    the step's explicit ``network_mode``, else the task's ``[agent]``/``[verifier]`` one, else
    :func:`baseline_network` (Harbor's ``trial.network_policy`` order). One exception to
    lancebench's default of no network: the verifier of a Harbor task (``task.harbor``) that
    declares no network anywhere gets ``public``, as Harbor 0.25 gives it (its environment's
    default ``network_mode`` is ``public``), so a Terminal-Bench-style ``test.sh`` that installs
    its runner at grading time works (docs/security.md says what that opens), unless the run
    closed it (``task.verifier_network == "none"``, :func:`with_verifier_network`)."""
    role = "verifier" if phase == "verifier" else "agent"
    step_cfg = _step(task, step)
    candidates = []
    if step_cfg is not None:
        candidates.append((f"steps.{step}.{role}", getattr(step_cfg, role)))
    candidates.append((role, getattr(task.config, role)))
    for name, table in candidates:
        if table.network_mode is not None:
            return NetworkPolicy(table.network_mode, tuple(table.allowed_hosts or ()), f"{name}.network_mode")
    baseline = baseline_network(task)
    if role == "verifier" and task.harbor and baseline.source == NetworkPolicy("no-network").source:
        if task.verifier_network == "none":
            return NetworkPolicy("no-network", (), VERIFIER_NETWORK_CLOSED)
        return NetworkPolicy("public", (), HARBOR_VERIFIER_DEFAULT)
    return baseline


def step_agent_networks(task: Task) -> list[NetworkPolicy]:
    """The agent's network of each step of a multi-step task, in order (``[network_policy(task,
    "agent")]`` for a single-step task). Policies compare by mode and hosts only."""
    steps = [s.name for s in task.config.steps or []]
    if not steps:
        return [network_policy(task, "agent")]
    return [network_policy(task, "agent", step=name) for name in steps]


def needs_network_filter(task: Task) -> str | None:
    """The first TOML key whose network lancebench enforces with a filter (an ``allowlist``
    phase, or steps whose agent networks differ), or None when ``none``/``public`` per sandbox
    suffice. Used at plan time: only the docker backend, run as root, has such a filter."""
    steps: list[str | None] = [s.name for s in task.config.steps or []] or [None]
    for phase in ("agent", "verifier"):
        for step in steps:
            policy = network_policy(task, phase, step=step)
            if policy.mode == "allowlist":
                return policy.source
    if len(set(step_agent_networks(task))) > 1:
        return f"steps.{steps[0]}.agent.network_mode"
    return None


def _env_view(values: Mapping[str, str], host: Mapping[str, str]) -> dict[str, str]:
    """Env table as shown to a user: literals as they are, a template as ``${VAR}`` plus whether
    the host fills it (values from the host are never printed: they may be secrets)."""
    view = {}
    for key, value in values.items():
        m = _TEMPLATE.fullmatch(value)
        if not m:
            view[key] = value
        elif m.group(1) in host:
            view[key] = f"{value} (set on this machine)"
        elif m.group(2) is not None:
            view[key] = f"{value} (not set: default {m.group(2)!r})"
        else:
            view[key] = f"{value} (NOT SET: the task cannot run)"
    return view


def _network_view(task: Task) -> dict:
    """Network per phase as shown by ``tasks show``: ``agent`` and ``verifier``, plus ``steps``
    (each step's own) for a multi-step task, and ``filter``: the key that needs the docker
    backend's allowlist filter, or None."""
    def view(p: NetworkPolicy) -> dict:
        return {"mode": p.mode, "allowed_hosts": list(p.hosts), "from": p.source}
    out: dict = {phase: view(network_policy(task, phase)) for phase in ("agent", "verifier")}
    steps = [s.name for s in task.config.steps or []]
    if steps:
        out["steps"] = {name: {phase: view(network_policy(task, phase, step=name)) for phase in ("agent", "verifier")}
                        for name in steps}
    out["filter"] = needs_network_filter(task)
    return out


def effective_settings(task: Task, host: Mapping[str, str] | None = None) -> dict:
    """What lancebench will do with ``task``, as one JSON-ready dict: workdir, limits (MiB, CPUs,
    seconds), network and env per phase, steps, health check, protected paths, users per phase and
    the artifacts each collection pass takes. Host values of templated env entries are not
    included."""
    host = os.environ if host is None else host
    cfg, e = task.config, task.config.environment
    steps = [s.name for s in cfg.steps or []]
    return {
        "name": task.name, "path": str(task.paths.root), "kind": task.kind, "digest": task.digest,
        "price_usd": task.price_usd, "workdir": task.lb.workdir, "docker_image": e.docker_image,
        "limits": {"cpus": e.cpus, "memory_mb": e.memory_mb, "storage_mb": e.storage_mb, "pids": task.lb.limits.pids,
                   "cpu_time_sec": task.lb.limits.cpu_time_sec},
        "timeouts_sec": {"build": e.build_timeout_sec, "agent": cfg.agent.timeout_sec,
                         "verifier": cfg.verifier.timeout_sec},
        "network": _network_view(task),
        "env": {"all phases": _env_view(e.env, host), "solution": _env_view(cfg.solution.env, host),
                "verifier": _env_view(cfg.verifier.env, host)},
        "healthcheck": e.healthcheck.model_dump() if e.healthcheck else None,
        "steps": steps, "multi_step_reward_strategy": (cfg.multi_step_reward_strategy or "mean") if steps else None,
        "protected": {"globs": task.protected_globs(), "unprotect": list(task.lb.unprotect)},
        "users": _users_view(task), "artifacts": _artifacts_view(task),
    }


def _users_view(task: Task) -> dict:
    """The user of each phase (None: the image's), and of each step's; honoured on docker only."""
    view: dict = {phase: phase_user(task, phase) for phase in ("agent", "verifier")}
    for step in task.config.steps or []:
        view[f"steps.{step.name}"] = {phase: phase_user(task, phase, step=step.name) for phase in ("agent", "verifier")}
    return view


def _artifacts_view(task: Task) -> dict | None:
    """What each collection pass takes (source -> where it lands below ``artifacts/``) and the
    collect hooks it runs first; None when the task collects nothing."""
    from lancebench.task.artifacts import collection_set, declares_artifacts, hooks_for, host_relpath
    if not declares_artifacts(task):
        return None

    def one(step=None) -> dict:
        return {"collect": [{"source": e.source, "to": f"artifacts/{host_relpath(e)}", "exclude": e.exclude,
                             "service": e.service or "main"} for e in collection_set(task, step)],
                "hooks": [h.command for h in hooks_for(task, step)]}
    steps = task.config.steps or []
    return {f"steps.{s.name}": one(s) for s in steps} if steps else {"trial": one()}


def phase_user(task: Task, phase: str, *, step: str | None = None) -> str | None:
    """The user ``phase`` (``agent``, whose commands include the oracle's ``solve.sh``, or
    ``verifier``) runs as: the step's ``user``, else the task's ``[agent]``/``[verifier]`` one
    (Harbor's ``_step_agent_user`` / ``_step_verifier_user``), as a string (a uid is given as its
    number); None: the environment's default user. Honoured by the docker backend (``docker exec
    --user``); the local sandbox has one user (docs/tasks.md)."""
    role = "verifier" if phase == "verifier" else "agent"
    step_cfg = _step(task, step)
    for table in ((getattr(step_cfg, role),) if step_cfg is not None else ()) + (getattr(task.config, role),):
        if table.user is not None:
            return str(table.user)
    return None


_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|"
                          r"SIGNATURE|DSN|(^|_)PAT($|_)", re.I)
_SECRET_VALUE = re.compile(r"(sk-|sk_|pk_|ghp_|gho_|ghs_|github_pat_|xox[abpr]-|AKIA|ASIA|AIza|hf_|glpat-)\S{8,}")


def is_secret(name: str, value: str) -> bool:
    """Whether a host-filled value is a secret: the task's env key or the host variable ``name``
    says so (``KEY``, ``TOKEN``, ``SECRET``, ``PASSWORD``, ``CREDENTIAL``, ``AUTH``, ``COOKIE``,
    ``SESSION``, ``PRIVATE``, ``SIGNATURE``, ``DSN``, ``PAT``), or the value has a known key's
    prefix (``sk-``, ``ghp_``, ``xoxb-``, ``AKIA``, ``AIza``, ``hf_``, ...). A model name, a URL or
    any other setting is not: the kept logs must say which model graded."""
    return bool(_SECRET_NAME.search(name) or _SECRET_VALUE.match(value))


def secret_values(task: Task, *, step: str | None = None, host: Mapping[str, str] | None = None) -> set[str]:
    """Values the host fills into ``${VAR}`` templates of the verifier's env tables that are
    secrets (API keys, tokens: :func:`is_secret`): they must never be written to the job folder.
    Literal values, defaults and settings such as model names are not secrets; values shorter than
    4 characters are left out (redacting them would garble logs)."""
    host = os.environ if host is None else host
    secrets = set()
    for _, table in _tables(task, "verifier", step):
        for key, value in table.items():
            m = _TEMPLATE.fullmatch(value)
            if not m or m.group(1) not in host or len(host[m.group(1)]) < 4:
                continue
            if is_secret(key, host[m.group(1)]) or is_secret(m.group(1), host[m.group(1)]):
                secrets.add(host[m.group(1)])
    return secrets


@dataclass(frozen=True)
class PhaseSettings:
    """One phase's settings, resolved once: ``env`` (:func:`phase_env`), ``user``
    (:func:`phase_user`; None: the environment's default user), ``network``
    (:func:`network_policy`) and ``secrets`` (:func:`secret_values`, the verifier's only; empty
    for every other phase)."""

    env: dict[str, str]
    user: str | None
    network: NetworkPolicy
    secrets: frozenset[str] = frozenset()


def phase_settings(task: Task, phase: str, *, step: str | None = None) -> PhaseSettings:
    """``phase``'s settings (one of :data:`PHASES`; the solution and the health check run as the
    agent, so they share its user and network) for ``task``, or for its ``step``. Raises
    :class:`TaskError` as :func:`phase_env` does."""
    return PhaseSettings(env=phase_env(task, phase, step=step), user=phase_user(task, phase, step=step),
                         network=network_policy(task, phase, step=step),
                         secrets=frozenset(secret_values(task, step=step)) if phase == "verifier" else frozenset())


@dataclass(frozen=True)
class TrialSettings:
    """The agent side's settings of one trial, resolved once when its steps start and passed down:
    ``agent`` (the task's agent phase), ``solution_env`` (what the oracle's ``solve.sh`` gets),
    ``healthcheck_env``, and ``steps``: the agent phase of each ``[[steps]]`` entry in order
    (one entry, ``agent``, for a single-step task). The verifier's are resolved by grading
    (:class:`lancebench.grading.verifier.VerifierSettings`)."""

    agent: PhaseSettings
    solution_env: dict[str, str]
    healthcheck_env: dict[str, str]
    steps: tuple[PhaseSettings, ...]


def trial_settings(task: Task) -> TrialSettings:
    """The :class:`TrialSettings` of a trial of ``task``. Raises :class:`TaskError` when a ``${VAR}``
    of an env table has no value on this host and no default (checked when a job is planned)."""
    agent = phase_settings(task, "agent")
    names = [s.name for s in task.config.steps or []]
    steps = tuple(phase_settings(task, "agent", step=name) for name in names) if names else (agent,)
    return TrialSettings(agent=agent, solution_env=phase_env(task, "solution"),
                         healthcheck_env=phase_env(task, "healthcheck"), steps=steps)

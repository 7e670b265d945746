"""Which of Harbor's ``task.toml`` fields lancebench acts on, and which it does not, by name.

Every field of Harbor 0.25's task model is listed in :data:`HARBOR_FIELDS`. A field lancebench
does not act on (or a value of it that it does not support) is reported by
:func:`unsupported_fields`, so ``tasks validate`` never passes a task that would silently run
differently from how its author meant. A key that is not in Harbor's model at all is reported as
unknown (a typo, usually).
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Callable
from typing import Any

# dotted path ("[]" for a list item) -> None (acted on) or a check giving a problem for a value
Check = Callable[[Any], str | None]


def _never(why: str) -> Check:
    return lambda value: None if value in (None, [], {}, "") else why


def _only(allowed: tuple, why: str) -> Check:
    return lambda value: None if value in allowed else why


# network_mode (none, public, allowlist) and allowed_hosts are acted on: an allowlist is enforced
# on the docker backend run as root; elsewhere the task fails at plan time (backends.registry).
_NETWORK = None
_HOSTS = None
_USER = _never("honoured on the docker backend only: the local sandbox runs every phase as its one user")


def _artifacts(value: Any) -> str | None:
    """Artifacts are collected from the agent's environment; one from another compose service
    cannot be (lancebench runs one container)."""
    others = sorted({str(e.get("service")) for e in value or [] if isinstance(e, dict)
                     and e.get("service") not in (None, "main")})
    if others:
        return f"artifacts from compose services {others} are not collected (lancebench runs one container, main)"
    return None


_ARTIFACTS = _artifacts


def _collect(value: Any) -> str | None:
    """Collect hooks run in the agent's environment; one for another compose service cannot."""
    others = sorted({str(h.get("service")) for h in value or [] if isinstance(h, dict)
                     and h.get("service", "main") != "main"})
    if others:
        return f"collect hooks in compose services {others} are not run (lancebench runs one container, main)"
    return None

HARBOR_FIELDS: dict[str, Check | None] = {
    "version": None, "schema_version": None, "source": None, "metadata": None, "lancebench": None,
    "task": None, "task.name": None, "task.version": None, "task.description": None, "task.authors": None,
    "task.keywords": None,
    "verifier": None, "verifier.timeout_sec": None, "verifier.env": None,
    "verifier.network_mode": _NETWORK, "verifier.allowed_hosts": _HOSTS, "verifier.user": _USER,
    "verifier.environment_mode": _only((None, "separate"),
                                       "'shared' is not supported: lancebench always grades in a fresh sandbox"),
    "verifier.environment": _never("a separate verifier environment is not supported (grading uses the task's)"),
    "verifier.collect": _collect,
    "agent": None, "agent.timeout_sec": None, "agent.network_mode": _NETWORK, "agent.allowed_hosts": _HOSTS,
    "agent.user": _USER,
    "environment": None, "environment.build_timeout_sec": None, "environment.docker_image": None,
    "environment.os": _only((None, "linux"), "only linux environments are supported"),
    "environment.cpus": None, "environment.memory_mb": None, "environment.storage_mb": None,
    "environment.memory": None, "environment.storage": None,
    "environment.gpus": _only((None, 0), "GPUs are not supported"),
    "environment.gpu_types": _never("GPUs are not supported"), "environment.tpu": _never("TPUs are not supported"),
    "environment.mcp_servers": _never("MCP servers are not given to agents"),
    "environment.skills_dir": _never("skills are not given to agents"),
    "environment.env": None, "environment.workdir": None,
    "environment.healthcheck": None,
    "environment.network_mode": _NETWORK, "environment.allowed_hosts": _HOSTS, "environment.allow_internet": None,
    "solution": None, "solution.env": None,
    "artifacts": _ARTIFACTS,
    "multi_step_reward_strategy": None,
    "steps": None, "steps[].name": None, "steps[].min_reward": None,
    "steps[].healthcheck": None,
    "steps[].artifacts": _ARTIFACTS,
    "steps[].agent": None, "steps[].agent.timeout_sec": None, "steps[].agent.network_mode": _NETWORK,
    "steps[].agent.allowed_hosts": _HOSTS, "steps[].agent.user": _USER,
    "steps[].verifier": None, "steps[].verifier.timeout_sec": None, "steps[].verifier.env": None,
    "steps[].verifier.network_mode": _NETWORK, "steps[].verifier.allowed_hosts": _HOSTS, "steps[].verifier.user": _USER,
    "steps[].verifier.environment_mode": _only((None, "separate"), "'shared' is not supported"),
    "steps[].verifier.environment": _never("a separate verifier environment is not supported"),
    "steps[].verifier.collect": _collect,
}

# tables whose keys are free-form (not fields): their inside is not checked here
_FREE = ("metadata", "lancebench", "verifier.env", "environment.env", "solution.env", "steps[].verifier.env",
         "task.authors", "environment.healthcheck", "steps[].healthcheck", "environment.tpu",
         "environment.mcp_servers", "verifier.environment", "verifier.collect", "steps[].verifier.environment",
         "steps[].verifier.collect", "artifacts", "steps[].artifacts", "steps[].min_reward")


def _walk(raw: dict, prefix: str = ""):
    """(dotted path, value) of every key of ``raw``, descending into tables and ``steps`` items."""
    for key, value in raw.items():
        path = f"{prefix}{key}"
        yield path, value
        if path in _FREE:
            continue
        if isinstance(value, dict):
            yield from _walk(value, path + ".")
        elif path == "steps" and isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    yield from _walk(item, "steps[].")


def unknown_keys(raw: dict) -> list[tuple[str, str | None]]:
    """(dotted path, the closest key Harbor's model has at the same place, or None) for every key
    of the raw ``task.toml`` table that Harbor 0.25's task model does not define: usually a typo
    (``agent.timeout_secs`` -> ``timeout_sec``), whose value would otherwise be ignored in silence."""
    found: list[tuple[str, str | None]] = []
    for path, _ in _walk(raw):
        if path not in HARBOR_FIELDS and not any(path.startswith(f"{p}.") for p, _ in found):  # a table once
            parent, _, key = path.rpartition(".")
            siblings = [f.rpartition(".")[2] for f in HARBOR_FIELDS if f.rpartition(".")[0] == parent]
            close = difflib.get_close_matches(key, siblings, n=1, cutoff=0.6)
            found.append((path, close[0] if close else None))
    return found


def unsupported_fields(raw: dict) -> list[str]:
    """One line per field of the raw ``task.toml`` table that lancebench does not act on (or whose
    value it does not support), and per key unknown to Harbor's model, each naming the key (and
    the closest known key, when one is close)."""
    problems = []
    unknown = dict(unknown_keys(raw))
    for path, value in _walk(raw):
        if path in unknown:
            hint = f" (did you mean '{unknown[path]}'?)" if unknown[path] else ""
            problems.append(f"{path}: unknown key (not in Harbor's task model){hint}; ignored")
            continue
        check = HARBOR_FIELDS[path]
        why = check(value) if check else None
        if why:
            shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
            problems.append(f"{path} = {shown}: unsupported: {why}")
    return problems


def task_unsupported(task) -> list[str]:
    """:func:`unsupported_fields` of a loaded task's ``task.toml``."""
    return unsupported_fields(tomllib.loads(task.paths.task_toml.read_text(encoding="utf-8")))

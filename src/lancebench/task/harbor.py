"""Harbor's task tables beyond the basics, as lancebench reads them.

The reference is Harbor 0.25's task model (``harbor.models.task.config`` on PyPI): every field it
defines is declared here, so :mod:`lancebench.task.support` can say, by name, which ones
lancebench acts on and which it does not. Values are checked only as far as lancebench uses them;
Harbor-only fields are kept as they are.
"""

from __future__ import annotations

import ipaddress
import re
from pathlib import PurePosixPath
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

NetworkMode = Literal["no-network", "public", "allowlist"]

_HOST = re.compile(r"^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$")


class HarborTable(BaseModel):
    """A Harbor table: known fields typed, unknown keys kept (``tasks validate`` names them)."""

    model_config = ConfigDict(extra="allow", frozen=True)


def parse_size_mb(value: str) -> int:
    """A legacy Harbor size string (``"8G"``, ``"512M"``, ``"2048K"``; case-insensitive) in MiB.

    Converts as Harbor 0.25 does (``EnvironmentConfig._parse_size_to_mb``): ``G`` times 1024,
    ``M`` as is, ``K`` divided by 1024, each truncated to an integer. Raises ``ValueError`` for
    any other suffix (``"8GB"``, ``"8"``).
    """
    text = value.strip().upper()
    factors = {"G": 1024.0, "M": 1.0, "K": 1 / 1024}
    if not text or text[-1] not in factors:
        raise ValueError(f"size {value!r} must end in G, M or K (like '8G' or '512M')")
    try:
        number = float(text[:-1])
    except ValueError:
        raise ValueError(f"size {value!r} must be a number followed by G, M or K (like '8G')") from None
    return int(number * factors[text[-1]])


def check_hosts(hosts: list[str] | None) -> list[str] | None:
    """Allowlist entries, lower-cased and without a trailing dot: host names, ``*.suffix``
    wildcards, IP addresses or CIDR ranges (never URLs, ports or paths), checked and normalised as
    Harbor 0.25 does (``_validate_allowed_host_names``): a CIDR range must have no host bits
    set (``10.0.0.0/8``, not ``10.0.0.1/8``), IPv6 is written compressed, a wildcard must name
    a host, not an address. Raises ``ValueError``."""
    if hosts is None:
        return None
    out = []
    for host in hosts:
        h = host.strip().lower().rstrip(".")
        if "://" in h:
            name = urlsplit(h).hostname or "the host"
            raise ValueError(f"allowed_hosts entry {host!r} is a URL: write the host name alone ({name!r})")
        if "/" in h or ":" in h:
            out.append(_address_entry(host, h))
            continue
        if not _HOST.match(h) or (h.startswith("*.") and _is_address(h[2:])):
            raise ValueError(f"allowed_hosts entry {host!r} must be a host name, *.suffix (of a name), "
                             f"IP address or CIDR range")
        out.append(h)
    return out


def _address_entry(host: str, h: str) -> str:
    """``h`` (``host`` lower-cased) as a compressed IPv6 address or CIDR range. Raises ``ValueError``
    naming the fix: the range with its host bits cleared, or that a port or path does not belong."""
    try:
        return ipaddress.ip_network(h, strict=True).compressed if "/" in h else ipaddress.IPv6Address(h).compressed
    except ValueError:
        pass
    try:
        loose = ipaddress.ip_network(h, strict=False).compressed
    except ValueError:
        raise ValueError(f"allowed_hosts entry {host!r} must be a host name, *.suffix, IP address or CIDR range "
                         "(like 10.0.0.0/8), without a port or path") from None
    raise ValueError(f"allowed_hosts entry {host!r} has host bits set: write the range as {loose!r}")


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


class PhaseNetwork(HarborTable):
    """``network_mode`` / ``allowed_hosts`` of ``[agent]`` or ``[verifier]``: an explicit
    override of the environment's policy for that phase (unset: the environment's applies)."""

    network_mode: NetworkMode | None = None
    allowed_hosts: list[str] | None = None

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts(cls, value: list[str] | None) -> list[str] | None:
        return check_hosts(value)

    @model_validator(mode="after")
    def _mode(self):
        if self.allowed_hosts is not None and self.network_mode != "allowlist":
            raise ValueError('allowed_hosts needs network_mode = "allowlist"')
        return self


class Healthcheck(HarborTable):
    """``[environment.healthcheck]`` (or a step's): Docker HEALTHCHECK semantics, in seconds.

    ``command`` runs in the environment until it exits 0; it must succeed before the agent starts.
    Failures during ``start_period_sec`` (checked every ``start_interval_sec``) do not count;
    after it, ``retries`` consecutive failures (checked every ``interval_sec``) fail the check.
    Each run is bounded by ``timeout_sec``.
    """

    command: str
    interval_sec: float = Field(5.0, ge=0)
    timeout_sec: float = Field(30.0, gt=0)
    start_period_sec: float = Field(0.0, ge=0)
    start_interval_sec: float = Field(5.0, ge=0)
    retries: int = Field(3, ge=1)


_SERVICE = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9_.-]*$")
MAIN_SERVICE = "main"


class ArtifactConfig(HarborTable):
    """One table entry of ``artifacts = [...]`` (a string entry is its ``source`` alone).

    ``source`` is a path in the environment (relative: to the workdir); ``destination`` a path
    relative to the trial's ``artifacts/`` (default: ``source`` without its leading ``/``);
    ``exclude`` patterns left out of a folder (GNU tar ``--exclude`` semantics); ``service`` the
    compose service (``main`` or unset: the agent's environment; lancebench has no other).
    Checked as Harbor 0.25 checks them (``harbor.models.task.config.ArtifactConfig``): no ``..``
    in either path, a relative destination with forward slashes that is not ``manifest.json``,
    an absolute source for another service. Raises ``ValueError`` (a validation error)."""

    source: str = Field(min_length=1)
    destination: str | None = None
    exclude: list[str] = Field(default_factory=list)
    service: str | None = None

    @field_validator("source")
    @classmethod
    def _source(cls, value: str) -> str:
        if ".." in PurePosixPath(value).parts:
            raise ValueError(f"artifact source {value!r} must not contain '..'")
        return value

    @field_validator("destination")
    @classmethod
    def _destination(cls, value: str | None) -> str | None:
        if not value:
            return None
        path = PurePosixPath(value)
        if "\\" in value or path.is_absolute() or ".." in path.parts:
            raise ValueError(f"artifact destination {value!r} must be a relative path with '/' and no '..'")
        if value.rstrip("/") == "manifest.json":
            raise ValueError("artifact destination 'manifest.json' is reserved for the collection manifest")
        return value

    @field_validator("service")
    @classmethod
    def _service(cls, value: str | None) -> str | None:
        if value is not None and not _SERVICE.match(value.strip()):
            raise ValueError(f"artifact service {value!r} is not a compose service name")
        return value.strip() if value is not None else None

    @model_validator(mode="after")
    def _sidecar_source(self):
        if self.service not in (None, MAIN_SERVICE) and not self.source.startswith("/"):
            raise ValueError(f"artifact source {self.source!r} of service {self.service!r} must be absolute")
        return self


class CollectHook(HarborTable):
    """One ``[[verifier.collect]]`` (or a step's): ``command`` run in ``service`` (``main``: the
    agent's environment, the only one lancebench has) after the agent's work is captured and
    before the artifacts are collected, bounded by ``timeout_sec`` (seconds), as ``user`` (the
    environment's default when unset). Its failure never changes the trial."""

    command: str
    service: str = MAIN_SERVICE
    timeout_sec: float = Field(60.0, gt=0)
    user: str | int | None = None

    @field_validator("service")
    @classmethod
    def _service(cls, value: str) -> str:
        if not _SERVICE.match(value.strip()):
            raise ValueError(f"collect hook service {value!r} is not a compose service name")
        return value.strip()


class SolutionConfig(HarborTable):
    """``[solution]``: ``env`` for ``solution/solve.sh`` (``${VAR}`` filled from the host)."""

    env: dict[str, str] = Field(default_factory=dict)


class PackageInfo(HarborTable):
    """``[task]``: the registry name (``org/name``), version, description, authors, keywords."""

    name: str
    version: str | None = None
    description: str = ""
    authors: list[dict[str, Any]] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)


class StepAgent(PhaseNetwork):
    """A step's ``[steps.agent]``: ``timeout_sec`` (seconds; unset: the task's) and network."""

    timeout_sec: float | None = Field(None, gt=0)
    user: str | int | None = None


class StepVerifier(PhaseNetwork):
    """A step's ``[steps.verifier]``: ``timeout_sec`` (unset: the task's), ``env`` added to the
    task's verifier env, and network."""

    timeout_sec: float | None = Field(None, gt=0)
    env: dict[str, str] = Field(default_factory=dict)
    user: str | int | None = None
    environment_mode: Literal["shared", "separate"] | None = None
    environment: dict[str, Any] | None = None
    collect: list[CollectHook] = Field(default_factory=list)


class StepConfig(HarborTable):
    """One ``[[steps]]`` entry: its files live under ``steps/<name>/`` (``instruction.md``,
    ``tests/``, optional ``solution/``). ``min_reward`` (a number gating the ``reward`` key, or a
    table of per-key thresholds) stops the later steps when this step's rewards fall below it."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    agent: StepAgent = Field(default_factory=StepAgent)
    verifier: StepVerifier = Field(default_factory=StepVerifier)
    min_reward: float | dict[str, float] | None = None
    healthcheck: Healthcheck | None = None
    artifacts: list[str | ArtifactConfig] = Field(default_factory=list)

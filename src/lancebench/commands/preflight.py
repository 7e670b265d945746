"""Checks before any trial starts (``lancebench run`` / ``grade``): each failure is one clear line
and a documented exit code (``docs/cli.md``), never a traceback, and nothing is written first.

- :func:`check_output_folder` / :func:`check_input_file`: an unusable ``-o``, a missing input;
- :func:`positive_limit`: limits are positive numbers, or the word ``unlimited``;
- :func:`check_modules`: an optional extra that is not installed, naming it;
- :func:`check_backend` / :func:`check_executor`: bubblewrap, the Docker SDK and engine, Ray;
- :func:`check_model`: the provider's API key is set; the API base answers.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import tempfile
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from lancebench.errors import ConfigError, MissingComponentError, ModelAccessError

UNLIMITED = "unlimited"
LLM_MODULES = {"litellm": "litellm", "minisweagent": "mini-swe-agent", "yaml": "pyyaml", "jinja2": "jinja2"}
CONNECT_TIMEOUT_SEC = 5.0


def check_output_folder(path: Path, option: str = "-o") -> None:
    """``path`` is a folder that exists and is writable, or can be created (its first existing
    ancestor is a writable folder). Raises :class:`ConfigError` naming the option and the fix."""
    path = Path(path)
    probe = path
    while not probe.exists():
        if probe.is_symlink():
            raise ConfigError(f"{option} {path}: {probe} is a dangling symlink; pass a folder")
        probe = probe.parent
    if not probe.is_dir():
        what = "is a file" if probe == path else f"cannot be made: {probe} is a file"
        raise ConfigError(f"{option} {path}: {what}; pass a folder (it is created when missing)")
    if not _can_write(probe):
        raise ConfigError(f"{option} {path}: {probe} is not writable (file permissions, or a read-only file "
                          f"system); pass a folder you can write")


def _can_write(folder: Path) -> bool:
    """Whether a file can be made in ``folder``, found by making (and removing) one: ``os.access``
    says yes to root everywhere, ``/proc`` and ``/sys`` included (issue 28)."""
    try:
        fd, name = tempfile.mkstemp(prefix=".lancebench-probe-", dir=folder)
    except OSError:
        return False
    os.close(fd)
    try:
        os.unlink(name)
    except OSError:
        pass
    return True


def check_input_file(path: Path, option: str) -> None:
    """``path`` is a readable file. Raises :class:`ConfigError` naming the option."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"{option} {path}: no such file")
    if not path.is_file():
        raise ConfigError(f"{option} {path}: is not a file")
    if not os.access(path, os.R_OK):
        raise ConfigError(f"{option} {path}: is not readable by this user")


def load_env_file(path: Path | None) -> None:
    """``--env-file``: put the ``KEY=VALUE`` lines of dotenv file ``path`` into this process's
    environment, over what is there (as Harbor's ``--env-file``), so that model checks, agents
    and model servers see the keys. The values stay in memory: no job file records them. Does
    nothing for None. Raises :class:`ConfigError` naming the file and the line that does not parse."""
    if path is None:
        return
    check_input_file(path, "--env-file")
    from dotenv import dotenv_values
    from dotenv.parser import parse_stream
    with open(path, encoding="utf-8", errors="replace") as fh:
        bad = next((b for b in parse_stream(fh) if b.error), None)
    if bad is not None:
        # the line itself is not shown: it may hold a key
        raise ConfigError(f"--env-file {path}: line {bad.original.line} is not KEY=VALUE; write KEY=VALUE "
                          "(quote values with spaces) or remove the line")
    os.environ.update({k: v for k, v in dotenv_values(path).items() if v is not None})


def check_job_name(name: str | None) -> str | None:
    """``--job-name``: a folder under ``-o`` (relative, no ``..`` part, not ``.`` or empty), so the
    job never lands outside the jobs folder. Returns it; raises :class:`ConfigError` naming the fix."""
    if name is None:
        return None
    parts = PurePosixPath(name).parts
    if not name.strip() or name.startswith("/") or ".." in parts or all(p == "." for p in parts):
        raise ConfigError(f"--job-name {name!r}: give a folder name under -o (relative, without '..'); "
                          "the job folder goes under -o")
    return name


def positive_limit(option: str, value: str | float | int | None, *, integer: bool = False,
                   unlimited: bool = True) -> float | int | None:
    """A limit given on the command line: a positive number, the word ``unlimited`` (returned as
    0, which the agents read as "no limit"; only where ``unlimited`` is true), or None (not given).
    Raises :class:`ConfigError` for zero, negative or non-numbers, saying what to write instead
    (never suggesting ``unlimited`` where it is refused)."""
    if value is None:
        return None
    kind = "a whole number" if integer else "a number"
    if isinstance(value, str) and value.strip().lower() == UNLIMITED:
        if unlimited:
            return 0
        raise ConfigError(f"{option} {value!r}: give {kind} > 0 (this limit always applies; there is no "
                          f"'{UNLIMITED}')")
    try:
        number = int(value) if integer else float(value)
    except (TypeError, ValueError):
        also = f", or '{UNLIMITED}'" if unlimited else ""
        raise ConfigError(f"{option} {value!r}: give {kind} > 0{also}") from None
    if not number > 0:
        also = f" (write '{option} {UNLIMITED}' for no limit)" if unlimited else ""
        raise ConfigError(f"{option} {value}: must be > 0{also}")
    return number


def check_modules(modules: dict[str, str], extra: str, why: str) -> None:
    """Every module of ``modules`` (import name -> package name) is installed. Raises
    :class:`MissingComponentError` naming the packages and the extra to install."""
    missing = [pkg for mod, pkg in modules.items() if importlib.util.find_spec(mod) is None]
    if missing:
        raise MissingComponentError(f"{why} needs {', '.join(missing)}, which is not installed: "
                                    f"pip install 'lancebench[{extra}]'")


def check_agent(agent: str, model: str | None, backend: str = "local") -> None:
    """The extras an LLM agent needs (``llm``; ``local`` for ``-m local``; ``gateway``, LiteLLM's
    proxy, for an installed agent, which runs on the backends of ``INSTALLED_BACKENDS``). Raises
    :class:`MissingComponentError` or :class:`ConfigError`."""
    from lancebench.agents.registry import INSTALLED, INSTALLED_BACKENDS
    if agent in INSTALLED:
        backends = INSTALLED_BACKENDS.get(agent, ("local",))
        if backend not in backends:
            raise ConfigError(f"-a {agent} runs on --backend {' or '.join(backends)} only for now (its install "
                              f"cache holds host binaries; see docs/agents.md, Installed agents): use --backend local")
        check_modules({"fastapi": "fastapi", "uvicorn": "uvicorn", "backoff": "litellm[proxy]"}, "gateway",
                      f"-a {agent} (its model gateway)")
    elif agent != "mini-swe-agent":
        return
    check_modules(LLM_MODULES, "llm", f"-a {agent}")
    if (model or "").split(":")[0] == "local":
        check_modules({"xllamacpp": "xllamacpp"}, "local", "-m local")


def check_backend(name: str) -> None:
    """``local`` needs bubblewrap; ``docker`` needs the Docker SDK and an engine that answers;
    any other name must be a ``module:Class`` plug-in that imports (built later). Raises
    :class:`MissingComponentError`, or :class:`ConfigError` for an unknown name (checked before the
    job folder records it: a typo must not become the job's configuration)."""
    if name == "local":
        if shutil.which("bwrap") is None:
            raise MissingComponentError("--backend local needs bubblewrap (bwrap): apt-get install bubblewrap")
    elif name == "docker":
        check_modules({"docker": "docker"}, "docker", "--backend docker")
        import docker
        try:
            docker.from_env(timeout=10).ping()
        except Exception as exc:  # the SDK raises several types for "no engine"
            host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
            raise MissingComponentError(f"--backend docker: no Docker engine answers at {host} "
                                        f"({type(exc).__name__}); start one (e.g. .ci/docker-setup.sh) "
                                        "or use --backend local") from None
    else:
        from lancebench.backends.registry import BACKENDS
        from lancebench.plugins import load_object
        if ":" not in name:
            raise ConfigError(f"unknown backend '{name}'; choose one of {', '.join(BACKENDS)} or module:Class")
        load_object(name, "backend")


def check_executor(name: str) -> None:
    """``ray`` needs Ray installed. Raises :class:`MissingComponentError` or :class:`ConfigError`."""
    if name == "ray":
        check_modules({"ray": "ray"}, "ray", "--executor ray")
    elif name != "local":
        raise ConfigError(f"--executor {name}: choose local or ray")


def check_model(model: str | None, api_base: str | None, option: str = "-m", base_option: str = "--api-base") -> None:
    """Without network calls: a ``provider/`` prefix litellm knows, and the provider's API key is
    set (hosted models without an API base); with an API base, something answers at its host and
    port. ``option`` / ``base_option`` name the flags in messages (``--judge-model`` /
    ``--judge-api-base`` for the judges). Raises :class:`ModelAccessError` or :class:`ConfigError`."""
    if not model:
        return
    if api_base:
        check_reachable(api_base, base_option)
        return
    if model.split(":")[0] == "local":
        return
    from lancebench.llm.client import resolve_model, unknown_provider
    problem = unknown_provider(model)
    if problem:
        raise ConfigError(f"{option} {model}: {problem}")
    key_env = resolve_model(model).key_env
    if key_env and not os.environ.get(key_env):
        raise ModelAccessError(f"{option} {model}: the API key is missing: set {key_env} "
                               f"(export {key_env}=...) or pass {base_option} for an OpenAI-compatible server")


def check_reachable(url: str, option: str = "--api-base") -> None:
    """A TCP connection to ``url``'s host and port opens within ``CONNECT_TIMEOUT_SEC`` seconds.
    Raises :class:`ModelAccessError` naming the URL, or :class:`ConfigError` for a malformed URL."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{option} {url}: write a URL such as http://127.0.0.1:8000/v1")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=CONNECT_TIMEOUT_SEC):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ModelAccessError(f"{option} {url}: nothing answers at {parts.hostname}:{port} ({reason}); "
                               "start the server or fix the URL") from None


def cpu_warnings(tasks: list, backend: str) -> list[str]:
    """One line per task asking for more CPUs (``[environment] cpus``) than the docker engine has:
    the docker sandbox runs it with the engine's count (Harbor refuses such a task). Empty for
    another backend or when the engine does not say."""
    if backend != "docker":
        return []
    try:
        import docker
        ncpu = int(docker.from_env(timeout=10).info().get("NCPU") or 0)
    except Exception:  # noqa: BLE001 - check_backend already said whether the engine answers
        return []
    return [f"{t.paths.task_toml}: key 'environment.cpus' asks for {t.config.environment.cpus:g} CPUs; the docker "
            f"engine has {ncpu}, so the task runs with {ncpu} (lower cpus, or use a larger engine)"
            for t in tasks if ncpu and t.config.environment.cpus > ncpu]



LOCAL_PUBLIC = ("on the local backend each command of a phase with the whole network gets a network namespace of "
                "its own with outbound access only (slirp4netns, host loopback disabled): it reaches the internet "
                "and the host's other addresses, never what the host serves on 127.0.0.1 (docs/security.md)")


def public_phases(task) -> list[str]:
    """The phases of ``task`` that get the whole network (``agent``, ``verifier``, ``step NAME
    agent``, ...), as :func:`lancebench.task.settings.network_policy` decides them."""
    from lancebench.task.settings import network_policy
    steps = [s.name for s in task.config.steps or []]
    pairs = [(f"step {n} {ph}", n, ph) for n in steps for ph in ("agent", "verifier")] if steps else [
        (ph, None, ph) for ph in ("agent", "verifier")]
    return [label for label, step, phase in pairs if network_policy(task, phase, step=step).mode == "public"]


def check_local_network(tasks: list, backend: str) -> None:
    """On the local backend, a task with a phase that gets the whole network needs slirp4netns
    (:mod:`lancebench.sandbox.local_net`; never the host's own network instead). Raises
    :class:`MissingComponentError` naming the first such task and the package to install."""
    from lancebench.sandbox.local_net import slirp_missing
    if backend != "local" or not slirp_missing():
        return
    for t in tasks:
        if phases := public_phases(t):
            raise MissingComponentError(f"{t.paths.task_toml}: {', '.join(phases)} public needs slirp4netns on "
                                        "--backend local (its own network namespace with outbound access only): "
                                        "apt-get install slirp4netns, or use --backend docker")

"""Connection to the Docker engine, shared by the docker backend's modules.

``client()`` returns one cached :class:`docker.DockerClient` (from ``DOCKER_HOST`` or the default
unix socket); ``engine_problem()`` says why no engine answers (None when one does); ``endpoint()``
gives what the exec streams connect to (the backend speaks the attach protocol itself, over
asyncio, so a timeout never waits on a blocked thread).
"""

from __future__ import annotations

import importlib
import os
import socket
import threading
from typing import Any

from lancebench.errors import SandboxError

#: Labels lancebench puts on what it creates (containers, images).
LABEL_MANAGED = "lancebench.managed"
LABEL_JOB = "lancebench.job"
LABEL_TRIAL = "lancebench.trial"
LABEL_ENVIRONMENT = "lancebench.caches"
LABEL_TASK = "lancebench.task"
#: ``HOST:PID:START`` of the harness process that created a container (see :func:`managed_labels`).
LABEL_OWNER = "lancebench.owner"

START_HINT = ("start one with `.ci/docker-setup.sh` (installs docker.io, starts dockerd, builds the base images), "
              "or point DOCKER_HOST at a running engine")

_lock = threading.Lock()
_client = None


def _import_docker():
    try:
        import docker  # noqa: PLC0415 (optional dependency)
    except ImportError as exc:
        raise SandboxError("the docker backend needs the Docker SDK: pip install 'lancebench[docker]'") from exc
    return docker


def client(timeout: float = 120.0):
    """The shared DockerClient (API calls time out after ``timeout`` seconds of silence).

    Raises :class:`SandboxError` when the SDK is missing or no engine answers."""
    global _client
    with _lock:
        if _client is None:
            docker = _import_docker()
            try:
                c = docker.from_env(timeout=int(timeout), max_pool_size=32)
                c.ping()
            except docker.errors.DockerException as exc:
                raise SandboxError(f"no Docker engine answers ({exc}); {START_HINT}") from exc
            _client = c
        return _client


def process_start(pid: int) -> str:
    """The start time of process ``pid`` on this machine (clock ticks since boot, field 22 of
    ``/proc/PID/stat``; "" when it does not exist), so that a reused pid is not taken for the
    process that had it before."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def _owner() -> str:
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{process_start(pid)}"


def managed_labels(**extra: str) -> dict[str, str]:
    """The labels of a container lancebench creates: ``lancebench.managed``, ``lancebench.owner``
    (``HOST:PID:START`` of this process, read back by :func:`owner_alive`) and ``extra``."""
    return {LABEL_MANAGED: "true", LABEL_OWNER: _owner(), **extra}


def owner_alive(owner: str | None) -> bool:
    """Whether the process an owner label names (``HOST:PID:START``, see :func:`managed_labels`)
    still runs: on this machine, the same pid with the same start time. False for no label (made
    by an older lancebench) and for another machine's process, which cannot be checked from here."""
    parts = (owner or "").rsplit(":", 2)
    if len(parts) != 3 or parts[0] != socket.gethostname() or not parts[1].isdigit():
        return False
    return process_start(int(parts[1])) == parts[2] != ""


def remove_container(ref: str) -> None:
    """Remove container ``ref`` (name or id) and its anonymous volumes, killing it first; a
    container already gone (or being removed) is fine. Raises :class:`SandboxError` when the
    engine refuses."""
    docker = _import_docker()
    try:
        client().api.remove_container(ref, force=True, v=True)
    except docker.errors.NotFound:
        pass
    except docker.errors.APIError as exc:
        if "already in progress" not in str(exc):
            raise SandboxError(f"docker could not remove container {ref}: {exc}") from exc


def new_client(timeout: float):
    """A separate client (for long builds, whose read timeout must exceed the build's)."""
    docker = _import_docker()
    try:
        return docker.from_env(timeout=int(max(timeout, 1)))
    except docker.errors.DockerException as exc:
        raise SandboxError(f"no Docker engine answers ({exc}); {START_HINT}") from exc


def engine_problem() -> str | None:
    """None when a Docker engine answers; otherwise why not, with how to start one."""
    try:
        client()
    except SandboxError as exc:
        return str(exc)
    return None


def async_client() -> Any:
    """An ``aiodocker.Docker`` client of the engine at :func:`endpoint`, bound to the running event
    loop (close it with ``await client.close()``), speaking the API version the shared SDK client
    (:func:`client`) agreed with the engine: no ``GET /version`` before its first request (one per
    sandbox, 10-18 ms each on a quiet machine). Raises :class:`SandboxError` as :func:`endpoint`."""
    import aiodocker

    kind, where = endpoint()
    version = str(client().api.api_version or "")
    return aiodocker.Docker(url=f"unix://{where}" if isinstance(where, str) else f"tcp://{where[0]}:{where[1]}",
                            api_version=f"v{version.removeprefix('v')}" if version else "auto")


_preload: threading.Thread | None = None


def preload_async_client() -> None:
    """Import aiodocker (aiohttp under it: 0.5-1 s of CPU) in a daemon thread, once per process,
    while the caller goes on with engine calls that mostly wait: the first exec stream then does
    not pay for the import (measured: 1.1 s of a warm docker trial on 2 loaded cores). The first
    :func:`async_client` waits on Python's import lock until the import is done. Never raises: an
    import failure is raised by :func:`async_client`, as before."""
    global _preload
    with _lock:
        if _preload is not None:
            return
        _preload = threading.Thread(target=_import_quietly, args=("aiodocker",), name="lancebench-preload",
                                    daemon=True)
    _preload.start()


def _import_quietly(name: str) -> None:
    try:
        importlib.import_module(name)
    except Exception:  # noqa: BLE001 - reported where the module is used (async_client)
        pass


def endpoint() -> tuple[str, str | tuple[str, int]]:
    """Where exec streams connect: ``("unix", path)`` or ``("tcp", (host, port))``.

    Raises :class:`SandboxError` for TLS or ssh engines (not supported by the exec streams)."""
    docker = _import_docker()
    tls = bool(os.environ.get("DOCKER_TLS_VERIFY"))
    url = docker.utils.parse_host(os.environ.get("DOCKER_HOST"), False, tls=tls)
    if url.startswith("http+unix://"):
        return "unix", url[len("http+unix://"):]
    if url.startswith("http://"):
        hostport = url[len("http://"):].rstrip("/")
        host, _, port = hostport.rpartition(":")
        return "tcp", (host or "localhost", int(port or 2375))
    raise SandboxError(f"DOCKER_HOST={url}: the docker backend supports unix sockets and plain tcp engines; "
                       "reach a remote engine through `ssh -L` to a local socket instead")


def drop_stream(chunks: Any) -> None:
    """Close the HTTP response behind an archive stream of the docker SDK (``get_archive``) that
    is not read to its end, so that the engine stops writing it and lets the container go
    (otherwise it holds the container until the stream is read, and removing it times out)."""
    frame = getattr(chunks, "gi_frame", None)
    response = frame.f_locals.get("response") if frame is not None else None
    getattr(chunks, "close", lambda: None)()
    if response is not None:
        response.close()

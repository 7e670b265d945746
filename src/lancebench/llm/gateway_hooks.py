"""Code that runs inside the model gateway's process (LiteLLM's proxy, :mod:`.gateway`), never in
lancebench's: the per-trial key check and the usage log.

- :func:`check_key` is the proxy's ``general_settings.custom_auth``: a request is let through only
  when the sha256 of its key names a file in ``$LANCEBENCH_GATEWAY_DIR/keys/`` (written by
  :meth:`Gateway.issue_key`, deleted when the trial ends) and its path is a model call
  (:data:`MODEL_ROUTES`: the proxy's other routes, such as ``/health``, which calls the model
  outside any trial's usage, are refused). This stands in for LiteLLM's virtual keys, which need a
  database; the request is then tagged with the key's hash as ``user_id``. Before it, the key's
  bounds (the key file's JSON: a request's size, requests in flight) were applied by
  :mod:`.gateway_limits`, before LiteLLM read the request.
- :data:`usage_log` (a ``litellm_settings.callbacks`` entry) appends one JSON line per answered
  call to ``$LANCEBENCH_GATEWAY_DIR/usage/<key hash>.jsonl``: ``prompt_tokens``,
  ``completion_tokens``, ``cached_tokens`` (counts), ``cost_usd`` (USD from LiteLLM's price
  table, None when LiteLLM could not price the call), ``model``, ``call_type``, ``time``; a
  streamed answer the client stopped reading (LiteLLM bills what was streamed) also has
  ``cut: "client disconnected"`` and ``estimate: true``.
- Calls in flight: before a call goes to the model, :data:`usage_log` writes
  ``usage/<key hash>.inflight/<call>.json`` (``call``: a random name of the gateway's, never the
  client's; ``prompt_tokens``: LiteLLM's token counter over the request's text, bounded by the
  model's input window), and a streamed answer's text is appended to ``<call>.stream`` as it goes
  out; both are removed when the call is logged as answered; a failed call is marked ``failed``
  (it counts nothing), except one that timed out (LiteLLM's 408), which the model may have run
  and billed: it stays in flight with ``reason: "timed out"``, counted at its estimate.
  What is still there when the trial ends is a call the trial's end cut: :func:`claim_cut` (run
  by lancebench, :meth:`Gateway.end`) turns it into a usage line marked ``cut``. A key's usage
  file and in-flight folder change only under the key's lock (``usage/<key hash>.lock``,
  ``flock``); a request that reaches the model after its trial ended is refused (401).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeGuard

from litellm.integrations.custom_logger import CustomLogger
from litellm.proxy._types import ProxyErrorTypes, ProxyException, UserAPIKeyAuth

from lancebench.llm.gateway_limits import KeyLimits, key_hash

CALL_KEY = "lancebench_gateway_call"  # where a call's in-flight name rides: the logging object's details
MAX_TEXT_CHARS = 4_000_000  # of a request's text counted (far above any model's window in tokens)
CHARS_PER_WINDOW_TOKEN = 8  # text counted per token of the model's window (prose and code: 3-4 a token)
HEX = frozenset("0123456789abcdef")
# The routes a trial key may use: model calls (OpenAI chat, completions, embeddings and Responses,
# Anthropic messages) and the model list. Every other route of the proxy is refused: GET /health
# made a model call that no trial's usage recorded (attack pass round 11); others show its settings.
MODEL_ROUTES = frozenset(f"{prefix}/{route}" for prefix in ("", "/v1") for route in (
    "chat/completions", "completions", "embeddings", "responses", "messages", "messages/count_tokens", "models"))
# A request's own say over how often and how long LiteLLM tries the model (its body, or the
# x-litellm-timeout / x-litellm-num-retries headers LiteLLM copies into it): dropped, so the
# gateway's settings hold. A call timed out on purpose (``"timeout": 0.3``) was tried 4 times (7
# with ``"num_retries": 6``), each attempt run by the model, and then failed: no usage, no cost,
# never against the trial's limits (attack pass round 15).
CLIENT_TRY_PARAMS = ("timeout", "request_timeout", "stream_timeout", "num_retries", "max_retries",
                     "client_side_timeout", "fallbacks", "context_window_fallbacks", "content_policy_fallbacks",
                     "router_settings_override", "retry_policy", "model_group_retry_policy", "mock_timeout")


def _root() -> Path:
    return Path(os.environ["LANCEBENCH_GATEWAY_DIR"])


def _is_name(text: object, length: int) -> TypeGuard[str]:
    return isinstance(text, str) and len(text) == length and set(text) <= HEX


@contextlib.contextmanager
def locked(usage_dir: Path, digest: str) -> Iterator[None]:
    """Hold the lock of key ``digest``'s usage records (``usage_dir/<digest>.lock``, ``flock``)."""
    usage_dir.mkdir(parents=True, exist_ok=True)
    with open(usage_dir / f"{digest}.lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def claim_cut(usage_dir: Path, digest: str, reason: str,
              price: Any = None) -> list[dict]:
    """Turn the calls of key ``digest`` still in flight into usage lines marked ``cut`` (with
    ``reason``, or "client disconnected" when the proxy saw the client go, ``estimate: true``;
    ``completion_tokens``: :func:`streamed_tokens`), appended to its usage file and returned; their in-flight
    records are replaced by ``<call>.cut`` markers, so that an answer logged later is not counted
    a second time. ``price(prompt_tokens, completion_tokens)``: their cost in USD (None: unknown).
    Runs in lancebench's process, under the key's lock."""
    folder = usage_dir / f"{digest}.inflight"
    lines: list[dict] = []
    with locked(usage_dir, digest):
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            try:
                rec = json.loads(path.read_text())
            except (OSError, ValueError):
                rec = {}
            path.rename(path.with_suffix(".cut"))
            if rec.get("failed") or not isinstance(rec, dict):
                continue
            prompt, completion = _so_far(rec, path)
            line = {"prompt_tokens": prompt, "completion_tokens": completion, "cached_tokens": 0,
                    "cost_usd": price(prompt, completion) if price is not None else None,
                    "model": rec.get("model"), "call_type": rec.get("call_type"), "time": time.time(),
                    "started": rec.get("started")}
            if rec.get("answered") is None:  # answered: its usage, sent before LiteLLM logged it
                line |= {"cut": str(rec.get("reason") or reason), "estimate": True}
            lines.append(line)
        if lines:
            with open(usage_dir / f"{digest}.jsonl", "a") as f:
                f.writelines(json.dumps(line) + "\n" for line in lines)
    return lines


def _so_far(rec: dict, path: Path) -> tuple[int, int]:
    """(prompt tokens, answer tokens) of the call in flight whose record ``rec`` is at ``path``:
    the usage its answer reported when it was sent (``answered``), else the prompt as counted
    when it came and the answer's tokens streamed so far (:func:`streamed_tokens`)."""
    answered = rec.get("answered")
    if isinstance(answered, list) and len(answered) == 2:
        return int(answered[0]), int(answered[1])
    return (int(rec.get("prompt_tokens") or 0),
            streamed_tokens(str(rec.get("model") or ""), path.with_suffix(".stream")))


def streamed_tokens(model: str, path: Path) -> int:
    """LiteLLM's token count, for ``model``, of the answer text streamed so far (``path``, written
    by the gateway as chunks went out; 0 when absent), bounded by the model's answer limit when
    LiteLLM's table knows it."""
    try:
        with open(path, errors="replace") as f:
            text = f.read(MAX_TEXT_CHARS)
    except OSError:
        return 0
    if not text:
        return 0
    import litellm
    n = litellm.token_counter(model=model, text=text)
    return min(n, _window(model, "max_output_tokens") or n)


def _texts(value: Any, out: list[str]) -> None:
    """Every string inside ``value`` (a request's messages, system, input, tools) except images,
    audio and files, appended to ``out``."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        if value.get("type") in ("image_url", "image", "input_image", "input_audio", "file", "input_file"):
            return
        for k, v in value.items():
            if k not in ("role", "type", "cache_control", "id", "tool_call_id", "call_id"):
                _texts(v, out)
    elif isinstance(value, list):
        for v in value:
            _texts(v, out)


def _plain_messages(messages: Any) -> list[dict] | None:
    """Chat messages with text contents only (for LiteLLM's token counter, which would fetch an
    image's URL to size it); None when ``messages`` is not a list of messages."""
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        return None
    plain = []
    for m in messages:
        out: list[str] = []
        _texts({k: v for k, v in m.items() if k != "role"}, out)
        plain.append({"role": str(m.get("role") or "user"), "content": "\n".join(out)})
    return plain


def prompt_tokens(model: str, data: dict) -> int:
    """LiteLLM's token count of the request ``data`` for ``model``: its chat messages (text only)
    as LiteLLM counts messages, plus the text of its system prompt, input, instructions and tools;
    the text is cut at :data:`MAX_TEXT_CHARS`, and at :data:`CHARS_PER_WINDOW_TOKEN` characters
    per token of the model's input window (LiteLLM's model table) when known, and the count is
    bounded by that window: text past what the window can hold is not counted (attack pass round
    11: counting is most of the gateway's work for a large request)."""
    import litellm

    plain = _plain_messages(data.get("messages"))
    rest: list[str] = []
    _texts([data.get(k) for k in ("system", "input", "instructions", "tools")], rest)
    if plain is None:
        _texts(data.get("messages"), rest)
    n = 0
    window = _window(model, "max_input_tokens")
    budget = min(MAX_TEXT_CHARS, window * CHARS_PER_WINDOW_TOKEN) if window else MAX_TEXT_CHARS
    if plain:
        plain = [{"role": m["role"], "content": m["content"][:budget]} for m in plain]
        n += litellm.token_counter(model=model, messages=plain)
        budget -= sum(len(m["content"]) for m in plain)
    text = "\n".join(rest)[:max(budget, 0)]
    if text:
        n += litellm.token_counter(model=model, text=text)
    return min(n, window or n)


def _window(model: str, field: str) -> int | None:
    import litellm
    try:
        value = litellm.get_model_info(model).get(field)
    except Exception:  # noqa: BLE001  (not in LiteLLM's table)
        return None
    return int(value) if isinstance(value, int) and value > 0 else None


def _chunk_text(chunk: Any) -> str:
    """The answer's text in a streamed chunk: content, reasoning and tool-call arguments."""
    out: list[str] = []
    for choice in getattr(chunk, "choices", None) or []:
        delta = getattr(choice, "delta", None)
        if delta is None:
            continue
        for attr in ("content", "reasoning_content"):
            text = getattr(delta, attr, None)
            if isinstance(text, str):
                out.append(text)
        for call in getattr(delta, "tool_calls", None) or []:
            fn = getattr(call, "function", None)
            for attr in ("name", "arguments"):
                text = getattr(fn, attr, None)
                if isinstance(text, str):
                    out.append(text)
    return "".join(out)


async def check_key(request: Any, api_key: str) -> UserAPIKeyAuth:
    """LiteLLM custom auth: accept a live trial key on a model route (:data:`MODEL_ROUTES`), refuse
    anything else (raises, so the proxy answers 401, or 403 for another route)."""
    key = (api_key or "").removeprefix("Bearer ").strip()
    digest = key_hash(key)
    if not key or not (_root() / "keys" / digest).is_file():
        raise ProxyException(message="lancebench gateway: this key is not valid (unknown, or its trial ended)",
                             type=ProxyErrorTypes.auth_error, param="api_key", code=401)
    path = str(getattr(getattr(request, "url", None), "path", "") or "").rstrip("/")
    if path not in MODEL_ROUTES:
        raise ProxyException(message=f"lancebench gateway: only model calls are served, not {path[:100]!r}",
                             type=ProxyErrorTypes.auth_error, param="path", code=403)
    return UserAPIKeyAuth(api_key=digest, user_id=digest, key_alias=digest)


def _cached(slo: dict) -> int:
    usage = (slo.get("metadata") or {}).get("usage_object") or {}
    details = usage.get("prompt_tokens_details") or {}
    return int(details.get("cached_tokens") or usage.get("cache_read_input_tokens") or 0)


def _call_of(details: Any, digest: str | None) -> str | None:
    """The in-flight name the gateway gave the call whose logging details are ``details``, when
    it belongs to key ``digest`` (a name the client set cannot reach another key's records)."""
    ref = details.get(CALL_KEY) if isinstance(details, dict) else None
    if not isinstance(ref, list | tuple) or len(ref) != 2 or ref[0] != digest or not _is_name(ref[1], 32):
        return None
    return ref[1]


def _usage_of(response: Any) -> list[int] | None:
    """``[prompt tokens, answer tokens]`` a model's answer reports (chat and text completions,
    Responses, Anthropic messages), or None when it reports none."""
    usage = getattr(response, "usage", None)
    if usage is None and isinstance(response, dict):
        usage = response.get("usage")
    if usage is None:
        return None
    get = usage.get if isinstance(usage, dict) else (lambda name: getattr(usage, name, None))
    prompt, answer = get("prompt_tokens") or get("input_tokens"), get("completion_tokens") or get("output_tokens")
    if not isinstance(prompt, int) and not isinstance(answer, int):
        return None
    return [max(int(prompt or 0), 0), max(int(answer or 0), 0)]


def _update(digest: str, call: str, **fields: Any) -> None:
    """Change the in-flight record ``call`` of key ``digest`` (nothing when it is gone: answered or cut)."""
    usage = _root() / "usage"
    path = usage / f"{digest}.inflight" / f"{call}.json"
    with locked(usage, digest):
        try:
            rec = json.loads(path.read_text())
        except (OSError, ValueError):
            return
        _write_json(path, rec | fields)


def _model() -> str:
    return os.environ.get("LANCEBENCH_GATEWAY_MODEL", "")


class UsageLog(CustomLogger):
    """Writes each call's usage and cost to the trial's usage file, and keeps the record of each
    call in flight (the module docstring)."""

    async def async_pre_call_hook(self, user_api_key_dict: Any, cache: Any, data: dict, call_type: Any) -> dict:
        digest = str(getattr(user_api_key_dict, "user_id", None) or "")
        details = getattr(data.get("litellm_logging_obj"), "model_call_details", None)
        for name in CLIENT_TRY_PARAMS:
            data.pop(name, None)
        if not _is_name(digest, 64) or not isinstance(details, dict):
            return data
        call = secrets.token_hex(16)
        details[CALL_KEY] = (digest, call)
        try:
            tokens = await asyncio.to_thread(prompt_tokens, _model(), data)
        except Exception:  # noqa: BLE001  (a request the counter cannot read: counted 0)
            tokens = 0
        usage = _root() / "usage"
        with locked(usage, digest):
            if not (_root() / "keys" / digest).is_file():  # its trial ended meanwhile: nothing goes out
                raise ProxyException(message="lancebench gateway: this key's trial ended",
                                     type=ProxyErrorTypes.auth_error, param="api_key", code=401)
            (usage / f"{digest}.inflight").mkdir(exist_ok=True)
            within_limits(usage, digest)
            _write_json(usage / f"{digest}.inflight" / f"{call}.json",
                        {"call": call, "model": _model(), "call_type": str(call_type), "started": time.time(),
                         "prompt_tokens": tokens, "completion_tokens": 0})
        return data

    async def async_post_call_streaming_iterator_hook(self, user_api_key_dict: Any, response: Any,
                                                      request_data: dict) -> Any:
        digest = str(getattr(user_api_key_dict, "user_id", None) or "")
        call = _call_of(getattr(request_data.get("litellm_logging_obj"), "model_call_details", None), digest)
        streamed = None
        try:
            async for chunk in response:
                text = _chunk_text(chunk) if call is not None else ""
                if text:
                    if streamed is None:
                        streamed = open(_root() / "usage" / f"{digest}.inflight" / f"{call}.stream", "a")  # noqa: SIM115
                    streamed.write(text)
                    streamed.flush()
                yield chunk
        finally:  # also when the client went away (GeneratorExit, CancelledError)
            if streamed is not None:
                streamed.close()

    async def async_post_call_success_hook(self, data: dict, user_api_key_dict: Any, response: Any) -> Any:
        """Before an answer (not streamed) goes to the client: its usage as the model reported it
        joins the call's in-flight record, so that a trial ended before LiteLLM logs the answer
        (an agent that exits as soon as it came) counts the answer, not a cut call's estimate of
        its prompt alone (attack pass round 14)."""
        digest = str(getattr(user_api_key_dict, "user_id", None) or "")
        call = _call_of(getattr(data.get("litellm_logging_obj"), "model_call_details", None), digest)
        answered = _usage_of(response)
        if call is not None and answered is not None:
            await asyncio.to_thread(_update, digest, call, answered=answered)
        return response

    async def async_post_call_failure_hook(self, request_data: dict, original_exception: Exception,
                                           user_api_key_dict: Any, traceback_str: str | None = None) -> None:
        digest = str(getattr(user_api_key_dict, "user_id", None) or "")
        call = _call_of(getattr(request_data.get("litellm_logging_obj"), "model_call_details", None), digest)
        if call is not None and getattr(original_exception, "status_code", None) == 499:
            await asyncio.to_thread(_update, digest, call, reason="client disconnected")

    async def async_log_failure_event(self, kwargs: dict, response_obj: Any, start_time: Any, end_time: Any) -> None:
        digest = str(((kwargs.get("standard_logging_object") or {}).get("metadata") or {}).get("user_api_key_user_id"))
        call = _call_of(kwargs, digest)
        exc = kwargs.get("exception")
        if call is None or isinstance(exc, asyncio.CancelledError):
            return
        if getattr(exc, "status_code", None) == 408:  # timed out: the model may have run it (and billed it)
            await asyncio.to_thread(_update, digest, call, reason="timed out")
        else:
            await asyncio.to_thread(_update, digest, call, failed=True)

    async def async_log_success_event(self, kwargs: dict, response_obj: Any, start_time: Any, end_time: Any) -> None:
        slo = kwargs.get("standard_logging_object") or {}
        digest = (slo.get("metadata") or {}).get("user_api_key_user_id")
        if not _is_name(digest, 64):
            return
        priced = slo.get("response_cost_failure_debug_info") is None
        line = {"prompt_tokens": int(slo.get("prompt_tokens") or 0),
                "completion_tokens": int(slo.get("completion_tokens") or 0), "cached_tokens": _cached(slo),
                "cost_usd": float(slo.get("response_cost") or 0.0) if priced else None,
                "model": slo.get("model"), "call_type": slo.get("call_type"), "time": time.time()}
        meta = (kwargs.get("litellm_params") or {}).get("metadata") or {}
        if isinstance(meta, dict) and meta.get("client_disconnected"):
            line |= {"cut": "client disconnected", "estimate": True}
        usage, call = _root() / "usage", _call_of(kwargs, digest)
        await asyncio.to_thread(_log_answer, usage, digest, call, line)


def within_limits(usage: Path, digest: str) -> None:
    """Refuse the next call of key ``digest`` (raise :class:`ProxyException`, 400
    ``budget_exceeded``) when its key file's limits (:meth:`Gateway.issue_key`) are reached: calls
    answered, cut or in flight against ``max_calls``; the cost of its answered and cut calls, and
    of its calls in flight at their estimate (:func:`_estimate`), against ``max_cost_usd``. The
    first refusal's reason goes to ``usage/<digest>.limit``. Call it under the key's lock."""
    try:
        limits = KeyLimits.loads((_root() / "keys" / digest).read_text())
    except OSError:
        return
    max_calls, max_cost = limits.max_calls, limits.max_cost_usd
    if not (max_calls or max_cost):
        return
    log = usage / f"{digest}.jsonl"
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()] if log.exists() else []
    inflight = sorted((usage / f"{digest}.inflight").glob("*.json"))
    calls = len(lines) + len(inflight)
    cost = sum(float(line.get("cost_usd") or 0.0) for line in lines)
    if max_cost and cost < max_cost:  # calls still in flight at their estimate (attack pass round 14)
        cost += sum(_estimate(path) for path in inflight)
    reason = (f"max_steps {max_calls} reached ({calls} model calls)" if max_calls and calls >= max_calls else
              f"max_cost {max_cost:g} USD reached ({cost:.6f} USD spent)" if max_cost and cost >= max_cost else None)
    if reason is None:
        return
    reached = usage / f"{digest}.limit"
    if not reached.exists():
        reached.write_text(reason)
    raise ProxyException(message=f"lancebench gateway: the trial's limit is reached: {reason}",
                         type=ProxyErrorTypes.budget_exceeded, param="api_key", code=400)


def _estimate(record: Path) -> float:
    """USD of the call in flight whose record is ``record`` as :meth:`Gateway.end` would price it
    if it were cut now: its prompt tokens and the answer's tokens streamed so far, at LiteLLM's
    price of the gateway's model (0 when the record cannot be read, the call failed, or the model
    is not priced). A call the client dropped stays in flight, unanswered, until its trial ends:
    without this its cost never met the key's ``max_cost`` (attack pass round 14, calls dropped
    1 s after they were sent)."""
    try:
        rec = json.loads(record.read_text())
    except (OSError, ValueError):
        return 0.0
    if not isinstance(rec, dict) or rec.get("failed"):
        return 0.0
    import litellm
    model = str(rec.get("model") or _model())
    tokens, answer = _so_far(rec, record)
    try:
        prompt, completion = litellm.cost_per_token(model=model, prompt_tokens=tokens, completion_tokens=answer)
    except Exception:  # noqa: BLE001  (not in LiteLLM's price table: unknown, as a local model's)
        return 0.0
    return float(prompt) + float(completion)


def _log_answer(usage: Path, digest: str, call: str | None, line: dict) -> None:
    """Append ``line`` to key ``digest``'s usage file and drop the call's in-flight record, unless
    the trial's end already counted the call as cut (its ``.cut`` marker)."""
    with locked(usage, digest):
        if call is not None:
            inflight = usage / f"{digest}.inflight" / f"{call}.json"
            if inflight.with_suffix(".cut").exists():
                return
            inflight.unlink(missing_ok=True)
            inflight.with_suffix(".stream").unlink(missing_ok=True)
        with open(usage / f"{digest}.jsonl", "a") as f:
            f.write(json.dumps(line) + "\n")


usage_log = UsageLog()

"""Model access through litellm: one chat-completion call at a time, with retries, usage and cost.

A *model name* is whatever litellm accepts (``openai/gpt-4o-mini``, ``anthropic/claude-...``), or
``local`` / ``local:/path/model.gguf`` for the local server of :mod:`lancebench.llm.local` (then
``api_base`` must be that server's address). Any OpenAI-compatible server is reached with
``api_base`` (a model name without a provider prefix is then sent as ``openai/<name>``).

Usage of each call: ``input_tokens`` (all prompt tokens, cached ones included, as ATIF counts
them), ``output_tokens``, ``cached_tokens`` (the cached subset of the input) and ``cost_usd``: from
user-given :class:`Prices` if any, else 0.0 for a local model, else litellm's price table, else
``None`` (unknown; never a crash, never a silent 0).

Errors: authentication refusals (HTTP 401/403) raise :class:`ModelAuthError` at once, naming the
environment variable to set; a used-up quota or credit (a 429 whose code is ``insufficient_quota``,
HTTP 402, a billing refusal) raises :class:`ModelQuotaError` at once (it stops the job like a
refused key); rate limits (429), server errors (5xx), timeouts and connection errors are retried
with exponential backoff, then raise :class:`ModelError`; other refusals (400, 404) raise
:class:`ModelError` without retry, except an exceeded context window, which raises
:class:`ContextWindowError` (the agent's own limit, not an outage).

Pacing (:mod:`lancebench.llm.pacing`): a server's ``Retry-After`` (seconds or an HTTP date) or
``retry-after-ms`` sets the wait before a retry (up to ``max_backoff_sec``), and a 429 holds every
call of the same model for that wait; a provider's ``x-ratelimit-remaining-*: 0`` holds later
calls until ``x-ratelimit-reset-*``; at most :func:`lancebench.llm.pacing.calls_in_flight` calls
per model run at once.

An answer without content (no ``choices``, a null ``message``, a filtered reply) is an answer,
not an error: :attr:`Completion.empty` says why it is empty, and its usage is counted. Every
call's usage (and the retries of a call that gave up) also goes to the active
:class:`lancebench.llm.meter.UsageMeter`.
"""

from __future__ import annotations

import os
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import tenacity
from tenacity.stop import stop_base

from lancebench.errors import ModelAuthError, ModelError, ModelQuotaError, ModelRefused
from lancebench.llm.answers import empty_reason, unconverted_answer
from lancebench.llm.failures import classify_error, headers_of, status_of
from lancebench.llm.meter import record as record_usage
from lancebench.llm.pacing import gate as model_gate, rate_limit_wait_sec, retry_after_sec
from lancebench.results.models import Usage

# litellm fetches its price table from the network at import unless told otherwise; the copy shipped
# inside the package is used instead, so lancebench runs offline.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

LOCAL_PREFIX = "local"
DUMMY_API_KEY = "lancebench-no-key"

# Provider prefix -> environment variable holding its key (when litellm cannot tell us).
_KEY_ENV = {
    "openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY", "groq": "GROQ_API_KEY", "mistral": "MISTRAL_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY", "together_ai": "TOGETHERAI_API_KEY", "xai": "XAI_API_KEY",
    "azure": "AZURE_API_KEY", "fireworks_ai": "FIREWORKS_AI_API_KEY", "cohere": "COHERE_API_KEY",
}


class DeadlineExceeded(ModelError):
    """The caller's deadline ended a call that was still waiting for the model (a slow answer, not
    an outage). Agents end with a ``timeout`` exit when they meet it."""


class ContextWindowError(ModelError):
    """The request exceeded the model's context window: the agent's conversation grew too long.
    Not an outage; agents end with a ``limit`` exit when they meet it."""


def _litellm():
    import litellm  # slow import (seconds): only when a model is really used

    litellm.suppress_debug_info = True
    return litellm


@dataclass(frozen=True)
class Prices:
    """User-given prices in USD per million tokens. ``cached_input`` defaults to ``input``."""

    input: float
    output: float
    cached_input: float | None = None

    def cost(self, input_tokens: int, output_tokens: int, cached_tokens: int) -> float:
        """USD for one call; ``input_tokens`` includes ``cached_tokens``."""
        cached_rate = self.input if self.cached_input is None else self.cached_input
        return ((input_tokens - cached_tokens) * self.input + cached_tokens * cached_rate
                + output_tokens * self.output) / 1_000_000

    @classmethod
    def parse(cls, value: Prices | dict | None) -> Prices | None:
        """Accept a Prices, a dict ``{"input": .., "output": .., "cached_input": ..}`` or None."""
        if value is None or isinstance(value, Prices):
            return value
        try:
            return cls(**value)
        except TypeError as exc:
            from lancebench.errors import ConfigError
            raise ConfigError(f"model prices {value!r}: {exc} "
                              "(give input and output in USD per million tokens)") from exc


@dataclass(frozen=True)
class ResolvedModel:
    """How a lancebench model name is sent to litellm.

    ``name``: as given; ``litellm_model``: the name litellm is called with; ``api_base``: the
    server address or None (provider default); ``api_key``: an explicit key or None (litellm reads
    the provider's variable); ``local``: served by lancebench on this machine (costs 0);
    ``key_env``: the environment variable a refused key should be set in.
    """

    name: str
    litellm_model: str
    api_base: str | None
    api_key: str | None
    local: bool
    key_env: str | None


def is_local_model(model: str) -> bool:
    """True for ``local`` and ``local:/path/model.gguf``."""
    return model == LOCAL_PREFIX or model.startswith(LOCAL_PREFIX + ":")


def _key_env(litellm_model: str) -> str | None:
    provider = litellm_model.split("/", 1)[0] if "/" in litellm_model else None
    if provider in _KEY_ENV:
        return _KEY_ENV[provider]
    try:
        found = _litellm().validate_environment(model=litellm_model)
    except Exception:  # litellm cannot classify this name: no variable to suggest
        return None
    missing = found.get("missing_keys") or []
    return missing[0] if missing else None


def unknown_provider(model: str) -> str | None:
    """For ``provider/name`` with a provider litellm does not know (``opneai/gpt-4o``), a sentence
    naming it and the closest known providers; None when the provider is known or the name has
    no ``provider/`` prefix (litellm then infers it from the name)."""
    import difflib

    if "/" not in model:
        return None
    provider = model.split("/", 1)[0]
    known = [str(getattr(p, "value", p)) for p in _litellm().provider_list]
    if provider in known:
        return None
    close = difflib.get_close_matches(provider, known, n=3)
    return (f"provider {provider!r} is not one litellm knows"
            + (f" (did you mean {' or '.join(close)}?)" if close else "")
            + "; see https://docs.litellm.ai/docs/providers")


def resolve_model(model: str, api_base: str | None = None) -> ResolvedModel:
    """Map a ``-m`` value (and ``--api-base``) to what litellm is called with.

    ``local`` / ``local:/x.gguf`` become ``openai/<file stem>`` at ``api_base`` with a dummy key
    (raises :class:`ConfigError` when ``api_base`` is None: start the server first, see
    :func:`lancebench.llm.local.serve_model`). With an ``api_base`` and no provider prefix the name
    becomes ``openai/<name>``; an ``openai/`` name at a custom ``api_base`` without
    ``OPENAI_API_KEY`` set is sent with a placeholder key (most local servers need none).
    """
    from lancebench.errors import ConfigError

    model = model.strip()
    if not model:
        raise ConfigError("empty model name (give -m, e.g. -m openai/gpt-4o-mini or -m local)")
    if is_local_model(model):
        if not api_base:
            raise ConfigError(f"model {model!r} needs the local model server: run it inside "
                              "lancebench.llm.serve_model(model) and pass the api_base it yields")
        path = model[len(LOCAL_PREFIX) + 1:] if ":" in model else ""
        stem = os.path.splitext(os.path.basename(path))[0] if path else "smollm2-135m-instruct"
        return ResolvedModel(model, f"openai/{stem}", api_base, DUMMY_API_KEY, True, None)
    litellm_model = model
    if api_base and "/" not in model:
        litellm_model = f"openai/{model}"
    key_env = _key_env(litellm_model)
    api_key = None
    if api_base and litellm_model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
        api_key = DUMMY_API_KEY
    return ResolvedModel(model, litellm_model, api_base, api_key, False, key_env)


@dataclass
class CallUsage:
    """Usage of one model call: tokens (``input_tokens`` includes ``cached_tokens``), ``cost_usd``
    (USD, None when unknown), ``retries`` (failed attempts before the one that answered) and
    ``latency_sec`` (wall seconds of the answering attempt)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = None
    retries: int = 0
    latency_sec: float = 0.0

    def as_usage(self) -> Usage:
        return Usage(input_tokens=self.input_tokens, output_tokens=self.output_tokens,
                     cached_tokens=self.cached_tokens, cost_usd=self.cost_usd, calls=1, retries=self.retries)


@dataclass
class Completion:
    """One answer of the model.

    ``content``: the text (may be empty); ``tool_calls``: ``[{"id", "name", "arguments"}]`` with
    ``arguments`` the raw JSON string; ``message``: the OpenAI-format assistant message to append
    to the conversation; ``finish_reason``; ``usage``; ``model``: the model that answered;
    ``reasoning``: reasoning text when the provider returned one; ``empty``: why an answer holds
    neither text nor tool calls (``no choices``, ``null message``, ``finish_reason content_filter``,
    ``no content``), None for an answer with either.
    """

    content: str
    tool_calls: list[dict[str, Any]]
    message: dict[str, Any]
    finish_reason: str | None
    usage: CallUsage
    model: str
    reasoning: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    empty: str | None = None


class _StopAtDeadline(stop_base):
    """A tenacity stop condition: the next wait would reach ``deadline`` (a ``time.monotonic()``
    value; None: never)."""

    def __init__(self, deadline: float | None):
        self.deadline = deadline

    def __call__(self, retry_state: tenacity.RetryCallState) -> bool:
        sleep = retry_state.upcoming_sleep or 0.0
        return self.deadline is not None and time.monotonic() + sleep >= self.deadline


class LLMClient:
    """A chat-completion client for one model, safe to share between threads.

    ``model``/``api_base``: see :func:`resolve_model`. ``prices``: USD per million tokens for
    models litellm does not price. ``max_retries``: retried attempts after the first (429/5xx/
    connection). ``backoff_sec``: first wait in seconds, doubled per retry up to
    ``max_backoff_sec`` (a server's ``Retry-After`` is honoured up to that cap), with jitter.
    ``request_timeout_sec``: per attempt. ``model_kwargs``: extra litellm arguments (temperature...).
    ``usage``: running total of every call made through this client.
    """

    def __init__(self, model: str, api_base: str | None = None, *, prices: Prices | dict | None = None,
                 max_retries: int = 6, backoff_sec: float = 1.0, max_backoff_sec: float = 60.0,
                 request_timeout_sec: float = 600.0, model_kwargs: dict[str, Any] | None = None):
        self.resolved = resolve_model(model, api_base)
        self.prices = Prices.parse(prices)
        self.max_retries = max_retries
        self.backoff_sec = backoff_sec
        self.max_backoff_sec = max_backoff_sec
        self.request_timeout_sec = request_timeout_sec
        self.model_kwargs = dict(model_kwargs or {})
        self.usage = Usage()
        self._lock = threading.Lock()

    # -- capabilities -------------------------------------------------------------------------
    def supports_tool_calls(self) -> bool:
        """Whether litellm knows this model to accept tool calls (False when unknown or local)."""
        if self.resolved.local:
            return False
        try:
            return bool(_litellm().supports_function_calling(model=self.resolved.litellm_model))
        except Exception:  # litellm raises for names it has never heard of
            return False

    # -- calls ------------------------------------------------------------------------------
    def complete(self, messages: list[dict[str, Any]], *, tools: list[dict] | None = None,
                 max_tokens: int | None = None, deadline: float | None = None,
                 **kwargs: Any) -> Completion:
        """Send ``messages`` (OpenAI format) and return the answer.

        ``deadline``: a ``time.monotonic()`` value; attempts and backoff waits never run past it
        (then :class:`ModelError` is raised). Raises :class:`ModelAuthError`,
        :class:`ContextWindowError` or :class:`ModelError` as the module docstring says.
        """
        try:
            return self._complete(messages, tools=tools, max_tokens=max_tokens, deadline=deadline, **kwargs)
        except ModelError as exc:  # which model and server refused or failed (the agent phase's control reads it)
            if exc.endpoint is None:
                exc.endpoint = (self.resolved.litellm_model, self.resolved.api_base)
            raise

    def _complete(self, messages: list[dict[str, Any]], *, tools: list[dict] | None, max_tokens: int | None,
                  deadline: float | None, **kwargs: Any) -> Completion:
        """:meth:`complete` without the endpoint on its errors."""
        ll = _litellm()
        r = self.resolved
        args: dict[str, Any] = {"model": r.litellm_model, "messages": messages, "drop_params": True,
                                "num_retries": 0, "max_retries": 0}
        if r.api_base:
            args["api_base"] = r.api_base
        if r.api_key:
            args["api_key"] = r.api_key
        if tools:
            args["tools"] = tools
        if max_tokens is not None:
            args["max_tokens"] = max_tokens
        args.update(self.model_kwargs)
        args.update(kwargs)
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception(lambda exc: not isinstance(exc, ModelError)),
            wait=self._wait, sleep=time.sleep,
            stop=tenacity.stop_after_attempt(self.max_retries + 1) | _StopAtDeadline(deadline))
        try:
            for attempt in retrying:
                with attempt:
                    retries = attempt.retry_state.attempt_number - 1
                    started = time.monotonic()
                    response = self._attempt(ll, args, deadline)
        except tenacity.RetryError as err:
            raise self._gave_up(err.last_attempt) from err.last_attempt.exception()
        completion = self._to_completion(response, retries, time.monotonic() - started)
        with self._lock:
            self.usage = self.usage + completion.usage.as_usage()
        record_usage(completion.usage.as_usage())
        return completion

    def _attempt(self, ll: Any, args: dict[str, Any], deadline: float | None) -> Any:
        """One call, its timeout cut to the ``deadline``. A failure that must not be retried is
        raised as a :class:`ModelError`; a retryable one (429, 5xx, connection) as litellm raised it."""
        r = self.resolved
        gate = model_gate(r.litellm_model, r.api_base)
        if not gate.acquire(deadline):
            raise DeadlineExceeded(f"model {r.name}: no time left before the deadline (calls were held back "
                                   "by the model's rate limit or its limit of calls in flight)")
        try:
            timeout = self.request_timeout_sec
            clamped = False
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DeadlineExceeded(f"model {r.name}: no time left before the deadline")
                clamped = left < timeout
                timeout = min(timeout, left)
            response = self._call(ll, args, timeout, clamped)
        finally:
            gate.release()
        hidden = getattr(response, "_hidden_params", None) or {}
        paced = rate_limit_wait_sec(hidden.get("additional_headers") if isinstance(hidden, dict) else None)
        if paced:
            gate.hold(paced)
        return response

    def _call(self, ll: Any, args: dict[str, Any], timeout: float, clamped: bool) -> Any:
        """One litellm call (see :meth:`_attempt`): its answer, an answer litellm could not convert
        (:func:`lancebench.llm.answers.unconverted_answer`), or the error sorted."""
        r = self.resolved
        try:
            return ll.completion(timeout=timeout, **args)
        except Exception as exc:  # litellm wraps every provider failure; sorted below
            answer = unconverted_answer(exc)
            if answer is not None:
                return answer
            kind = classify_error(exc)
            if kind == "auth":
                raise ModelAuthError(self._auth_message(exc)) from exc
            if kind == "quota":
                where = f" at {r.api_base}" if r.api_base else ""
                raise ModelQuotaError(f"model {r.name}{where}: the account's quota or credit is used up (HTTP "
                                      f"{status_of(exc) or '?'}): add credit or raise the limit with the provider, "
                                      f"then run the same command to resume. Provider said: {_short(exc)}") from exc
            if kind == "context":
                raise ContextWindowError(f"model {r.name}: context window exceeded: {_short(exc)}") from exc
            if clamped and isinstance(exc, ll.exceptions.Timeout):
                raise DeadlineExceeded(f"model {r.name} had not answered when the deadline came "
                                       f"({timeout:.0f} s)") from exc
            if kind == "fatal":
                unknown = unknown_provider(r.litellm_model)  # litellm's own text suggests Huggingface
                raise ModelRefused(f"model {r.name}: {unknown}" if unknown else
                                   f"model {r.name} refused the request ({status_of(exc) or type(exc).__name__}): "
                                   f"{_short(exc)}", control=self._plain_request) from exc
            raise

    def _plain_request(self) -> None:
        """A control for a refusal (:class:`ModelRefused`): a plain request holding nothing of the
        refused one; raises :class:`ModelError` when it is refused too."""
        self.complete([{"role": "user", "content": "Reply with the word OK."}], max_tokens=8)

    def _wait(self, state: tenacity.RetryCallState) -> float:
        """Seconds before the next attempt: ``backoff_sec * 2**retries`` capped at
        ``max_backoff_sec``, times a jitter in [0.5, 1); a larger ``Retry-After`` wins, up to the cap."""
        retries = state.attempt_number - 1
        wait = min(self.max_backoff_sec, self.backoff_sec * (2 ** retries)) * (0.5 + random.random() / 2)
        exc = state.outcome.exception() if state.outcome else None
        hinted = retry_after_sec(headers_of(exc)) if exc is not None else None
        if hinted is not None:
            wait = min(self.max_backoff_sec, max(wait, hinted))
        if exc is not None and status_of(exc) == 429:  # every call of this model backs off together
            model_gate(self.resolved.litellm_model, self.resolved.api_base).hold(wait)
        return wait

    def _gave_up(self, last: tenacity.Future) -> ModelError:
        """The error once retrying stopped: every attempt failed (the retries are counted in
        ``usage``), or the next wait would pass the deadline."""
        r = self.resolved
        exc = last.exception()
        assert exc is not None  # tenacity stops with a failed attempt
        what = status_of(exc) or type(exc).__name__
        if last.attempt_number > self.max_retries:
            with self._lock:
                self.usage = self.usage + Usage(retries=last.attempt_number - 1)
            record_usage(Usage(retries=last.attempt_number - 1))
            return ModelError(f"model {r.name} failed after {last.attempt_number} attempts ({what}): {_short(exc)}")
        return ModelError(f"model {r.name} failed ({what}) and the deadline leaves no time to retry: {_short(exc)}")

    def _auth_message(self, exc: BaseException) -> str:
        r = self.resolved
        where = f" at {r.api_base}" if r.api_base else ""
        fix = (f"set {r.key_env} to a valid key" if r.key_env else
               "set the provider's API key variable (see litellm's provider docs)")
        return (f"model {r.name}{where} refused the credentials (HTTP {status_of(exc) or 401}): "
                f"{fix} and run again. Provider said: {_short(exc)}")

    def _to_completion(self, response: Any, retries: int, latency: float) -> Completion:
        """The answer as a :class:`Completion`; ``response`` is litellm's, or the dict of
        :func:`~lancebench.llm.answers.unconverted_answer`."""
        if isinstance(response, dict):
            return self._from_dict(response, retries, latency)
        choices = list(getattr(response, "choices", None) or [])
        msg = getattr(choices[0], "message", None) if choices else None
        content = (getattr(msg, "content", None) or "") if msg is not None else ""
        if not isinstance(content, str):
            content = str(content)
        tool_calls = []
        for tc in (getattr(msg, "tool_calls", None) or []) if msg is not None else []:
            tool_calls.append({"id": tc.id, "name": tc.function.name, "arguments": tc.function.arguments or ""})
        finish = getattr(choices[0], "finish_reason", None) if choices else None
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if tool_calls:
            message["tool_calls"] = [{"id": t["id"], "type": "function",
                                      "function": {"name": t["name"], "arguments": t["arguments"]}}
                                     for t in tool_calls]
        usage = self._usage(response)
        usage.retries = retries
        usage.latency_sec = latency
        try:
            raw = response.model_dump()
        except Exception:  # an odd provider object: keep its text form
            raw = {"repr": repr(response)}
        return Completion(content=content, tool_calls=tool_calls, message=message, finish_reason=finish, usage=usage,
                          model=getattr(response, "model", None) or self.resolved.litellm_model,
                          reasoning=getattr(msg, "reasoning_content", None), raw=raw,
                          empty=empty_reason(choices, msg, finish, content, tool_calls))

    def _from_dict(self, data: dict[str, Any], retries: int, latency: float) -> Completion:
        """A :class:`Completion` from an answer litellm could not convert (a null ``message``): no
        text, the usage the answer reported, its cost from ``prices`` or litellm's per-token table."""
        u = data.get("usage") or {}
        inp, out = int(u.get("prompt_tokens") or 0), int(u.get("completion_tokens") or 0)
        cached = int((u.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
        usage = CallUsage(input_tokens=inp, output_tokens=out, cached_tokens=cached,
                          cost_usd=self._dict_cost(inp, out, cached), retries=retries, latency_sec=latency)
        choices = data.get("choices") or []
        finish = choices[0].get("finish_reason") if choices else None
        reason = "null message" if choices and choices[0].get("null_message") else empty_reason(
            choices, {}, finish, "", [])
        return Completion(content="", tool_calls=[], message={"role": "assistant", "content": ""}, finish_reason=finish,
                          usage=usage, model=str(data.get("model") or self.resolved.litellm_model), raw=data,
                          empty=reason)

    def _dict_cost(self, inp: int, out: int, cached: int) -> float | None:
        if self.prices is not None:
            return self.prices.cost(inp, out, cached)
        if self.resolved.local:
            return 0.0
        try:
            prompt, completion = _litellm().cost_per_token(model=self.resolved.litellm_model, prompt_tokens=inp,
                                                           completion_tokens=out)
        except Exception:  # not in litellm's price table: unknown
            return None
        return float(prompt) + float(completion)

    def _usage(self, response: Any) -> CallUsage:
        u = getattr(response, "usage", None)
        inp = int(getattr(u, "prompt_tokens", 0) or 0)
        out = int(getattr(u, "completion_tokens", 0) or 0)
        details = getattr(u, "prompt_tokens_details", None)
        cached = int(getattr(details, "cached_tokens", 0) or 0) if details is not None else 0
        if not cached:
            cached = int(getattr(u, "cache_read_input_tokens", 0) or 0)
        return CallUsage(input_tokens=inp, output_tokens=out, cached_tokens=cached,
                         cost_usd=self._cost(response, inp, out, cached))

    def _cost(self, response: Any, inp: int, out: int, cached: int) -> float | None:
        if self.prices is not None:
            return self.prices.cost(inp, out, cached)
        if self.resolved.local:
            return 0.0
        try:
            cost = _litellm().completion_cost(completion_response=response, model=self.resolved.litellm_model)
        except Exception:  # not in litellm's price table: unknown, recorded as None
            return None
        return float(cost) if cost is not None else None


def _short(exc: BaseException, limit: int = 400) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + "..."


def preflight(model: str, api_base: str | None = None, *, timeout_sec: float = 60.0,
              prices: Prices | dict | None = None) -> Usage:
    """Check before any sandbox is built that ``model`` answers: one tiny request (a few tokens).

    Returns the request's usage. Raises :class:`ModelAuthError` when the key is refused (the job
    must stop, the message names the variable to set), :class:`ModelError` when the model cannot
    be reached after a short retry, :class:`ConfigError` for an unusable name. Blocking (seconds):
    from async code call it through ``asyncio.to_thread``.
    """
    client = LLMClient(model, api_base, prices=prices, max_retries=2, backoff_sec=1.0, max_backoff_sec=5.0,
                       request_timeout_sec=timeout_sec)
    client.complete([{"role": "user", "content": "Reply with the word: ok"}], max_tokens=4,
                    deadline=time.monotonic() + timeout_sec * 2)
    return client.usage

"""Pacing of model calls, shared by every client of one model in this process.

A :class:`ModelGate` exists per (litellm model, API base). Every attempt of
:meth:`lancebench.llm.LLMClient.complete` passes through it:

- **calls in flight**: at most :func:`calls_in_flight` attempts at once per model (None: no
  bound; ``lancebench run --max-calls-in-flight N`` sets it for the job, see :func:`call_limit`);
- **backing off together**: a 429's wait (its ``Retry-After``, else the client's backoff) holds
  *every* call of the model until it has passed, not only the one that was refused;
- **the provider's rate-limit headers**: an answer saying a quota window is spent
  (``x-ratelimit-remaining-requests: 0`` or ``x-ratelimit-remaining-tokens: 0``) holds the next
  calls until that window resets (``x-ratelimit-reset-requests`` / ``-tokens``: ``6m0s``, ``1s``,
  ``20ms``, or seconds as a number).

The gates live in this process: with ``--executor ray`` each worker process paces its own calls.

Header forms (:func:`retry_after_sec`): ``retry-after-ms`` (milliseconds, as OpenAI's and Azure's
SDKs read it), ``Retry-After`` as seconds or as an HTTP date (RFC 9110 section 10.2.3). litellm's
own reader (``litellm.utils._get_retry_after_from_exception_header``) is private, reads whole
seconds only and ignores ``retry-after-ms``, hence this one.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

_LIMIT: list[int | None] = [None]
_GATES: dict[tuple[str, str | None], ModelGate] = {}
_GATES_LOCK = threading.Lock()
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


def retry_after_sec(headers: Mapping[str, str] | None, *, now: datetime | None = None) -> float | None:
    """Seconds the server asks to wait, from ``retry-after-ms`` or ``Retry-After`` (seconds or an
    HTTP date, counted from ``now``, default the current UTC time); None when absent or unreadable.
    Never negative (a date in the past is 0)."""
    if not headers:
        return None
    ms = _header(headers, "retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = _header(headers, "retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def parse_duration(value: str | None) -> float | None:
    """Seconds of a rate-limit reset: ``6m0s``, ``1s``, ``20ms``, ``1h2m3.5s`` (OpenAI's form) or a
    plain number of seconds; None when unreadable."""
    if value is None:
        return None
    text = value.strip().lower()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    scale = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    return sum(float(n) * scale[u] for n, u in parts)


def rate_limit_wait_sec(headers: Mapping[str, str] | None) -> float | None:
    """Seconds until the provider's spent quota window resets, from ``x-ratelimit-remaining-*``
    at 0 (``requests`` or ``tokens``) and its ``x-ratelimit-reset-*``; None when no window is spent."""
    if not headers:
        return None
    waits = []
    for kind in ("requests", "tokens"):
        remaining = _header(headers, f"x-ratelimit-remaining-{kind}")
        try:
            spent = remaining is not None and float(remaining) <= 0
        except ValueError:
            spent = False
        reset = parse_duration(_header(headers, f"x-ratelimit-reset-{kind}")) if spent else None
        if reset is not None:
            waits.append(reset)
    return max(waits) if waits else None


def _header(headers: Mapping[str, str], name: str) -> str | None:
    """A header by name, in any case; also litellm's ``llm_provider-<name>`` copy."""
    for key in (name, f"llm_provider-{name}"):
        for k, v in headers.items():
            if isinstance(k, str) and k.lower() == key and v is not None:
                return str(v)
    return None


class ModelGate:
    """The pacing of one model's calls (see the module docstring). Thread-safe.

    ``not_before``: a ``time.monotonic()`` value before which no attempt starts; ``in_flight``:
    attempts running now."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.not_before = 0.0
        self.in_flight = 0

    def hold(self, seconds: float) -> None:
        """No attempt of this model starts in the next ``seconds`` (an earlier, longer hold stays)."""
        with self._cond:
            self.not_before = max(self.not_before, time.monotonic() + max(0.0, seconds))
            self._cond.notify_all()

    def acquire(self, deadline: float | None = None) -> bool:
        """Wait for a free slot and the end of any hold, then take the slot. Returns False (no slot
        taken) when ``deadline`` (a ``time.monotonic()`` value) comes first."""
        with self._cond:
            while True:
                now = time.monotonic()
                limit = _LIMIT[0]
                wait = self.not_before - now
                if wait <= 0 and (limit is None or self.in_flight < limit):
                    self.in_flight += 1
                    return True
                if deadline is not None and now >= deadline:
                    return False
                wait = wait if wait > 0 else 0.5
                if deadline is not None:
                    wait = min(wait, deadline - now)
                self._cond.wait(max(wait, 0.001))

    def release(self) -> None:
        """Give back a slot taken by :meth:`acquire`."""
        with self._cond:
            self.in_flight -= 1
            self._cond.notify_all()


def gate(model: str, api_base: str | None) -> ModelGate:
    """The gate of ``model`` (the litellm name) at ``api_base`` in this process."""
    with _GATES_LOCK:
        return _GATES.setdefault((model, api_base), ModelGate())


def calls_in_flight() -> int | None:
    """The current bound on attempts in flight per model (None: none)."""
    return _LIMIT[0]


@contextlib.contextmanager
def call_limit(limit: int | None) -> Iterator[None]:
    """Bound attempts in flight per model to ``limit`` (None: no bound) inside the block; the
    earlier bound comes back after it. Raises ValueError for a limit below 1."""
    if limit is not None and limit < 1:
        raise ValueError(f"calls in flight per model must be at least 1, not {limit}")
    earlier = _LIMIT[0]
    _LIMIT[0] = limit
    try:
        yield
    finally:
        _LIMIT[0] = earlier
        for g in list(_GATES.values()):
            with g._cond:
                g._cond.notify_all()

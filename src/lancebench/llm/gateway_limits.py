"""Bounds on the work one trial key makes the model gateway do (attack pass round 11: the proxy's
work per request is outside every sandbox's CPU limit). Runs inside the gateway's process, as the
outermost ASGI middleware of LiteLLM's proxy app (:mod:`._gateway_proxy` adds it), so that a
request over a bound is answered before LiteLLM reads, parses or counts anything of it.

Each trial key's bounds are in its key file (``keys/<key hash>``, JSON written by
:meth:`lancebench.llm.gateway.Gateway.issue_key`, :class:`KeyLimits`):

- ``max_request_bytes``: a request whose ``Content-Length`` is larger is answered 413, its body
  never parsed; a body without one (chunked) is read up to the bound, then answered 413. The
  body is read by this middleware (at most the bound, bytes only) and handed on whole. Before a
  refusal (401, 413, 429) the rest of the body is read and dropped, up to :data:`DRAIN_BYTES`, so
  that a client still sending reads the answer rather than a reset connection.
- ``max_in_flight``: requests of the key served at once. One more waits (its body unread) for a
  free place, in arrival order; past :data:`WAITING_PER_PLACE` waiting requests per place, it is
  answered 429 with ``Retry-After: 1`` (agents' clients retry on 429).
- ``max_cost_usd`` set: one request of the key is served at a time (as many may wait as
  ``max_in_flight`` allows, :data:`DEFAULT_WAITING` when it is 0). An answer is priced only when it
  comes, so calls sent at once each passed the cost limit before any was priced (attack pass round
  14: four calls, 2.7 times the limit); in turn, each is checked against the answers before it
  (their usage joins the in-flight record before the answer is sent), so a trial passes its limit
  by one call at most.

A request that names no live trial key in its headers (:data:`KEY_HEADERS`), or two different
ones, is answered 401 before its body is read (the proxy's own check, :func:`.gateway_hooks.check_key`, still runs on
every other request); only the host's readiness probe (:data:`OPEN_PATHS`, GET) needs no key.
Every 413 and 429 is counted in ``usage/<key hash>.refused.json`` (``count``, and the first
:data:`MAX_REFUSAL_RECORDS` records: ``status``, ``message``, ``bytes``, ``limit``, ``time``),
which lancebench reads into the trial's result (:meth:`Gateway.refused`). Zero for a bound: none.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

KEY_HEADERS = (b"authorization", b"x-api-key", b"api-key", b"x-goog-api-key", b"ocp-apim-subscription-key",
               b"x-litellm-api-key")  # the headers LiteLLM's proxy reads a key from
OPEN_PATHS = frozenset({"/health/liveliness", "/health/readiness"})  # the harness's readiness probe
WAITING_PER_PLACE = 4  # requests of a key that may wait, per place in flight
DEFAULT_WAITING = 32  # requests that may wait for a key served one at a time without max_in_flight
MAX_REFUSAL_RECORDS = 20  # refusals of a key recorded one by one (all are counted)
DRAIN_BYTES = 64 * 1024 * 1024  # of a refused request's body read and dropped before the answer
RAISE_HINT = {413: "raise it with --ao gateway_max_request_mb=MB (0: no limit)",
              429: "raise it with --ao gateway_max_in_flight=N (0: no limit)"}


@dataclasses.dataclass(frozen=True)
class KeyLimits:
    """A trial key's bounds (module docstring): ``trial`` (its name), ``max_request_bytes`` (bytes
    of one request's body), ``max_in_flight`` (requests at once); and the trial's limits
    (:func:`lancebench.llm.gateway_hooks.within_limits`): ``max_calls`` (model calls),
    ``max_cost_usd`` (USD); 0 is no bound."""

    trial: str = ""
    max_request_bytes: int = 0
    max_in_flight: int = 0
    max_calls: int = 0
    max_cost_usd: float = 0.0

    def dumps(self) -> str:
        """The key file's text (JSON)."""
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def loads(cls, text: str) -> KeyLimits:
        """A key file's text; a file that is not this JSON (a key issued by an older version) has
        no bounds."""
        try:
            data = json.loads(text)
        except ValueError:
            return cls(trial=text)
        if not isinstance(data, dict):
            return cls(trial=text)
        cost = data.get("max_cost_usd")
        return cls(trial=str(data.get("trial") or ""), max_request_bytes=_count(data.get("max_request_bytes")),
                   max_in_flight=_count(data.get("max_in_flight")), max_calls=_count(data.get("max_calls")),
                   max_cost_usd=float(cost) if isinstance(cost, int | float) and cost > 0 else 0.0)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and value > 0 else 0


def key_hash(key: str) -> str:
    """The hex sha256 of a trial key: its file name under ``keys/`` and ``usage/``."""
    return hashlib.sha256(key.encode()).hexdigest()


class RequestLimits:
    """The ASGI middleware (module docstring); ``root``: the gateway's folder (``keys/``, ``usage/``)."""

    def __init__(self, app: Any, root: Path | str):
        self.app, self.root = app, Path(root)
        self.active: dict[str, int] = {}
        self.queues: dict[str, list[asyncio.Future]] = {}

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or (scope.get("method") == "GET"
                                           and str(scope.get("path", "")).rstrip("/") in OPEN_PATHS):
            await self.app(scope, receive, send)
            return
        found = self._key(scope)
        length = _content_length(scope)
        if found is None:
            await _drain(receive, length)
            await _answer(send, 401, "lancebench gateway: this key is not valid (unknown, or its trial ended)",
                          "authentication_error")
            return
        digest, limits = found
        cap = limits.max_request_bytes
        if cap and length is not None and length > cap:
            await _drain(receive, length)
            await self._refuse(send, digest, 413, length, cap)
            return
        places = 1 if limits.max_cost_usd else limits.max_in_flight
        waiting = WAITING_PER_PLACE * limits.max_in_flight or DEFAULT_WAITING
        if not await self._enter(digest, places, waiting):
            await _drain(receive, length)
            await self._refuse(send, digest, 429, length, places, waiting)
            return
        try:
            body = await _read_body(receive, cap)
            if body is None:
                return  # the client went away
            if isinstance(body, int):
                await _drain(receive, None)
                await self._refuse(send, digest, 413, body, cap)
                return
            await self.app(scope, _replay(body, receive), send)
        finally:
            self._leave(digest)

    def _key(self, scope: dict) -> tuple[str, KeyLimits] | None:
        """(key hash, bounds) of the live trial key in the request's key headers; None when there
        is none, or two different ones: LiteLLM reads its own first header, which need not be the
        one whose place this middleware took (attack pass round 15: a key with a cost limit named
        second was served beside itself)."""
        found: tuple[str, KeyLimits] | None = None
        for name, value in scope.get("headers") or ():
            if name.lower() not in KEY_HEADERS or len(value) > 512:
                continue
            key = value.decode("latin-1").strip()
            key = key[7:].strip() if key[:7].lower() == "bearer " else key
            digest = key_hash(key)
            if found is not None and found[0] == digest:
                continue
            try:
                limits = KeyLimits.loads((self.root / "keys" / digest).read_text())
            except (OSError, ValueError):
                continue
            if found is not None:
                return None  # two live keys
            found = digest, limits
        return found

    async def _enter(self, digest: str, limit: int, waiting: int) -> bool:
        """Take one of ``limit`` places in flight for ``digest`` (0: no bound), waiting for one in
        order; False when ``waiting`` requests already wait."""
        if not limit:
            self.active[digest] = self.active.get(digest, 0) + 1
            return True
        queue = self.queues.setdefault(digest, [])
        if self.active.get(digest, 0) < limit and not queue:
            self.active[digest] = self.active.get(digest, 0) + 1
            return True
        if len(queue) >= waiting:
            return False
        turn = asyncio.get_running_loop().create_future()
        queue.append(turn)
        try:
            await turn  # _leave hands its place over: active is not lowered meanwhile
        except BaseException:
            if turn in queue:
                queue.remove(turn)
            elif turn.done() and not turn.cancelled():
                self._leave(digest)  # handed a place just as it was cancelled: hand it on
            raise
        return True

    def _leave(self, digest: str) -> None:
        queue = self.queues.get(digest) or []
        while queue:
            turn = queue.pop(0)
            if not turn.done():
                turn.set_result(None)  # the place goes to the next in line
                return
        self.active[digest] = self.active.get(digest, 1) - 1
        if self.active[digest] <= 0:
            self.active.pop(digest, None)
            self.queues.pop(digest, None)

    async def _refuse(self, send: Any, digest: str, status: int, size: int | None, limit: int,
                      waiting: int = 0) -> None:
        if status == 413:
            shown = "" if size == limit + 1 else f"{size:,} bytes, "
            message = (f"lancebench gateway: this request is {shown}over this trial's limit of {limit:,} bytes "
                       f"a request; {RAISE_HINT[413]}")
        else:
            message = (f"lancebench gateway: this trial already has {limit} requests in flight and "
                       f"{waiting} waiting; retry later, or {RAISE_HINT[429]}")
        _note_refusal(self.root / "usage", digest, {"status": status, "message": message, "bytes": size,
                                                    "limit": limit, "time": time.time()})
        await _answer(send, status, message, "request_too_large" if status == 413 else "rate_limit_error",
                      [(b"retry-after", b"1")] if status == 429 else [])


def _note_refusal(usage: Path, digest: str, record: dict) -> None:
    """Count ``record`` in ``usage/<digest>.refused.json`` (rewritten whole, atomically)."""
    path = usage / f"{digest}.refused.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {"count": 0, "records": []}
    data["count"] = int(data.get("count") or 0) + 1
    if len(data["records"]) < MAX_REFUSAL_RECORDS:
        data["records"].append(record)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        usage.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data))
        os.replace(tmp, path)
    except OSError:
        pass  # the answer still goes out; the count is a record, not the bound


def read_refusals(usage: Path, digest: str) -> dict:
    """``{"count": n, "records": [...]}`` of key ``digest``'s refused requests (module docstring)."""
    try:
        data = json.loads((usage / f"{digest}.refused.json").read_text())
    except (OSError, ValueError):
        return {"count": 0, "records": []}
    records = [r for r in data.get("records") or [] if isinstance(r, dict)][:MAX_REFUSAL_RECORDS]
    return {"count": _count(data.get("count")), "records": records}


def _content_length(scope: dict) -> int | None:
    for name, value in scope.get("headers") or ():
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _read_body(receive: Any, cap: int) -> bytes | int | None:
    """The request's body; its size so far (an int, one byte over ``cap``) once it passes ``cap``
    (0: no cap); None when the client disconnected."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            return None
        chunk = message.get("body") or b""
        size += len(chunk)
        if cap and size > cap:
            return cap + 1
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


async def _drain(receive: Any, length: int | None) -> None:
    """Read and drop what is left of a refused request's body, up to :data:`DRAIN_BYTES` (bytes
    only: nothing is kept or parsed), so that its client, still sending, gets to read the answer
    instead of a reset connection; a body declared larger is not read (its client may see a reset)."""
    if length is not None and length > DRAIN_BYTES:
        return
    size = 0
    while size <= DRAIN_BYTES:
        message = await receive()
        if message.get("type") != "http.request":
            return
        size += len(message.get("body") or b"")
        if not message.get("more_body"):
            return


def _replay(body: bytes, receive: Any) -> Any:
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replayed() -> dict:
        if pending:
            return pending.pop()
        return await receive()  # after the body: the client's disconnect, as the app expects

    return replayed


async def _answer(send: Any, status: int, message: str, kind: str, headers: list | None = None) -> None:
    """An error answer both OpenAI's and Anthropic's clients read (``error.message``, ``error.type``)."""
    body = json.dumps({"type": "error", "error": {"message": message, "type": kind, "code": str(status)}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"), *(headers or [])]})
    await send({"type": "http.response.body", "body": body, "more_body": False})

"""Spend seen as it happens: a :class:`UsageMeter` adds up the usage of every model call made
through :class:`lancebench.llm.LLMClient` while it is active (:func:`metering`), and writes the
running total to a file after each call, so that a trial that crashes, times out, is cancelled or
whose process is killed still has its spend on disk.

The active meter is a :mod:`contextvars` variable: it follows asyncio tasks and
``asyncio.to_thread``; code that starts its own thread must run it in a copy of the context
(``contextvars.copy_context().run``), as the ``mini-swe-agent`` agent does.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import threading
from collections.abc import Iterator
from pathlib import Path

from lancebench.results.models import Usage
from lancebench.results.store import atomic_write

_ACTIVE: contextvars.ContextVar[UsageMeter | None] = contextvars.ContextVar("lancebench_usage_meter", default=None)
_LIVE: set[UsageMeter] = set()
_LIVE_LOCK = threading.Lock()


class UsageMeter:
    """A running total of model usage (tokens, USD, calls, retries), thread-safe.

    ``earlier``: usage billed before this meter started (earlier, interrupted runs of the same
    trial), kept apart from ``usage`` (what this meter saw); ``path``: a JSON file rewritten with
    ``earlier + usage`` after each call (None: nothing written)."""

    def __init__(self, path: Path | None = None, earlier: Usage | None = None):
        self.path = path
        self.earlier = earlier or Usage()
        self.usage = Usage()
        self.cut: list[dict] = []  # the records of calls the trial's end cut (model gateway), in order
        self.refused = 0  # requests the model gateway refused for the trial key's bounds (413, 429)
        self.refused_records: list[dict] = []  # the first of them (status, message, bytes, limit, time)
        self._lock = threading.Lock()

    def add(self, usage: Usage, cut: list[dict] | tuple[dict, ...] = (), refused: dict | None = None) -> None:
        """Count one call's (or one failed call's, or one agent run's) usage, and write the total;
        ``cut``: the records of the calls among them that the agent phase's end cut (each with
        ``cut``, its reason, tokens, ``cost_usd`` and ``estimate``), kept in :attr:`cut`;
        ``refused``: ``{"count": n, "records": [...]}``, requests the model gateway refused for the
        trial key's bounds (never sent to the model, no usage), added to :attr:`refused`."""
        with self._lock:
            self.usage = self.usage + usage
            self.cut.extend(dict(c) for c in cut)
            if refused:
                self.refused += int(refused.get("count") or 0)
                self.refused_records.extend(dict(r) for r in refused.get("records") or [])
            total = self.earlier + self.usage
        if self.path is not None:
            self.write(total)

    def total(self) -> Usage:
        """``earlier + usage``: everything billed for this meter's owner."""
        with self._lock:
            return self.earlier + self.usage

    def write(self, total: Usage) -> None:
        """Write ``total`` to ``path`` (atomically)."""
        if self.path is not None:
            atomic_write(self.path, total.model_dump_json(indent=2))


def read_usage(path: Path) -> Usage | None:
    """The usage a meter (or anything else) wrote to ``path``; None when absent or unreadable."""
    try:
        return Usage.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def record(usage: Usage, cut: list[dict] | tuple[dict, ...] = (), refused: dict | None = None) -> None:
    """Add ``usage`` to the active meter, if any (called by the model client after each call, and
    by an installed agent with its gateway's usage when its run ends; ``cut``, ``refused``: see
    :meth:`UsageMeter.add`)."""
    meter = _ACTIVE.get()
    if meter is not None:
        meter.add(usage, cut, refused)


@contextlib.contextmanager
def metering(meter: UsageMeter) -> Iterator[UsageMeter]:
    """Make ``meter`` the active one inside the block (and in tasks and threads started from it
    with a copy of the context), and list it in :func:`live_usage` meanwhile."""
    token = _ACTIVE.set(meter)
    with _LIVE_LOCK:
        _LIVE.add(meter)
    try:
        yield meter
    finally:
        _ACTIVE.reset(token)
        with _LIVE_LOCK:
            _LIVE.discard(meter)


def live_usage() -> Usage:
    """The usage seen so far by every active meter of this process (not counting their
    ``earlier`` part): the spend of the trials running now."""
    with _LIVE_LOCK:
        meters = list(_LIVE)
    total = Usage()
    for m in meters:
        total = total + m.usage
    return total

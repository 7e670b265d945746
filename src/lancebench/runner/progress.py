"""What the trials of this process are doing now, for the live status of ``lancebench run``.

Trials report their phase (``queued`` → ``environment`` → ``agent`` → ``capture`` →
``grading``) with :func:`set_phase`; the status display reads :func:`running`. A plain dict
guarded by a lock: trials run as asyncio tasks (and worker threads) of one process. Trials run
on Ray workers are reported here by the driver (``runner/ray_executor.py`` relays their phases).
:func:`listen` adds a callback told of every phase change (the plain progress lines of a run outside a terminal).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class TrialState:
    """One running trial: ``task``, ``attempt``, ``phase``, ``started`` and ``phase_started``
    (``time.monotonic()`` seconds)."""

    task: str
    attempt: int
    phase: str
    started: float
    phase_started: float


_lock = threading.Lock()
_states: dict[str, TrialState] = {}
_listeners: list[Callable[[TrialState, TrialState | None], None]] = []


def listen(callback: Callable[[TrialState, TrialState | None], None]) -> Callable[[], None]:
    """Call ``callback(new state, previous state or None)`` on every phase change from now on (in
    the thread of the trial that changed phase); returns the function that stops it."""
    _listeners.append(callback)
    return lambda: _listeners.remove(callback) if callback in _listeners else None


def set_phase(trial_id: str, phase: str, *, task: str | None = None, attempt: int | None = None) -> None:
    """Record that trial ``trial_id`` entered ``phase`` (``task`` and ``attempt`` on the first call)."""
    now = time.monotonic()
    with _lock:
        old = _states.get(trial_id)
        if old is None:
            new = _states[trial_id] = TrialState(task or trial_id, attempt or 0, phase, now, now)
        elif old.phase != phase:
            started = now if old.phase == "queued" else old.started
            new = _states[trial_id] = TrialState(old.task, old.attempt, phase, started, now)
        else:
            return
    for callback in list(_listeners):
        callback(new, old)


def finished(trial_id: str) -> None:
    """Forget trial ``trial_id`` (it has a result)."""
    with _lock:
        _states.pop(trial_id, None)


def running() -> dict[str, TrialState]:
    """A copy of the states of trials not finished, by trial id."""
    with _lock:
        return dict(_states)

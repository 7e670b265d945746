"""What the trials of this process are doing now, for the live status of ``lancebench run``, and
when each phase of a trial ran, for its result (:class:`PhaseClock`).

Trials report their phase (``queued`` → ``environment`` → ``agent`` → ``capture`` →
``grading``) with :func:`set_phase`; the status display reads :func:`running`. A plain dict
guarded by a lock: trials run as asyncio tasks (and worker threads) of one process. A trial's
:class:`PhaseClock` reports the phases it shows (``shown``) here as it times them. Trials run
on Ray workers are reported here by the driver (``runner/ray_executor.py`` relays their phases).
:func:`listen` adds a callback told of every phase change (the plain progress lines of a run outside a terminal).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from lancebench.results.models import PhaseTime, Timings
from lancebench.results.text import visible


@dataclass(frozen=True)
class TrialState:
    """One running trial: ``task``, ``attempt``, ``phase``, ``started`` and ``phase_started``
    (``time.monotonic()`` seconds), and ``label``, how a plain display names it (``task
    #attempt``, made :func:`~lancebench.results.text.visible` once: printed as it is)."""

    task: str
    attempt: int
    phase: str
    started: float
    phase_started: float
    label: str = ""


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
            name, number = task or trial_id, attempt or 0
            new = _states[trial_id] = TrialState(name, number, phase, now, now, visible(f"{name} #{number}"))
        elif old.phase != phase:
            started = now if old.phase == "queued" else old.started
            new = _states[trial_id] = TrialState(old.task, old.attempt, phase, started, now, old.label)
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


class PhaseClock:
    """Wall times of one trial's phases: seconds summed per phase (:meth:`timings`) and each phase's
    first start and last end (:meth:`spans`); ``where`` names the phase running (for
    :class:`~lancebench.results.models.TrialError`). ``trial_id``: the trial whose phases
    :meth:`phase` shows in the live status (:func:`set_phase`) when asked to (None: never)."""

    def __init__(self, trial_id: str | None = None) -> None:
        self.trial_id = trial_id
        self.started = time.monotonic()
        self.seconds: dict[str, float] = {}
        self._spans: dict[str, tuple[float, float]] = {}  # phase -> (first start, last end), time.time()
        self.where = "environment"

    def at(self, name: str, step: str | None = None) -> None:
        """Note that the ``name`` phase (of ``step`` of a multi-step task) has begun, before what
        it times (the agent sandbox's start and health checks come before the agent's clock)."""
        self.where = f"steps.{step}.{name}" if step else name

    @contextlib.contextmanager
    def phase(self, name: str, step: str | None = None, *, shown: bool = False) -> Iterator[None]:
        """Time the ``name`` phase (of ``step`` of a multi-step task) while the block runs; with
        ``shown``, the trial enters it in the live status too (:func:`set_phase`) as it begins."""
        self.at(name, step)
        begun, t0 = time.time(), time.monotonic()
        if shown and self.trial_id is not None:
            set_phase(self.trial_id, name)
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.monotonic() - t0
            self._spans[name] = (self._spans[name][0] if name in self._spans else begun, time.time())

    def spans(self) -> dict[str, PhaseTime]:
        """Each phase's first start and last end, as UTC ISO-8601 strings (milliseconds, as
        :func:`lancebench.results.models.utcnow` writes them)."""
        def iso(t: float) -> str:
            return datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds")
        return {name: PhaseTime(started_at=iso(a), finished_at=iso(b)) for name, (a, b) in self._spans.items()}

    def timings(self) -> Timings:
        """Seconds per phase; ``grading_sec`` includes senior grading (``judging_sec``)."""
        sec = self.seconds
        return Timings(environment_sec=sec.get("environment", 0.0), agent_sec=sec.get("agent", 0.0),
                       capture_sec=sec.get("capture", 0.0), judging_sec=sec.get("judging", 0.0),
                       grading_sec=sec.get("grading", 0.0) + sec.get("judging", 0.0),
                       total_sec=time.monotonic() - self.started)

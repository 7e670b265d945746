"""How ``lancebench run`` shows a job while it runs, on standard error (issue 28).

- On a terminal: the live status of :mod:`lancebench.commands.status`, and one line per finished
  trial above it.
- Off a terminal (a log file, CI): plain lines only, each complete when written: one per phase
  change of every trial (``calc #0: agent (after 3s in environment)``), one per finished trial,
  and every ``heartbeat_sec`` seconds the status headline with the running trials.
- ``quiet`` (``-q``): none of these; the run's start line and results only.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.text import Text

from lancebench.commands.show import STATUS_STYLE
from lancebench.commands.status import JobStatus, _clock
from lancebench.report.terminal import Visible
from lancebench.results.models import TrialResult
from lancebench.results.text import visible
from lancebench.runner import progress

RUNNING_SHOWN = 8  # running trials named on a heartbeat line; more are counted


def result_line(r: TrialResult) -> str:
    """The line of one finished trial (rich markup): task, attempt, status, the reason clipped."""
    from lancebench.analysis.findings import clip
    return (f"  {escape(r.task)} #{r.attempt}: [{STATUS_STYLE[r.status]}]{r.status}[/]"
            + (f" ({escape(clip(r.reason, 100))})" if r.reason else ""))


def phase_line(new: progress.TrialState, old: progress.TrialState | None) -> str:
    """The plain line of a phase change: ``task #attempt: phase`` (the trial's label, visible
    already), with the seconds the trial spent in the phase it left."""
    after = f" (after {new.phase_started - old.phase_started:.0f}s in {old.phase})" if old is not None else ""
    return f"  {new.label}: {new.phase}{after}"


def heartbeat_line(status: JobStatus) -> str:
    """The status headline and each running trial with its phase and seconds in it."""
    now = time.monotonic()
    states = sorted(progress.running().values(), key=lambda s: s.started)
    shown = [f"{s.task} #{s.attempt} {s.phase} {_clock(now - s.phase_started)}" for s in states[:RUNNING_SHOWN]]
    more = f", and {len(states) - RUNNING_SHOWN} more" if len(states) > RUNNING_SHOWN else ""
    return f"[{time.strftime('%H:%M:%S')}] {status.headline()}" + (f" | running: {', '.join(shown)}{more}"
                                                                    if shown else "")


@dataclass
class Display:
    """The progress of one run: ``quiet`` shows none; ``heartbeat_sec`` (> 0) is the seconds
    between status lines off a terminal."""

    quiet: bool = False
    heartbeat_sec: float = 60.0

    @contextmanager
    def show(self, status: JobStatus, console: Console) -> Iterator[Callable[[TrialResult], None]]:
        """Show the run while the block runs; yields the callback to give each new result."""
        if self.quiet:
            yield status.add
        elif console.is_terminal:
            with Live(Visible(status), console=console, refresh_per_second=2, transient=True) as live:
                def on_result(r: TrialResult) -> None:
                    status.add(r)
                    live.console.print(result_line(r), highlight=False, soft_wrap=True)
                yield on_result
        else:
            with self._plain(status, console) as plain:
                yield plain

    @contextmanager
    def _plain(self, status: JobStatus, console: Console) -> Iterator[Callable[[TrialResult], None]]:
        """Plain lines: phase changes as they happen, results, and a heartbeat thread. Each line is
        written to the console's file as it is (made :func:`~lancebench.results.text.visible`,
        markup rendered to its text; a phase line's label was made visible when the trial's live
        status began, :class:`lancebench.runner.progress.TrialState`), not laid out by rich:
        off a terminal there is nothing to lay out, and rich's rendering of a line cost about a
        millisecond of the event loop, six lines per cheap trial (issue 29)."""
        lock = threading.Lock()  # the trials' thread and the heartbeat's

        def write(text: str) -> None:
            with lock:
                console.file.write(text + "\n")
                console.file.flush()

        def say(line: str, markup: bool = False) -> None:
            write(visible(Text.from_markup(line).plain if markup else line))

        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(self.heartbeat_sec):
                say(heartbeat_line(status))

        # a phase line is visible already: its label is (progress.TrialState), the rest is the harness's
        unlisten = progress.listen(lambda new, old: write(phase_line(new, old)))
        thread = threading.Thread(target=beat, name="lancebench-heartbeat", daemon=True)
        thread.start()
        def on_result(r: TrialResult) -> None:
            status.add(r)
            say(result_line(r), markup=True)

        try:
            yield on_result
        finally:
            stop.set()
            unlisten()
            thread.join(timeout=5)

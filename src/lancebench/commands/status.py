"""The live status of ``lancebench run`` (rich): trials done of all, resolved/unresolved/invalid,
elapsed time and an ETA, tokens and USD so far, and each running trial with its phase and
elapsed seconds. Fits 80 columns.

ETA = remaining trials x mean wall seconds of the trials finished in this run / concurrency
(None until one finishes): a plain average, not a model of the queue."""

from __future__ import annotations

import time
from collections.abc import Sequence

from rich.console import Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from lancebench.results.index import RecordedTrial
from lancebench.results.models import TrialResult, Usage
from lancebench.runner import progress

MAX_ROWS = 8  # running trials listed; more are counted


def _clock(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


def _tokens(n: int) -> str:
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.1f}k" if n >= 1e3 else str(n)


class JobStatus:
    """A rich renderable of one run: ``total`` trials planned, ``kept`` already recorded,
    ``concurrency``; :meth:`add` each new result."""

    def __init__(self, total: int, kept: Sequence[RecordedTrial], concurrency: int):
        self.total, self.concurrency = total, max(concurrency, 1)
        self.results: list[TrialResult | RecordedTrial] = list(kept)
        self.new: list[TrialResult] = []
        self.start = time.monotonic()

    def add(self, result: TrialResult) -> None:
        self.new.append(result)
        self.results.append(result)

    def eta_sec(self) -> float | None:
        """Seconds left by the formula of the module docstring (None before any new result)."""
        if not self.new:
            return None
        mean = sum(r.timings.total_sec for r in self.new) / len(self.new)
        return (self.total - len(self.results)) * mean / self.concurrency

    def headline(self) -> str:
        counts = {s: sum(r.status == s for r in self.results) for s in ("resolved", "unresolved", "invalid")}
        usage = sum((r.usage for r in self.new), Usage())
        eta = self.eta_sec()
        cost = "$?" if usage.cost_usd is None else f"${usage.cost_usd:.2f}"
        return (f"{len(self.results)}/{self.total} done: {counts['resolved']} resolved {counts['unresolved']} "
                f"unresolved {counts['invalid']} invalid | {_clock(time.monotonic() - self.start)}"
                f"{'' if eta is None else ' ETA ' + _clock(eta)} | {_tokens(usage.input_tokens)} in/"
                f"{_tokens(usage.output_tokens)} out tok {cost}")

    def __rich__(self) -> Group:
        now = time.monotonic()
        states = sorted(progress.running().values(), key=lambda s: s.started)
        table = Table(box=None, pad_edge=False, show_header=bool(states), header_style="dim")
        table.add_column("running", overflow="ellipsis", no_wrap=True, max_width=40)
        table.add_column("phase", no_wrap=True)
        table.add_column("in phase", justify="right", no_wrap=True)
        table.add_column("total", justify="right", no_wrap=True)
        for s in states[:MAX_ROWS]:
            table.add_row(escape(f"{s.task} #{s.attempt}"), s.phase, _clock(now - s.phase_started),
                          _clock(now - s.started))
        parts: list[Text | Table] = [Text(self.headline(), overflow="fold"), table]
        if len(states) > MAX_ROWS:
            parts.append(Text(f"... and {len(states) - MAX_ROWS} more running"))
        return Group(*parts)

"""Consoles that never let agent text drive the terminal.

Every command prints through a console made by :func:`terminal_console`: a rich
:class:`~rich.console.Console` with a render hook that passes the text of every rendered segment
through :func:`lancebench.results.text.visible` after rich has laid it out, so terminal escapes,
carriage returns, bidirectional overrides and undecodable bytes in task names, reasons, findings,
commands or file names show as ``␛``/``�`` whatever table, line or panel holds them. The
styles lancebench itself applies (colours, bold) are rich's own escape codes, written after the
hook, and cursor moves of a live display are control segments, left alone.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderableType, RenderHook, RenderResult
from rich.segment import Segment

from lancebench.results.text import visible


class Visible:
    """A renderable drawing ``inner`` with every segment's text made visible (for a live
    display's own renderable, which a console's render hooks do not reach)."""

    def __init__(self, inner: RenderableType):
        self.inner = inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for seg in console.render(self.inner, options):
            yield seg if seg.control else Segment(visible(seg.text), seg.style)


class _VisibleHook(RenderHook):
    def process_renderables(self, renderables: list[ConsoleRenderable]) -> list[ConsoleRenderable]:
        return [Visible(r) for r in renderables]


def terminal_console(**kwargs: Any) -> Console:
    """A :class:`~rich.console.Console` (``kwargs`` as rich takes them) whose output never holds a
    control character, bidirectional override or lone surrogate of the text it prints."""
    console = Console(**kwargs)
    console.push_render_hook(_VisibleHook())
    return console

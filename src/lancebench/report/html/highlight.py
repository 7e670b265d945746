"""Text rendered at build time (the site runs no renderer): the patch per file as a diff and shell
commands with Pygments, instructions and agent messages as Markdown with markdown-it-py
(CommonMark, raw HTML escaped, images off: nothing an agent wrote can add markup or load a file)."""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import BashLexer, DiffLexer

from lancebench.grading.patch import split_patch

CSS_CLASS = "hl"
MAX_PATCH_CHARS = 400_000


@lru_cache(maxsize=1)
def _formatter() -> HtmlFormatter:
    return HtmlFormatter(cssclass=CSS_CLASS, nowrap=False)


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).disable("image")


@lru_cache(maxsize=256)
def markdown(text: str) -> Markup:
    """``text`` as HTML from CommonMark, with raw HTML escaped and images shown as links (cached:
    the attempts of a task share their instruction)."""
    return Markup(_markdown().render(text))


def pygments_css() -> str:
    """The CSS of the highlighting (Pygments' default style, scoped to ``.hl``)."""
    return _formatter().get_style_defs(f".{CSS_CLASS}")


def shell(command: str) -> Markup:
    """A shell command as highlighted HTML (Pygments escapes the text)."""
    return Markup(highlight(command, BashLexer(), _formatter()))


def patch_files(patch: str, dropped: list[str]) -> list[dict]:
    """The patch per file: ``path``, ``dropped`` (its changes were removed before grading),
    ``html`` (the file's diff, highlighted), ``added``/``removed`` line counts. A patch over
    :data:`MAX_PATCH_CHARS` characters is cut there (the last file says so)."""
    cut = len(patch) > MAX_PATCH_CHARS
    text = patch[:MAX_PATCH_CHARS]
    drop = set(dropped)
    out = []
    for fd in split_patch(text):
        path = fd.new or fd.old or "?"
        lines = fd.text.splitlines()
        out.append({"path": path, "dropped": bool(fd.paths & drop),
                    "added": sum(ln.startswith("+") and not ln.startswith("+++") for ln in lines),
                    "removed": sum(ln.startswith("-") and not ln.startswith("---") for ln in lines),
                    "html": Markup(highlight(fd.text, DiffLexer(), _formatter()))})
    if cut and out:
        out[-1]["cut"] = True
    return out

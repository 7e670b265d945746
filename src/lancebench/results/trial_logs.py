"""The end of what a trial's test runner printed, for ``show --trial``: an ``invalid`` trial's
reason says the grader failed (``no JUnit report ... (exit code 4)``), its runner's own words are
in the verifier's ``test.log`` (``verifier/run-N/test.log``, written by
:mod:`lancebench.grading.verifier`: the exit code line, then the runner's standard output and
error). Read bounded (the last :data:`TAIL_BYTES` of the file), never through a link, and made
visible (:func:`lancebench.results.text.from_bytes`): the runner ran the agent's code."""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

from lancebench.results.paths import TrialPaths
from lancebench.results.text import from_bytes

TAIL_BYTES = 64 * 1024  # read at most this much of the end of a log
TAIL_LINES = 20  # lines shown
LINE_CHARS = 300  # characters shown of one line (the rest: "…")


@dataclasses.dataclass(frozen=True)
class LogTail:
    """The last ``lines`` of the log at ``path`` (made visible, each cut to :data:`LINE_CHARS`) and
    whether earlier lines were left out (``cut``)."""

    path: Path
    lines: list[str]
    cut: bool  # lines before these were left out


def runner_logs(trial_dir: Path) -> list[Path]:
    """The verifier's ``test.log`` files of the trial at ``trial_dir``, the graded runs' first,
    newest first (``verifier/run-N/``, and each step's ``steps/<name>/verifier/run-N/`` of a
    multi-step task), then the untouched base's (``verifier/base/``, the control of an invalid
    verdict); the canary's run is left out (it runs a copy of a test that must fail)."""
    root = TrialPaths(trial_dir).verifier
    verifier_dirs = [root, *sorted(Path(trial_dir).glob("steps/*/verifier"))]
    graded = [p for d in verifier_dirs for p in d.glob("run-*/test.log") if _regular(p)]
    graded.sort(key=lambda p: p.stat().st_mtime_ns, reverse=True)
    base = [p for d in verifier_dirs for p in [d / "base" / "test.log"] if _regular(p)]
    return graded + base


def _regular(path: Path) -> bool:
    """Whether ``path`` is a regular file reached without a link (its folders inside the trial's
    folder are the harness's; the file itself is checked with ``lstat``)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode) and not path.parent.is_symlink()
    except OSError:
        return False


def tail(path: Path, lines: int = TAIL_LINES) -> LogTail | None:
    """The last ``lines`` lines of ``path`` (a regular file, not a link), each cut to
    :data:`LINE_CHARS` characters, read from its last :data:`TAIL_BYTES` bytes; None when it
    cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        fh.seek(max(0, size - TAIL_BYTES))
        data = fh.read(TAIL_BYTES)
    text = from_bytes(data).rstrip("\n").split("\n")
    if size > TAIL_BYTES:
        text = text[1:]  # the first line read is likely the end of a longer one
    shown = [line if len(line) <= LINE_CHARS else line[:LINE_CHARS - 1] + "…" for line in text[-lines:]]
    return LogTail(path, shown, cut=size > TAIL_BYTES or len(text) > lines)


def runner_tail(trial_dir: Path, lines: int = TAIL_LINES) -> LogTail | None:
    """The end of the newest graded run's ``test.log`` of the trial (:func:`runner_logs`), or of
    the base's when no graded run left one; None when the verifier left no log."""
    for path in runner_logs(trial_dir):
        found = tail(path, lines)
        if found is not None:
            return found
    return None

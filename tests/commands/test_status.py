"""The live status of `lancebench run` (lancebench.commands.status): counts, ETA, tokens and
dollars from real TrialResult values, and the running trials the runner reports, at 80 columns."""

from __future__ import annotations

import io

from rich.console import Console

from lancebench.commands.status import JobStatus
from lancebench.results.models import Timings, TrialResult, Usage
from lancebench.runner import progress


def result(task: str, status: str, seconds: float, tokens_in: int, tokens_out: int, usd: float | None) -> TrialResult:
    return TrialResult(trial_id=f"{task}__0__x", job="j", task=task, task_digest="d", agent="a", attempt=0,
                       status=status, timings=Timings(total_sec=seconds),
                       usage=Usage(input_tokens=tokens_in, output_tokens=tokens_out, cost_usd=usd))


def test_eta_counts_and_usage_so_far():
    kept = [result("k", "resolved", 999.0, 5000, 5000, 9.0)]  # recorded earlier: counted, not timed
    status = JobStatus(total=6, kept=kept, concurrency=2)
    assert status.eta_sec() is None
    status.add(result("a", "unresolved", 30.0, 1200, 300, 0.25))
    status.add(result("b", "invalid", 10.0, 800, 200, 0.05))
    # 3 of 6 done; mean of this run's trials (30 + 10) / 2 = 20 s; 3 left over 2 at a time = 30 s
    assert status.eta_sec() == 3 * 20.0 / 2
    line = status.headline()
    assert line.startswith("3/6 done: 1 resolved 1 unresolved 1 invalid")
    assert "ETA 0:30" in line and "2.0k in/500 out tok $0.30" in line  # input/output tokens, USD
    status.add(result("c", "resolved", 5.0, 0, 0, None))  # a price unknown: dollars unknown, never 0
    assert status.headline().endswith("$?")


def test_running_trials_with_their_phase_fit_80_columns():
    status = JobStatus(total=2, kept=[], concurrency=2)
    progress.set_phase("t1", "starting", task="a-task-with-a-rather-long-name-that-goes-on-and-on", attempt=1)
    progress.set_phase("t1", "agent")
    progress.set_phase("t2", "starting", task="short", attempt=0)
    progress.set_phase("t2", "grading")
    try:
        buf = io.StringIO()
        Console(file=buf, width=80, color_system=None).print(status)
        lines = buf.getvalue().splitlines()
    finally:
        progress.finished("t1")
        progress.finished("t2")
    assert all(len(line) <= 80 for line in lines), lines
    long_row = next(line for line in lines if line.startswith("a-task-with"))
    short_row = next(line for line in lines if line.startswith("short #0"))
    assert "…" in long_row.split()[0] and long_row.split()[1] == "agent"  # cut, not wrapped onto two lines
    assert short_row.split()[2] == "grading"
    assert progress.running() == {}


def test_plain_progress_lines_are_the_text_made_visible():
    # off a terminal each line is written as it is (issue 29: rich laid out every line in the event
    # loop, ~1 ms each): markup rendered to its text, agent text still shown harmless (report/terminal.py)
    from lancebench.commands.progress_lines import Display
    from lancebench.report.terminal import terminal_console
    buf = io.StringIO()
    status = JobStatus(total=1, kept=[], concurrency=1)
    with Display(heartbeat_sec=3600).show(status, terminal_console(file=buf, force_terminal=False)) as on_result:
        progress.set_phase("t1", "starting", task="evil\x1b[2Jtask [b]x[/b]", attempt=0)
        progress.set_phase("t1", "agent")
        progress.finished("t1")
        bad = result("evil\x1b[2Jtask [b]x[/b]", "unresolved", 1.0, 0, 0, 0.0)
        on_result(bad.model_copy(update={"reason": "chose 2 \u202eevil\x07"}))
    assert buf.getvalue().splitlines() == [
        "  evil\u241b[2Jtask [b]x[/b] #0: starting",
        "  evil\u241b[2Jtask [b]x[/b] #0: agent (after 0s in starting)",
        "  evil\u241b[2Jtask [b]x[/b] #0: unresolved (chose 2 \ufffdevil)",  # rich's Text drops the BEL
    ]
    assert status.results == [status.new[0]] and status.new[0].task.startswith("evil")

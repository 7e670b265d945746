"""The trial table of ``show`` (and the end of ``run``): every number shows whatever the reason's
length, and task names that differ only at the end stay apart."""

from __future__ import annotations

import pytest
from rich.console import Console

from lancebench.commands.show import results_table, short_task
from lancebench.results.models import Timings, TrialResult, Usage

LONG_REASON = "tests not passing: " + ", ".join(f"test_hidden::test_case_number_{i} (failed)" for i in range(12))


def _trial(task: str, reward: float, seconds: float, cost: float, reason: str) -> TrialResult:
    return TrialResult(trial_id=task, job="j", task=task, task_digest="d", agent="nop", attempt=0, kind="code",
                       status="unresolved", reason=reason, rewards={"reward": reward},
                       usage=Usage(cost_usd=cost), timings=Timings(total_sec=seconds))


@pytest.mark.parametrize("width", [80, 150])
def test_reward_cost_and_time_show_beside_a_long_reason(width):
    rows = [_trial("boltons-bytes2human-boundary", 0.25, 71.0, 0.125, LONG_REASON),
            _trial("boltons-bytes2human-boundary-manager", 0.75, 3.0, 0.5, "no answer")]
    console = Console(width=width, record=True)
    console.print(results_table(rows, "job"))
    lines = console.export_text().splitlines()
    code = next(line for line in lines if "boundary " in line or line.rstrip().endswith("boundary"))
    manager = next(line for line in lines if "manager" in line)
    # before the fix, a reason wider than the terminal shrank try/reward/$/time to nothing
    assert code.split()[1:6] == ["0", "unresolved", "0.25", "0.125", "71s"]
    assert manager.split()[1:6] == ["0", "unresolved", "0.75", "0.500", "3s"]
    assert all(len(line) <= width for line in lines)
    assert "tests" in code and code.rstrip().endswith("…")


def test_long_task_names_are_cut_in_the_middle():
    a, b = "boltons-bytes2human-boundary", "boltons-bytes2human-boundary-manager"
    assert short_task("short") == "short"
    cut_a = short_task(a)
    assert len(cut_a) == 26 and cut_a.startswith("boltons-") and cut_a.endswith("-boundary")
    cut_b = short_task(b)
    assert len(cut_b) == 26 and cut_b.endswith("-manager") and cut_b.startswith("boltons-")
    assert cut_a != cut_b


def test_a_configuration_label_gives_the_agent_timeout_in_seconds():
    # before: "timeout=15.0", a number without its unit, in show, report and the HTML labels
    from lancebench.results.models import TrialConfig
    config = TrialConfig(agent="script:a.sh", agent_timeout_sec=15.0, backend="docker")
    assert config.label() == "script:a.sh timeout=15s backend=docker"
    assert TrialConfig(agent="nop", agent_timeout_sec=2.5).settings_parts() == ["timeout=2.5s"]


def _pass_at(n: int, c: int, k: int) -> float:
    from math import comb
    return 1 - comb(n - c, k) / comb(n, k)


def test_the_summary_line_gives_pass_at_k_and_pass_hat_k_with_several_attempts():
    # before: only pass_at_1, while the report's table shows pass@k and pass^k at k = most attempts
    from lancebench.commands.show import summary_line
    from lancebench.metrics import summarize
    statuses = {"a": ["resolved", "unresolved", "resolved"], "b": ["unresolved"] * 3, "c": ["resolved"] * 3}
    rows = [TrialResult(trial_id=f"{t}{i}", job="j", task=t, task_digest="d", agent="nop", attempt=i, kind="code",
                        status=s, reason="") for t, ss in statuses.items() for i, s in enumerate(ss)]
    line = summary_line(summarize(rows))
    counts = [(3, ss.count("resolved")) for ss in statuses.values()]
    at_1 = sum(c / n for n, c in counts) / 3
    at_3 = sum(_pass_at(n, c, 3) for n, c in counts) / 3  # a: 1, b: 0, c: 1
    hat_3 = sum(float(c == n) for n, c in counts) / 3  # all 3 attempts resolve: c only
    assert f"pass_at_1={at_1:.1%}" in line and f"pass_at_3={at_3:.1%}" in line and f"pass_hat_3={hat_3:.1%}" in line
    assert line.index("pass_at_1=") < line.index("pass_at_3=") < line.index("pass_hat_3=") < line.index("earned")
    one = summary_line(summarize([r for r in rows if r.attempt == 0]))
    assert "pass_at_1=" in one and "pass_at_" not in one.replace("pass_at_1=", "") and "pass_hat" not in one

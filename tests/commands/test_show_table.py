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

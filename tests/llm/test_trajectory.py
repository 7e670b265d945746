"""ATIF trajectories: field names, totals, unknown cost, strict reading."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from lancebench.agents.trajectory import Metrics, TrajectoryBuilder, read_trajectory, write_trajectory


def test_builder_numbers_steps_and_sums_metrics(tmp_path):
    b = TrajectoryBuilder("my-agent", "1.0", "openai/x")
    b.system("be useful")
    b.user("fix it")
    s = b.agent_step("look", commands=[("c1", "ls")], metrics=Metrics(prompt_tokens=10, completion_tokens=2,
                                                                      cached_tokens=4, cost_usd=0.5))
    b.observe(s, "a.py", call_id="c1")
    b.agent_step("done", metrics=Metrics(prompt_tokens=20, completion_tokens=3, cost_usd=0.25))
    path = write_trajectory(b.finish(extra={"exit_status": "Submitted"}), tmp_path)
    data = json.loads(path.read_text())
    assert data["schema_version"] == "ATIF-v1.4" and data["agent"]["name"] == "my-agent"
    assert [st["step_id"] for st in data["steps"]] == [1, 2, 3, 4]
    assert data["steps"][2]["tool_calls"] == [{"tool_call_id": "c1", "function_name": "bash",
                                               "arguments": {"command": "ls"}}]
    assert data["steps"][2]["observation"] == {"results": [{"source_call_id": "c1", "content": "a.py"}]}
    fm = data["final_metrics"]
    assert (fm["total_prompt_tokens"], fm["total_completion_tokens"], fm["total_cached_tokens"]) == (30, 5, 4)
    assert fm["total_cost_usd"] == pytest.approx(0.75) and fm["total_steps"] == 4
    assert "reasoning_content" not in data["steps"][2]  # None fields are left out
    t = read_trajectory(path)
    assert t.usage().calls == 2 and t.usage().cost_usd == pytest.approx(0.75)


def test_unknown_cost_stays_unknown(tmp_path):
    b = TrajectoryBuilder("a", "1")
    b.agent_step("x", metrics=Metrics(prompt_tokens=1, completion_tokens=1, cost_usd=0.1))
    b.agent_step("y", metrics=Metrics(prompt_tokens=1, completion_tokens=1))  # price unknown
    data = json.loads(write_trajectory(b.finish(), tmp_path).read_text())
    assert "total_cost_usd" not in data["final_metrics"]


def test_reading_is_strict(tmp_path):
    bad = tmp_path / "trajectory.json"
    bad.write_text(json.dumps({"schema_version": "ATIF-v1.4", "session_id": "s",
                               "agent": {"name": "a", "version": "1"}, "steps": [], "surprise": 1}))
    with pytest.raises(ValidationError):
        read_trajectory(bad)

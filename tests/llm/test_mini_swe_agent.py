"""The `mini-swe-agent` agent in a real bubblewrap sandbox, driven by the scripted server over HTTP
(and once by the real local model)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

import pytest
from scripted_server import Fail, Reply

from lancebench.agents.base import AgentContext
from lancebench.agents.mini_swe import SUBMIT_MARKER, MiniSweAgent, truncate_middle
from lancebench.agents.trajectory import read_trajectory
from lancebench.errors import ConfigError, ModelAuthError
from lancebench.sandbox.base import Limits, SandboxSpec
from lancebench.sandbox.local import LocalSandbox

BUGGY = "def add(a, b):\n    return a - b\n"
HIDDEN_TEST = "import calc\nassert calc.add(2, 3) == 5, calc.add(2, 3)\nprint('hidden test passed')\n"


def bash(text: str, command: str, **usage) -> Reply:
    return Reply(f"{text}\n\n```bash\n{command}\n```", **usage)


def submit(**usage) -> Reply:
    return bash("Done.", f"echo {SUBMIT_MARKER}", **usage)


async def run_agent(root: Path, agent: MiniSweAgent, *, timeout: float = 120, cancel_after: float | None = None,
                    **ctx_fields):
    ws = root / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "calc.py").write_text(BUGGY)
    sb = LocalSandbox(SandboxSpec(workdir="/app", workspace=ws))
    await sb.start()
    logs = root / "agent"
    ctx = AgentContext(task_name="calc", instruction="add() in calc.py subtracts; make it add.", sandbox=sb,
                       workdir="/app", timeout_sec=timeout, deadline=time.monotonic() + timeout, limits=Limits(),
                       logs_dir=logs, model=agent.model, **ctx_fields)
    try:
        if cancel_after is None:
            return await agent.run(ctx), ws, logs
        task = asyncio.ensure_future(agent.run(ctx))
        await asyncio.sleep(cancel_after)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return None, ws, logs
    finally:
        await sb.stop()


async def hidden_test_passes(ws: Path) -> bool:
    """Grade like the harness would: a fresh sandbox over the workspace, with the hidden test."""
    (ws / "test_hidden.py").write_text(HIDDEN_TEST)
    sb = LocalSandbox(SandboxSpec(workdir="/app", workspace=ws))
    await sb.start()
    try:
        res = await sb.exec("python3 test_hidden.py", timeout=30)
    finally:
        await sb.stop()
    return res.ok


def test_text_mode_fixes_the_task_and_records_every_step(scripted, sandbox_dir):
    replies = [bash("Let me look.", "cat calc.py", prompt_tokens=300, completion_tokens=20),
               Reply("I think I know the fix now.", prompt_tokens=350, completion_tokens=9),  # no block: format error
               bash("Fix the operator.",
                    "sed -i 's/a - b/a + b/' calc.py && python3 -c 'import calc; print(calc.add(2, 3))'",
                    prompt_tokens=400, completion_tokens=30, cached_tokens=300),
               submit(prompt_tokens=450, completion_tokens=8, cached_tokens=400)]
    srv = scripted([replies[0], replies[1], Fail(500), Fail(503), replies[2], replies[3]])
    agent = MiniSweAgent("openai/scripted", srv.api_base, backoff_sec=0.01)
    out, ws, logs = asyncio.run(run_agent(sandbox_dir, agent))

    assert out.exit == "completed" and out.invalid_reason is None
    assert asyncio.run(hidden_test_passes(ws))
    # usage equals what the server reported
    assert out.usage.input_tokens == sum(r.prompt_tokens for r in replies)
    assert out.usage.output_tokens == sum(r.completion_tokens for r in replies)
    assert out.usage.cached_tokens == 700
    assert out.usage.calls == 4 and out.usage.retries == 2
    assert out.usage.cost_usd is None  # unknown price stays unknown
    # the model saw the command's output
    second = srv.requests[1]["body"]["messages"]
    assert "return a - b" in second[-1]["content"] and second[-1]["role"] == "user"
    assert "tools" not in srv.requests[0]["body"]

    traj = read_trajectory(logs / "trajectory.json")
    assert [s.source for s in traj.steps] == ["system", "user", "agent", "agent", "agent", "agent"]
    agent_steps = traj.steps[2:]
    for step, reply in zip(agent_steps, replies, strict=False):
        assert step.message == reply.content
        assert (step.metrics.prompt_tokens, step.metrics.completion_tokens, step.metrics.cached_tokens) == \
            (reply.prompt_tokens, reply.completion_tokens, reply.cached_tokens)
    assert agent_steps[0].tool_calls[0].arguments == {"command": "cat calc.py"}
    assert "return a - b" in agent_steps[0].observation.results[0].content
    assert agent_steps[0].observation.results[0].source_call_id == agent_steps[0].tool_calls[0].tool_call_id
    assert agent_steps[1].tool_calls is None and agent_steps[1].observation.results[0].extra["format_error"]
    assert "5" in agent_steps[2].observation.results[0].content
    assert agent_steps[2].metrics.extra["retries"] == 2
    assert traj.final_metrics.total_prompt_tokens == out.usage.input_tokens
    assert traj.final_metrics.total_completion_tokens == out.usage.output_tokens
    assert traj.final_metrics.total_cost_usd is None
    assert traj.extra["exit_status"] == "Submitted"
    assert traj.usage() == out.usage
    # the prompt states the limits and the deadline
    prompt = traj.steps[1].message
    assert "Deadline:" in prompt and "At most 50 model replies" in prompt and "user-tool" not in prompt


def test_tool_call_mode_for_models_that_have_it(scripted, sandbox_dir):
    srv = scripted([
        Reply("Fixing.", tool_calls=[{"name": "bash", "arguments": {"command": "sed -i 's/a - b/a + b/' calc.py"}},
                                     {"name": "bash", "arguments": {"command": "cat calc.py"}}],
              prompt_tokens=1000, completion_tokens=50),
        Reply("", tool_calls=[{"name": "bash", "arguments": {"command": f"echo {SUBMIT_MARKER}"}}],
              prompt_tokens=1200, completion_tokens=10)])
    agent = MiniSweAgent("openai/gpt-4o-mini", srv.api_base)
    out, ws, logs = asyncio.run(run_agent(sandbox_dir, agent))
    assert out.exit == "completed"
    assert asyncio.run(hidden_test_passes(ws))
    assert out.usage.cost_usd is not None and out.usage.cost_usd > 0  # litellm's price table
    body = srv.requests[1]["body"]
    assert body["tools"][0]["function"]["name"] == "bash"
    tool_msgs = [m for m in body["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_msgs] == ["call_1_0", "call_1_1"]
    assert "return a + b" in tool_msgs[1]["content"]
    traj = read_trajectory(logs / "trajectory.json")
    step = traj.steps[2]
    assert [c.tool_call_id for c in step.tool_calls] == ["call_1_0", "call_1_1"]
    assert [r.source_call_id for r in step.observation.results] == ["call_1_0", "call_1_1"]
    assert traj.final_metrics.total_cost_usd == pytest.approx(out.usage.cost_usd)
    assert traj.agent.extra["mode"] == "tool"


def test_outage_makes_the_trial_invalid(scripted, sandbox_dir):
    srv = scripted([bash("look", "ls", prompt_tokens=10, completion_tokens=2)] + [Fail(500)] * 10)
    agent = MiniSweAgent("openai/scripted", srv.api_base, backoff_sec=0.01, max_retries=2)
    out, _, logs = asyncio.run(run_agent(sandbox_dir, agent))
    assert out.exit == "error" and out.invalid_reason and "500" in out.invalid_reason
    assert out.usage.calls == 1 and out.usage.input_tokens == 10 and out.usage.retries == 2
    traj = read_trajectory(logs / "trajectory.json")
    assert traj.extra["exit_status"] == "ModelError" and len(traj.steps) == 3


def test_auth_failure_stops_with_the_key_to_set(scripted, sandbox_dir):
    srv = scripted([Fail(401, "Incorrect API key provided")] * 3)
    agent = MiniSweAgent("openai/scripted", srv.api_base, backoff_sec=0.01)
    with pytest.raises(ModelAuthError, match="OPENAI_API_KEY"):
        asyncio.run(run_agent(sandbox_dir, agent))
    assert len(srv.requests) == 1
    assert read_trajectory(sandbox_dir / "agent" / "trajectory.json").extra["exit_status"] == "ModelAuthError"


def test_step_limit(scripted, sandbox_dir):
    srv = scripted([bash("look", "ls")] * 5)
    agent = MiniSweAgent("openai/scripted", srv.api_base, max_steps=2)
    out, _, logs = asyncio.run(run_agent(sandbox_dir, agent))
    assert out.exit == "limit" and len(srv.requests) == 2
    assert "At most 2 model replies" in read_trajectory(logs / "trajectory.json").steps[1].message


def test_cost_limit_in_usd(scripted, sandbox_dir):
    # 1,000,000 input tokens at 1 USD per million: each reply costs 1 USD.
    srv = scripted([bash("look", "ls", prompt_tokens=1_000_000, completion_tokens=0)] * 5)
    agent = MiniSweAgent("openai/scripted", srv.api_base, max_cost=1.5, prices={"input": 1.0, "output": 1.0})
    out, _, _ = asyncio.run(run_agent(sandbox_dir, agent))
    assert out.exit == "limit" and len(srv.requests) == 2 and out.usage.cost_usd == pytest.approx(2.0)


def test_deadline_ends_the_loop_with_usage(scripted, sandbox_dir):
    srv = scripted([bash("wait", "sleep 60")] * 3)
    agent = MiniSweAgent("openai/scripted", srv.api_base, deadline_margin_sec=1)
    started = time.monotonic()
    out, _, logs = asyncio.run(run_agent(sandbox_dir, agent, timeout=6))
    assert time.monotonic() - started < 15
    assert out.exit == "timeout" and out.usage.calls == 1
    traj = read_trajectory(logs / "trajectory.json")
    result = traj.steps[2].observation.results[0]
    assert result.extra["timed_out"] and "stopped after" in result.content


def test_cancellation_writes_the_trajectory(scripted, sandbox_dir):
    srv = scripted([bash("wait", "sleep 60")] * 3)
    agent = MiniSweAgent("openai/scripted", srv.api_base)
    started = time.monotonic()
    asyncio.run(run_agent(sandbox_dir, agent, cancel_after=3))
    assert time.monotonic() - started < 20
    for _ in range(50):  # the worker thread notices and ends
        if not any(t.name.startswith("mini-swe-") for t in threading.enumerate()):
            break
        time.sleep(0.1)
    assert not any(t.name.startswith("mini-swe-") for t in threading.enumerate())
    traj = read_trajectory(sandbox_dir / "agent" / "trajectory.json")
    assert traj.extra["exit_status"] == "Cancelled" and traj.final_metrics.total_prompt_tokens == 100


def test_long_output_keeps_head_and_tail(scripted, sandbox_dir):
    srv = scripted([bash("count", "seq 1 100000"), submit()])
    agent = MiniSweAgent("openai/scripted", srv.api_base, output_limit=200)
    out, _, logs = asyncio.run(run_agent(sandbox_dir, agent))
    seen = srv.requests[1]["body"]["messages"][-1]["content"]
    assert seen.split("\n")[1] == "1" and seen.rstrip().endswith("100000") and "characters cut" in seen
    assert len(seen) < 400
    assert truncate_middle("abcdef", 4) .startswith("ab") and truncate_middle("abc", 4) == "abc"


def test_choice_task_and_browser_prompt(scripted, sandbox_dir):
    srv = scripted([bash("Proposal 2 is best.", "echo '{\"selected_proposal_id\": 2}' > answer.json"), submit()])
    agent = MiniSweAgent("openai/scripted", srv.api_base)
    out, ws, logs = asyncio.run(run_agent(sandbox_dir, agent, kind="choice", proposal_ids=[1, 2],
                                          answer_file="answer.json", browser=True))
    assert out.exit == "completed"
    assert json.loads((ws / "answer.json").read_text()) == {"selected_proposal_id": 2}
    prompt = read_trajectory(logs / "trajectory.json").steps[1].message
    assert "answer.json" in prompt and "user-tool" in prompt


def test_stop_after_block_ends_replies_at_the_first_closing_fence(scripted, sandbox_dir):
    """With stop_after_block (the default for local models) the request carries the closing fence
    as a stop sequence; a reply the server cut there (fence not included, finish_reason "stop") is
    closed again, run, and kept closed in the conversation."""
    cut = Reply("Fix it.\n\n```bash\nsed -i 's/a - b/a + b/' calc.py", finish_reason="stop")
    srv = scripted([cut, submit()])
    agent = MiniSweAgent("openai/scripted", srv.api_base, stop_after_block=True, mode="text")
    out, ws, logs = asyncio.run(run_agent(sandbox_dir, agent))
    assert out.exit == "completed" and asyncio.run(hidden_test_passes(ws))
    assert all(r["body"]["stop"] == ["\n```\n"] for r in srv.requests)
    assert srv.requests[1]["body"]["messages"][2]["content"] == cut.content + "\n```"
    plain = scripted([submit()])
    (sandbox_dir / "plain").mkdir()
    asyncio.run(run_agent(sandbox_dir / "plain", MiniSweAgent("openai/scripted", plain.api_base, mode="text")))
    assert "stop" not in plain.requests[0]["body"]  # off by default for hosted models


def test_unknown_options_are_refused():
    with pytest.raises(ConfigError, match="max_stepz"):
        MiniSweAgent("openai/x", None, max_stepz=3)
    with pytest.raises(ConfigError, match="mode"):
        MiniSweAgent("openai/x", None, mode="voice")
    assert MiniSweAgent("openai/x", None, **{"max-steps": 3}).options == {"max-steps": 3}


@pytest.mark.llm
def test_real_local_model_runs_a_trial(sandbox_dir):
    """SmolLM2-135M on the CPU through the whole loop: a status, a trajectory, real token counts."""
    from lancebench.llm import serve_model

    with serve_model("local") as api_base:
        agent = MiniSweAgent("local", api_base, max_steps=2, max_tokens=48, temperature=0)
        started = time.monotonic()
        out, _, logs = asyncio.run(run_agent(sandbox_dir, agent, timeout=300))
        took = time.monotonic() - started
    print(f"local model, 2 steps: {took:.1f}s, exit={out.exit}, usage={out.usage}")
    assert out.exit in ("completed", "limit", "error") and out.invalid_reason is None
    assert out.usage.input_tokens > 0 and out.usage.output_tokens > 0 and out.usage.cost_usd == 0.0
    traj = read_trajectory(logs / "trajectory.json")
    agent_steps = [s for s in traj.steps if s.source == "agent"]
    assert 1 <= len(agent_steps) <= 2 and all(s.metrics.prompt_tokens > 0 for s in agent_steps)


def test_an_empty_reply_is_an_error_turn_with_its_usage(scripted, sandbox_dir):
    """A filtered answer (finish_reason content_filter, no text) and one without choices reach the
    agent as answers: it is told the reply was empty and goes on; their tokens are counted."""
    from scripted_server import Raw

    def empty(choices: list, tokens: int) -> Raw:
        return Raw({"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": choices,
                    "usage": {"prompt_tokens": tokens, "completion_tokens": 0, "total_tokens": tokens}})

    filtered = [{"index": 0, "message": {"role": "assistant", "content": None}, "finish_reason": "content_filter"}]
    srv = scripted([empty(filtered, 40), empty([], 50), submit(prompt_tokens=60, completion_tokens=3)])
    agent = MiniSweAgent("openai/scripted", srv.api_base, max_format_errors=3)
    out, _, logs = asyncio.run(run_agent(sandbox_dir, agent))
    assert out.exit == "completed" and out.invalid_reason is None
    assert out.usage.calls == 3 and out.usage.input_tokens == 150
    told = srv.requests[1]["body"]["messages"][-1]["content"]
    assert "came back empty" in told and "content_filter" in told
    traj = read_trajectory(logs / "trajectory.json")
    steps = [s for s in traj.steps if s.source == "agent"]
    assert [s.extra.get("empty_reply") if s.extra else None for s in steps] == [
        "finish_reason content_filter", "no choices", None]


def test_empty_replies_in_a_row_stop_the_agent_with_that_reason(scripted, sandbox_dir):
    from scripted_server import Raw

    null = Raw({"id": "x", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{"index": 0, "message": None, "finish_reason": "content_filter"}],
                "usage": {"prompt_tokens": 9, "completion_tokens": 0, "total_tokens": 9}})
    srv = scripted([null] * 2)
    agent = MiniSweAgent("openai/scripted", srv.api_base, max_format_errors=2, backoff_sec=0.01)
    out, _, _ = asyncio.run(run_agent(sandbox_dir, agent))
    assert out.exit == "error" and out.invalid_reason is None  # the model's answer, not an outage
    assert "came back empty (null message)" in out.message
    assert len(srv.requests) == 2 and out.usage.calls == 2 and out.usage.input_tokens == 18

"""Installed agents end to end: the real CLI, the model gateway (LiteLLM's proxy on 127.0.0.1)
in front of the scripted server, bubblewrap sandboxes, a `mini` task and its hidden tests.

The scripted model drives Aider to the task's reference fix in two calls: it first asks for the
file (Aider adds it and asks again), then answers with the fix as a SEARCH/REPLACE block. Claude
Code (Anthropic messages) and Codex (the Responses API, on docker) get the fix as a shell tool
call, then a closing answer; so does opencode (chat completions, its bash tool). Each agent is
installed once per machine (cached in $LANCEBENCH_HOME/agents/: Aider minutes, Claude Code,
Codex and opencode about a minute each); the gateway's
per-trial key check is tested against a real proxy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import litellm
import pytest
from scripted_server import Reply

from lancebench.agents.installed.aider import parse_llm_history
from lancebench.agents.trajectory import read_trajectory
from lancebench.llm.client import resolve_model
from lancebench.llm.gateway import Gateway

pytestmark = pytest.mark.slow

TASK = Path(__file__).parents[2] / "src/lancebench/datasets/mini/tasks/more-itertools-reversed-empty-range"
CALC = Path(__file__).parents[1] / "fixtures" / "tasks" / "calc"
REAL_KEY = "sk-real-" + os.urandom(12).hex()
ASK = Reply("To fix `numeric_range.__reversed__` I need to edit more_itertools/more.py", prompt_tokens=1200,
            completion_tokens=40)
FIX = Reply("Return an empty iterator for an empty range.\n\nmore_itertools/more.py\n```python\n"
            "<<<<<<< SEARCH\n    def __reversed__(self):\n        return iter(\n=======\n"
            "    def __reversed__(self):\n        if not self:\n            return iter(())\n        return iter(\n"
            ">>>>>>> REPLACE\n```\n", prompt_tokens=52000, completion_tokens=90, cached_tokens=1000)


def lancebench(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from lancebench.cli import main; main()", *args],
                          capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=1800)


def _price(reply: Reply) -> float:
    """USD of one call of gpt-4o-mini, from litellm's price table (cached input tokens at their own price)."""
    p = litellm.model_cost["gpt-4o-mini"]
    fresh = reply.prompt_tokens - reply.cached_tokens
    return (fresh * p["input_cost_per_token"] + reply.cached_tokens * p.get("cache_read_input_token_cost",
            p["input_cost_per_token"]) + reply.completion_tokens * p["output_cost_per_token"])


def _files_with(root: Path, needle: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def test_aider_resolves_a_mini_task_on_docker_through_the_gateway(scripted, tmp_path):
    """Aider's environment (made with the host's /usr/bin/python3) runs in the task's container,
    whose Debian image has the same Python; the local backend's path (install cache and gateway
    socket bound in, the relay) is Claude Code's test's. ``max_output_tokens`` reaches the model
    as each request's ``max_tokens``."""
    srv = scripted([Reply("ok", prompt_tokens=5, completion_tokens=1), ASK, FIX])  # preflight, then Aider
    proc = lancebench("run", "-p", str(TASK), "-a", "aider", "-m", "openai/gpt-4o-mini", "--api-base", srv.api_base,
                      "--backend", "docker",
                      "-o", str(tmp_path), "--job-name", "j",
                      "--ao", "extra_args=--auto-test --test-cmd env",  # prints the sandbox's environment
                      "--ao", "max_output_tokens=777",
                      env={"OPENAI_API_KEY": REAL_KEY})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (trial,) = [p for p in (tmp_path / "j" / "trials").iterdir() if p.is_dir()]
    result = json.loads((trial / "result.json").read_text())
    assert result["status"] == "resolved", result
    usage = result["usage"]
    assert usage["calls"] == 2
    assert usage["input_tokens"] == ASK.prompt_tokens + FIX.prompt_tokens
    assert usage["output_tokens"] == ASK.completion_tokens + FIX.completion_tokens
    assert usage["cost_usd"] == pytest.approx(_price(ASK) + _price(FIX), rel=1e-9)
    traj = read_trajectory(trial / "agent" / "trajectory.json")
    assert [s.source for s in traj.steps] == ["user", "agent", "user", "agent"]
    assert traj.steps[1].message == ASK.content and "<<<<<<< SEARCH" in traj.steps[3].message
    assert "numeric_range" in traj.steps[0].message
    assert traj.steps[2].message.startswith("I added these files to the chat: more_itertools/more.py")
    assert [s.metrics.prompt_tokens for s in traj.steps if s.source == "agent"] == [1200, 52000]
    # the model saw the trial key, never the real one; the real one reached only the scripted server
    agent_calls = srv.requests[1:]
    sent = [{k.lower(): v for k, v in r["headers"].items()}.get("authorization") for r in agent_calls]
    assert sent == [f"Bearer {REAL_KEY}"] * 2, sent
    assert [r["body"].get("max_tokens") for r in agent_calls] == [777, 777]  # --ao max_output_tokens
    log = (trial / "agent" / "aider.log").read_text()
    assert "OPENAI_API_KEY=sk-lancebench-" in log  # the test command printed the sandbox's environment
    assert _files_with(tmp_path, REAL_KEY) == []


FIX_PY = ("import pathlib; p = pathlib.Path('more_itertools/more.py'); s = p.read_text(); "
          "p.write_text(s.replace('    def __reversed__(self):\\n        return iter(', "
          "'    def __reversed__(self):\\n        if not self:\\n            return iter(())\\n"
          "        return iter(', 1))")
CC_FIX = Reply("", tool_calls=[{"name": "Bash", "arguments": {
    "command": f"python3 -c \"{FIX_PY}\" && env | grep ^ANTHROPIC_", "description": "Fix __reversed__"}}],
    prompt_tokens=9000, completion_tokens=120, cached_tokens=2000)
CC_DONE = Reply("Fixed: an empty range now reverses to an empty iterator.", prompt_tokens=9500, completion_tokens=15)


def test_claude_code_resolves_a_mini_task_through_the_gateway(scripted, tmp_path):
    """Claude Code's Anthropic messages reach the scripted chat server through the gateway; the
    scripted answer makes it run the fix with its Bash tool, then it stops."""
    srv = scripted([Reply("ok", prompt_tokens=5, completion_tokens=1), CC_FIX, CC_DONE])
    proc = lancebench("run", "-p", str(TASK), "-a", "claude-code", "-m", "openai/gpt-4o-mini",
                      "--api-base", srv.api_base, "-o", str(tmp_path), "--job-name", "j",
                      env={"OPENAI_API_KEY": REAL_KEY})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (trial,) = [p for p in (tmp_path / "j" / "trials").iterdir() if p.is_dir()]
    result = json.loads((trial / "result.json").read_text())
    assert result["status"] == "resolved", (result, (trial / "agent" / "claude-code.log").read_text()[-3000:])
    usage = result["usage"]
    assert (usage["calls"], usage["input_tokens"], usage["output_tokens"]) == (2, 18500, 135)
    assert usage["cost_usd"] == pytest.approx(_price(CC_FIX) + _price(CC_DONE), rel=1e-9)
    traj = read_trajectory(trial / "agent" / "trajectory.json")
    assert [s.source for s in traj.steps] == ["user", "agent", "agent"]
    assert "numeric_range" in traj.steps[0].message
    (call,) = traj.steps[1].tool_calls or []
    assert call.function_name == "bash" and call.arguments["command"].startswith("python3 -c")
    (observed,) = traj.steps[1].observation.results
    assert "ANTHROPIC_API_KEY=sk-lancebench-" in observed.content and "ANTHROPIC_BASE_URL=http://127.0.0.1:" in \
        observed.content
    assert traj.steps[2].message == CC_DONE.content
    assert [s.metrics.prompt_tokens for s in traj.steps[1:]] == [9000, 9500]
    sent = [{k.lower(): v for k, v in r["headers"].items()}.get("authorization") for r in srv.requests[1:]]
    assert sent == [f"Bearer {REAL_KEY}"] * 2, sent
    assert srv.requests[2]["body"]["messages"][-1]["role"] == "tool"  # the tool's result went back to the model
    assert _files_with(tmp_path, REAL_KEY) == []


CX_FIX = Reply("", tool_calls=[{"name": "exec_command", "arguments": {
    "cmd": f"python3 -c \"{FIX_PY}\" && env | grep ^LANCEBENCH_GATEWAY_KEY"}}],
    prompt_tokens=7000, completion_tokens=80, cached_tokens=3000)
CX_DONE = Reply("The empty range now reverses to an empty iterator.", prompt_tokens=7400, completion_tokens=12)


def test_codex_resolves_a_mini_task_on_docker_through_the_gateways_responses_api(scripted, tmp_path):
    """Codex's Responses API calls go through the gateway to the scripted server's /v1/responses;
    the scripted answer makes it run the fix with its exec_command tool, then it stops. It runs in
    the agent's docker container (no network), the install cache and the gateway's socket bound
    into it (the local backend binds them the same way: Claude Code's test runs there)."""
    srv = scripted([Reply("ok", prompt_tokens=5, completion_tokens=1), CX_FIX, CX_DONE])
    proc = lancebench("run", "-p", str(TASK), "-a", "codex", "-m", "openai/gpt-4o-mini", "--backend", "docker",
                      "--api-base", srv.api_base, "-o", str(tmp_path), "--job-name", "j",
                      env={"OPENAI_API_KEY": REAL_KEY})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (trial,) = [p for p in (tmp_path / "j" / "trials").iterdir() if p.is_dir()]
    result = json.loads((trial / "result.json").read_text())
    assert result["status"] == "resolved", (result, (trial / "agent" / "codex.log").read_text()[-3000:])
    usage = result["usage"]
    assert (usage["calls"], usage["input_tokens"], usage["output_tokens"]) == (2, 14400, 92)
    assert usage["cost_usd"] == pytest.approx(_price(CX_FIX) + _price(CX_DONE), rel=1e-9)
    assert [r["body"].get("stream") for r in srv.requests[1:]] == [True, True]
    assert srv.requests[2]["body"]["input"][-1]["type"] == "function_call_output"
    traj = read_trajectory(trial / "agent" / "trajectory.json")
    assert [s.source for s in traj.steps] == ["user", "agent", "agent"]
    assert "numeric_range" in traj.steps[0].message
    (call,) = traj.steps[1].tool_calls or []
    assert call.function_name == "bash" and call.arguments["command"].startswith("python3 -c")
    (observed,) = traj.steps[1].observation.results
    assert "LANCEBENCH_GATEWAY_KEY=sk-lancebench-" in observed.content
    assert traj.steps[2].message == CX_DONE.content
    assert [s.metrics.prompt_tokens for s in traj.steps[1:]] == [7000, 7400]
    sent = [{k.lower(): v for k, v in r["headers"].items()}.get("authorization") for r in srv.requests[1:]]
    assert sent == [f"Bearer {REAL_KEY}"] * 2, sent
    assert _files_with(tmp_path, REAL_KEY) == []



OC_FIX = Reply("I will patch `__reversed__`.", tool_calls=[{"name": "bash", "arguments": {
    "command": f"python3 -c \"{FIX_PY}\" && env | grep ^LANCEBENCH_GATEWAY_KEY", "description": "Fix __reversed__"}}],
    prompt_tokens=8000, completion_tokens=70, cached_tokens=1500)
OC_DONE = Reply("An empty range now reverses to an empty iterator.", prompt_tokens=8300, completion_tokens=11)


def test_opencode_resolves_a_mini_task_through_the_gateway_without_a_registry(scripted, tmp_path):
    """opencode's chat completions (its openai-compatible provider pointed at the gateway) reach
    the scripted server; the scripted answer makes it run the fix with its bash tool, then it
    stops. The sandbox has no network: the package opencode would fetch from npm at first run
    was installed with it, so it fetches nothing (a failed fetch would be logged as a warning)."""
    srv = scripted([Reply("ok", prompt_tokens=5, completion_tokens=1), OC_FIX, OC_DONE])
    proc = lancebench("run", "-p", str(TASK), "-a", "opencode", "-m", "openai/gpt-4o-mini",
                      "--api-base", srv.api_base, "-o", str(tmp_path), "--job-name", "j",
                      env={"OPENAI_API_KEY": REAL_KEY})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (trial,) = [p for p in (tmp_path / "j" / "trials").iterdir() if p.is_dir()]
    result = json.loads((trial / "result.json").read_text())
    log = (trial / "agent" / "opencode.log").read_text()
    assert result["status"] == "resolved", (result, log[-3000:])
    usage = result["usage"]
    assert (usage["calls"], usage["input_tokens"], usage["output_tokens"]) == (2, 16300, 81)
    assert usage["cost_usd"] == pytest.approx(_price(OC_FIX) + _price(OC_DONE), rel=1e-9)
    assert [r["body"].get("stream") for r in srv.requests[1:]] == [True, True]
    assert srv.requests[2]["body"]["messages"][-1]["role"] == "tool"  # the tool's result went back to the model
    traj = read_trajectory(trial / "agent" / "trajectory.json")
    assert [s.source for s in traj.steps] == ["user", "agent", "agent"]
    assert "numeric_range" in traj.steps[0].message
    assert traj.steps[1].message == OC_FIX.content
    (call,) = traj.steps[1].tool_calls or []
    assert call.function_name == "bash" and call.arguments["command"].startswith("python3 -c")
    (observed,) = traj.steps[1].observation.results
    assert "LANCEBENCH_GATEWAY_KEY=sk-lancebench-" in observed.content
    assert traj.steps[2].message == OC_DONE.content
    assert [s.metrics.prompt_tokens for s in traj.steps[1:]] == [8000, 8300]
    sent = [{k.lower(): v for k, v in r["headers"].items()}.get("authorization") for r in srv.requests[1:]]
    assert sent == [f"Bearer {REAL_KEY}"] * 2, sent
    assert "dependency install failed" not in log and "registry.npmjs.org" not in log
    assert _files_with(tmp_path, REAL_KEY) == []


def _assert_local_trial(proc, tmp_path: Path, min_prompt_tokens: int) -> None:
    """A `-m local` run of an installed agent (job ``j`` under ``tmp_path``) recorded one trial,
    resolved or not, with the gateway's usage (one call at least, more than ``min_prompt_tokens``
    prompt tokens, an answer, cost 0 for a local model), a trajectory whose first agent step
    carries that call's metrics and whose totals equal the usage, and a provider key set on the
    host nowhere in the job folder."""
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (trial,) = [p for p in (tmp_path / "j" / "trials").iterdir() if p.is_dir()]
    result = json.loads((trial / "result.json").read_text())
    assert result["status"] in ("resolved", "unresolved"), result
    usage = result["usage"]
    assert usage["calls"] >= 1 and usage["input_tokens"] > min_prompt_tokens and usage["output_tokens"] > 0, usage
    assert usage["cost_usd"] == 0.0
    traj = read_trajectory(trial / "agent" / "trajectory.json")
    agent_steps = [s for s in traj.steps if s.source == "agent"]
    assert traj.steps[0].source == "user" and agent_steps, traj.steps
    assert agent_steps[0].metrics is not None and agent_steps[0].metrics.prompt_tokens > min_prompt_tokens
    assert traj.final_metrics.total_prompt_tokens == usage["input_tokens"]
    assert _files_with(tmp_path, REAL_KEY) == []


@pytest.mark.llm
@pytest.mark.heavy  # about 10,000 prompt tokens on SmolLM2: 2-9 minutes on 2 cores; run with -m heavy
def test_claude_code_with_the_local_model_records_usage_and_a_trajectory(tmp_path):
    """`-a claude-code -m local`: Claude Code's first request (about 10,000 tokens of system prompt
    and tools) reaches SmolLM2 through the gateway in a window above its training context; one
    turn (the model is too weak to fix anything): the trial is recorded with the gateway's usage
    (tokens > 0, cost 0 for a local model), a trajectory whose agent step carries that call's
    metrics, and a provider key set on the host appears nowhere in the job folder."""
    proc = lancebench("run", "-p", str(TASK), "-a", "claude-code", "-m", "local", "--ao", "max_turns=1",
                      "--ao", "max_output_tokens=32",  # SmolLM2 may ramble for thousands of tokens
                      "--agent-timeout", "900", "-o", str(tmp_path), "--job-name", "j",
                      env={"ANTHROPIC_API_KEY": REAL_KEY, "OPENAI_API_KEY": REAL_KEY})
    _assert_local_trial(proc, tmp_path, min_prompt_tokens=8192)


@pytest.mark.llm
@pytest.mark.heavy  # opencode's 2,600-token first request on SmolLM2: about 3 minutes on 2 cores; run with -m heavy
def test_opencode_with_the_local_model_records_usage_and_a_trajectory(tmp_path):
    """`-a opencode -m local`: opencode's chat completions reach SmolLM2 through the gateway; its
    answers bounded to 32 tokens (the model is too weak to fix anything): the trial is recorded
    with the gateway's usage (tokens > 0, cost 0 for a local model), a trajectory whose agent
    steps carry those calls' metrics, and a provider key set on the host appears nowhere in the
    job folder."""
    proc = lancebench("run", "-p", str(TASK), "-a", "opencode", "-m", "local", "--ao", "max_output_tokens=32",
                      "--ao", "context_tokens=32768", "--agent-timeout", "900", "-o", str(tmp_path), "--job-name", "j",
                      env={"OPENAI_API_KEY": REAL_KEY})
    _assert_local_trial(proc, tmp_path, min_prompt_tokens=1000)


@pytest.mark.llm
@pytest.mark.heavy  # Codex's 5,000-token first request and an unbounded answer: about 9 minutes on 2 cores
def test_codex_with_the_local_model_records_usage_and_a_trajectory(tmp_path):
    """`-a codex -m local`: Codex's Responses call reaches llama.cpp's /v1/responses through the
    gateway; SmolLM2 answers with text (Codex sends no bound on the answer's length) and Codex
    stops: the trial is recorded with the gateway's usage (tokens > 0, cost 0 for a local model),
    a trajectory whose agent step carries that call's metrics, and no provider key in the job folder."""
    proc = lancebench("run", "-p", str(TASK), "-a", "codex", "-m", "local", "--agent-timeout", "1500",
                      "-o", str(tmp_path), "--job-name", "j", env={"OPENAI_API_KEY": REAL_KEY})
    _assert_local_trial(proc, tmp_path, min_prompt_tokens=1000)



@pytest.mark.llm
@pytest.mark.heavy  # Aider's 2,600-token first request on SmolLM2: about 3 minutes on 2 cores; run with -m heavy
def test_aider_with_the_local_model_records_usage_and_a_trajectory(tmp_path):
    """`-a aider -m local --ao max_output_tokens=64`: Aider's chat completion reaches SmolLM2
    through the gateway, its answer bounded (without the bound SmolLM2 answered until the trial's
    900 s were up, and the cut-off call was never recorded): the trial is recorded with the
    gateway's usage, a trajectory whose agent step carries that call's metrics, and no provider key
    in the job folder."""
    proc = lancebench("run", "-p", str(TASK), "-a", "aider", "-m", "local", "--ao", "max_output_tokens=64",
                      "--agent-timeout", "900", "-o", str(tmp_path), "--job-name", "j",
                      env={"OPENAI_API_KEY": REAL_KEY})
    _assert_local_trial(proc, tmp_path, min_prompt_tokens=1000)

def test_an_agent_that_cannot_be_installed_is_invalid_and_the_job_goes_on(scripted, tmp_path):
    # calc's environment built first, with the package index that works: its set-up installs
    # pytest with pip, which the broken index below would fail first on a machine where no earlier
    # test built it (the reason then the environment's, not the agent's install: CI, a new machine)
    warm = lancebench("run", "-p", str(CALC), "-a", "nop", "-o", str(tmp_path / "warm"), "--job-name", "w")
    assert warm.returncode == 0, warm.stdout + warm.stderr
    srv = scripted([Reply("ok", prompt_tokens=5, completion_tokens=1)])  # the preflight only
    proc = lancebench("run", "-p", str(CALC), "-a", "aider", "-m", "openai/gpt-4o-mini", "--api-base", srv.api_base,
                      "--ao", "version=0.86.1", "-k", "2", "-o", str(tmp_path), "--job-name", "j",
                      env={"PIP_INDEX_URL": "http://127.0.0.1:9/simple",
                           "PIP_RETRIES": "0", "PIP_FIND_LINKS": "", "PIP_NO_INDEX": ""})
    results = [json.loads(p.read_text()) for p in (tmp_path / "j" / "trials").glob("*/result.json")]
    assert len(results) == 2, proc.stdout + proc.stderr
    for r in results:
        assert r["status"] == "invalid" and "could not install aider-chat==0.86.1" in r["reason"], r


def _post(url: str, body: dict, headers: dict) -> int:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_the_gateway_accepts_a_trial_key_only_while_the_trial_lives(scripted):
    """OpenAI chat and Anthropic messages, both sent to the one model's chat completions; the
    usage of each call recorded under the trial's key; a made-up or revoked key refused (401)."""
    srv = scripted([Reply("hi", prompt_tokens=7, completion_tokens=3),
                    Reply("yo", prompt_tokens=11, completion_tokens=2)])
    gw = Gateway(resolve_model("openai/gpt-4o-mini", srv.api_base)).start()
    try:
        key = gw.issue_key("t")
        chat = {"model": "any", "messages": [{"role": "user", "content": "x"}]}
        messages = {"model": "claude-any", "max_tokens": 16, "messages": [{"role": "user", "content": "x"}]}
        assert _post(f"{gw.base_url}/v1/chat/completions", chat, {"Authorization": "Bearer sk-lancebench-x"}) == 401
        assert _post(f"{gw.base_url}/v1/chat/completions", chat, {"Authorization": f"Bearer {key}"}) == 200
        anthropic = {"x-api-key": key, "anthropic-version": "2023-06-01"}
        assert _post(f"{gw.base_url}/v1/messages", messages, anthropic) == 200
        gw.revoke(key)
        assert _post(f"{gw.base_url}/v1/chat/completions", chat, {"Authorization": f"Bearer {key}"}) == 401
        assert len(srv.requests) == 2
        usage, calls = gw.usage(key)
        assert (usage.input_tokens, usage.output_tokens, usage.calls) == (18, 5, 2)
        assert [c["call_type"] for c in calls] == ["acompletion", "anthropic_messages"]
    finally:
        gw.stop()


def test_parse_llm_history_pairs_what_is_new_in_each_request_with_its_answer():
    text = ("TO LLM 2026-01-01T00:00:00\n-------\nSYSTEM be brief\n-------\nUSER example\n-------\n"
            "ASSISTANT example answer\n-------\nUSER fix it\nUSER please\n-------\nUSER remember the rules\n"
            "LLM RESPONSE 2026-01-01T00:00:01\nASSISTANT which file?\n"
            "TO LLM 2026-01-01T00:00:02\n-------\nSYSTEM be brief\n-------\nUSER fix it\n-------\n"
            "ASSISTANT which file?\n-------\nUSER I added a.py\n-------\nUSER remember the rules\n"
            "LLM RESPONSE 2026-01-01T00:00:03\nASSISTANT done\nASSISTANT \n")
    assert parse_llm_history(text) == [("fix it\nplease\n\nremember the rules", "which file?"),
                                       ("I added a.py", "done\n")]


def _jsonl(*items: dict) -> str:
    return "\n".join(json.dumps(i) for i in items) + "\nnot json\n"


def test_claude_code_stream_json_becomes_one_step_per_model_answer(tmp_path):
    """Claude Code prints an answer's content blocks as events of their own (same message id):
    they form one step, the n-th answer gets the n-th gateway call's metrics."""
    from lancebench.agents.installed.base import Run
    from lancebench.agents.installed.claude_code import STREAM, ClaudeCodeAgent

    (tmp_path / STREAM).write_text(_jsonl(
        {"type": "system", "subtype": "init"},
        {"type": "assistant", "message": {"id": "m1", "content": [{"type": "text", "text": "Let me look."}]}},
        {"type": "assistant", "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]}},
        {"type": "assistant", "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "t2", "name": "Read", "input": {"file_path": "a.py"}}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.py"},
                                                 {"type": "tool_result", "tool_use_id": "t2", "is_error": True,
                                                  "content": [{"type": "text", "text": "no such file"}]}]}},
        {"type": "assistant", "message": {"id": "m2", "content": [{"type": "text", "text": "Done."}]}},
        {"type": "result", "subtype": "success", "is_error": False, "num_turns": 2, "total_cost_usd": 99}))
    calls = [{"prompt_tokens": 10, "completion_tokens": 2, "cost_usd": 0.5},
             {"prompt_tokens": 20, "completion_tokens": 3, "cost_usd": None}]
    ctx = type("Ctx", (), {"instruction": "fix it"})()
    run = Run("", "", "", "", tmp_path, 1.0)
    traj = ClaudeCodeAgent(model="openai/x").trajectory(ctx, run, calls)  # type: ignore[arg-type]
    assert [(s.source, s.message) for s in traj.steps] == [("user", "fix it"), ("agent", "Let me look."),
                                                           ("agent", "Done.")]
    assert [(c.function_name, c.arguments) for c in traj.steps[1].tool_calls or []] == [
        ("bash", {"command": "ls"}), ("Read", {"file_path": "a.py"})]
    results = traj.steps[1].observation.results
    assert [(r.source_call_id, r.content, r.extra) for r in results] == [
        ("t1", "a.py", {"is_error": False}), ("t2", "no such file", {"is_error": True})]
    assert [s.metrics.prompt_tokens for s in traj.steps[1:]] == [10, 20]
    assert traj.final_metrics.total_cost_usd is None  # one call unpriced: the total is unknown, never 99
    assert traj.extra["claude_code_result"]["num_turns"] == 2


def test_codex_rollout_becomes_one_step_per_model_answer(tmp_path):
    """A model answer's response items (reasoning, message, calls) form one step, closed by the
    token_usage_record Codex writes after it; user and developer messages are not agent steps."""
    from lancebench.agents.installed.base import Run
    from lancebench.agents.installed.codex import HOME, CodexAgent

    folder = tmp_path / HOME / "sessions" / "2026" / "12" / "02"
    folder.mkdir(parents=True)
    item = lambda **p: {"type": "response_item", "payload": p}  # noqa: E731
    (folder / "rollout-1.jsonl").write_text(_jsonl(
        {"type": "session_meta", "payload": {}},
        item(type="message", role="developer", content=[{"type": "input_text", "text": "rules"}]),
        item(type="message", role="user", content=[{"type": "input_text", "text": "fix it"}]),
        item(type="reasoning", summary=[{"type": "summary_text", "text": "think"}]),
        item(type="function_call", name="exec_command", arguments='{"cmd": "ls"}', call_id="c1"),
        item(type="function_call", name="apply_patch", arguments="not json", call_id="c2"),
        {"type": "token_usage_record", "payload": {}},
        item(type="function_call_output", call_id="c1", output="a.py"),
        {"type": "event_msg", "payload": {"type": "token_count"}},
        item(type="message", role="assistant", content=[{"type": "output_text", "text": "Done."}]),
        {"type": "token_usage_record", "payload": {}}))
    calls = [{"prompt_tokens": 10, "completion_tokens": 2, "cost_usd": 0.1},
             {"prompt_tokens": 20, "completion_tokens": 3, "cost_usd": 0.2}]
    ctx = type("Ctx", (), {"instruction": "fix it"})()
    traj = CodexAgent(model="openai/x").trajectory(ctx, Run("", "", "", "", tmp_path, 1.0), calls)  # type: ignore[arg-type]
    assert [(s.source, s.message) for s in traj.steps] == [("user", "fix it"), ("agent", ""), ("agent", "Done.")]
    assert traj.steps[1].reasoning_content == "think"
    assert [(c.function_name, c.arguments) for c in traj.steps[1].tool_calls or []] == [
        ("bash", {"command": "ls"}), ("apply_patch", {"input": "not json"})]
    assert [r.content for r in traj.steps[1].observation.results] == ["a.py"]
    assert [s.metrics.prompt_tokens for s in traj.steps[1:]] == [10, 20]
    assert traj.final_metrics.total_cost_usd == pytest.approx(0.3)


def test_opencode_events_become_one_step_per_model_answer(tmp_path):
    """step_start … step_finish is one model answer (text, reasoning, tool calls with their output
    or error); the n-th answer gets the n-th gateway call's metrics; error events are kept."""
    from lancebench.agents.installed.base import Run
    from lancebench.agents.installed.opencode import EVENTS, OpencodeAgent

    tool = lambda cid, name, status, **state: {"type": "tool_use", "part": {  # noqa: E731
        "type": "tool", "tool": name, "callID": cid, "state": {"status": status, **state}}}
    (tmp_path / EVENTS).write_text(_jsonl(
        {"type": "step_start", "part": {"type": "step-start"}},
        {"type": "reasoning", "part": {"type": "reasoning", "text": "think"}},
        {"type": "text", "part": {"type": "text", "text": "Let me look."}},
        tool("c1", "bash", "completed", input={"command": "ls", "description": "list"}, output="a.py\n"),
        tool("c2", "read", "error", input={"filePath": "/w/b.py"}, error="File not found"),
        {"type": "step_finish", "part": {"type": "step-finish", "tokens": {"input": 999}, "cost": 7}},
        {"type": "step_start", "part": {"type": "step-start"}},
        {"type": "text", "part": {"type": "text", "text": "Done."}},
        {"type": "step_finish", "part": {"type": "step-finish"}},
        {"type": "error", "error": {"name": "APIError", "data": {"message": "rate limited"}}}))
    calls = [{"prompt_tokens": 10, "completion_tokens": 2, "cost_usd": 0.1},
             {"prompt_tokens": 20, "completion_tokens": 3, "cost_usd": 0.2}]
    ctx = type("Ctx", (), {"instruction": "fix it"})()
    traj = OpencodeAgent(model="openai/x").trajectory(ctx, Run("", "", "", "", tmp_path, 1.0), calls)  # type: ignore[arg-type]
    assert [(s.source, s.message) for s in traj.steps] == [("user", "fix it"), ("agent", "Let me look."),
                                                           ("agent", "Done.")]
    assert traj.steps[1].reasoning_content == "think"
    assert [(c.function_name, c.arguments) for c in traj.steps[1].tool_calls or []] == [
        ("bash", {"command": "ls"}), ("read", {"filePath": "/w/b.py"})]
    assert [(r.source_call_id, r.content, r.extra) for r in traj.steps[1].observation.results] == [
        ("c1", "a.py\n", {"is_error": False}), ("c2", "File not found", {"is_error": True})]
    assert [s.metrics.prompt_tokens for s in traj.steps[1:]] == [10, 20]  # the gateway's, never opencode's 999
    assert traj.final_metrics.total_cost_usd == pytest.approx(0.3)
    assert traj.extra["opencode_errors"] == ["rate limited"]


def test_opencode_config_points_its_one_provider_at_the_gateway_with_the_key_from_the_environment():
    from lancebench.agents.installed.base import Run
    from lancebench.agents.installed.opencode import OpencodeAgent, native_package

    agent = OpencodeAgent(model="openai/gpt-4o-mini", version="1.18.30", max_output_tokens="64")
    native = native_package("1.18.30")
    assert (agent.package.version, agent.package.with_packages) == (
        "1.18.30", ("@opencode-ai/plugin@1.18.30", *([native] if native else [])))
    config = agent.config(Run("http://127.0.0.1:4321", "sk-lancebench-k", "", "", Path("."), 1500.0))
    provider = config["provider"]["lancebench"]
    assert provider["options"] == {"baseURL": "http://127.0.0.1:4321/v1", "apiKey": "{env:LANCEBENCH_GATEWAY_KEY}",
                                   "headerTimeout": 1500_000, "chunkTimeout": 1500_000}  # the trial's time, in ms
    assert provider["models"] == {"gpt-4o-mini": {"name": "gpt-4o-mini", "limit": {"context": 128000, "output": 64}}}
    assert config["model"] == config["small_model"] == "lancebench/gpt-4o-mini"
    assert "sk-lancebench-k" not in json.dumps(config)


def test_opencode_installs_only_the_native_package_its_install_script_would_choose():
    """npm would fetch every per-platform package that fits the machine (``opencode-linux-x64``
    and ``-baseline`` on x86-64: 177 MB each); the install names the one opencode's install script
    takes (AVX2 or not, glibc or musl) and leaves the optional ones out."""
    from lancebench.agents.installed.install import _commands
    from lancebench.agents.installed.opencode import OpencodeAgent, native_package

    avx2 = "processor\t: 0\nflags\t\t: fpu sse4_2 avx avx2 bmi2\n"
    assert native_package("1.2.3", "x86_64", avx2, "glibc") == "opencode-linux-x64@1.2.3"
    assert native_package("1.2.3", "x86_64", avx2.replace(" avx2", ""), "glibc") == "opencode-linux-x64-baseline@1.2.3"
    assert native_package("1.2.3", "x86_64", avx2.replace(" avx2", " avx2x"), "glibc").endswith("-baseline@1.2.3")
    assert native_package("1.2.3", "x86_64", avx2, "musl") == "opencode-linux-x64-musl@1.2.3"
    assert native_package("1.2.3", "aarch64", "", "glibc") == "opencode-linux-arm64@1.2.3"
    assert native_package("1.2.3", "riscv64", "", "glibc") is None
    flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags")).split()
    expected = "opencode-linux-x64" + ("" if "avx2" in flags else "-baseline") + "@1.18.33"
    assert native_package("1.18.33", "x86_64") == expected  # this machine's CPU
    (argv,) = _commands(OpencodeAgent.package, Path("/d"))
    assert argv[:2] == ["npm", "install"] and "--omit=optional" in argv
    assert argv[-3:] == ["@opencode-ai/plugin@1.18.33", expected, "opencode-ai@1.18.33"]

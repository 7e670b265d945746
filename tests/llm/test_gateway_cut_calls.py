"""Calls cut by the end of a trial's agent phase, through the model gateway (LiteLLM's proxy on
127.0.0.1, in front of the scripted server): a call still in flight when the trial's key is ended
(its deadline, a cancellation, the agent's exit or the client going away) is counted, marked
``cut`` with its reason, its prompt tokens as LiteLLM's token counter counts them, the answer's
tokens streamed so far, its cost from LiteLLM's price table; another trial's key sees none of it.

One gateway serves the worker's tests (``served`` in conftest.py); each test gives the scripted server
its own script.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import litellm
import pytest
from scripted_server import Fail, Reply

from lancebench.agents.base import AgentContext
from lancebench.agents.installed.base import GATEWAY_INSIDE, InstalledAgent, Run, quoted
from lancebench.agents.trajectory import Trajectory, TrajectoryBuilder, read_trajectory
from lancebench.llm.gateway import Gateway
from lancebench.llm.meter import metering, read_usage
from lancebench.results.paths import TrialPaths
from lancebench.runner import spend
from lancebench.runner.agent_phase import run_agent
from lancebench.sandbox.base import Limits, Mount, SandboxSpec
from lancebench.sandbox.local import LocalSandbox

MODEL = "openai/gpt-4o-mini"  # priced in LiteLLM's table


def _price(prompt: int, completion: int) -> float:
    p, c = litellm.cost_per_token(model=MODEL, prompt_tokens=prompt, completion_tokens=completion)
    return p + c


class _Client:
    """One chat request to the gateway in a thread, on a connection the test can drop."""

    def __init__(self, gw: Gateway, key: str, body: dict, headers: dict | None = None):
        url = urllib.parse.urlparse(gw.base_url)
        self.conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        self.first_line = threading.Event()
        self.status: int | None = None
        self.body, self.headers = body, {"Authorization": f"Bearer {key}", "Content-Type": "application/json",
                                         **(headers or {})}
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.conn.request("POST", "/v1/chat/completions", json.dumps(self.body), self.headers)
            r = self.conn.getresponse()
            self.status = r.status
            while line := r.fp.readline():
                if line.startswith(b"data:"):
                    self.first_line.set()
        except OSError:
            pass

    def drop(self) -> None:
        if self.conn.sock is not None:
            self.conn.sock.shutdown(2)
        self.conn.close()


def _wait(cond, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "timed out waiting"
        time.sleep(0.05)


def _messages(text: str) -> list[dict]:
    return [{"role": "system", "content": "You are terse."}, {"role": "user", "content": text}]


def test_a_call_in_flight_when_the_trial_ends_is_counted_as_cut_and_priced(served):
    """A non-streamed call whose answer has not come when the trial's key is ended (the agent's
    deadline): one call, its prompt tokens LiteLLM's count of the request, no answer tokens, its
    cost LiteLLM's price of them; a second trial's key, whose call is also in flight, is left
    alone; the cut call's late answer is not counted again."""
    srv, gw = served
    srv.rescript([Reply("late answer", prompt_tokens=999, completion_tokens=99, delay_sec=4),
                  Reply("other", prompt_tokens=7, completion_tokens=3, delay_sec=4)])
    key, other = gw.issue_key("cut"), gw.issue_key("other")
    messages = _messages("Write the longest poem you can about bubblewrap sandboxes. " * 40)
    client = _Client(gw, key, {"model": "any", "messages": messages})
    _wait(lambda: len(srv.requests) == 1)  # the request reached the model
    bystander = _Client(gw, other, {"model": "any", "messages": _messages("hi")})
    _wait(lambda: len(srv.requests) == 2)
    usage, calls = gw.end(key, "the agent's deadline")
    expected = litellm.token_counter(model=MODEL, messages=messages)
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (1, expected, 0)
    assert usage.cost_usd == pytest.approx(_price(expected, 0))
    assert calls[0]["cut"] == "the agent's deadline" and calls[0]["estimate"] is True
    client.thread.join(20)
    bystander.thread.join(20)
    assert gw.end(key, "again") == (usage, calls)  # the late answer (999 tokens) is not counted again
    other_usage, other_calls = gw.end(other, "the agent ended")
    assert (other_usage.calls, other_usage.input_tokens, other_usage.output_tokens) == (1, 7, 3)
    assert "cut" not in other_calls[0]


def test_a_streamed_answer_cut_midway_counts_the_tokens_already_streamed(served):
    """A streamed answer that stops after its first chunk; the client goes away (the agent was
    killed) and the key is ended: the prompt's tokens and the streamed text's tokens are counted,
    both as LiteLLM counts them, and priced."""
    srv, gw = served
    content = "Sandboxes are boxes of sand in which agents play and sometimes break things. " * 5
    srv.rescript([Reply(content, prompt_tokens=999, completion_tokens=999, stall_sec=6)])
    key = gw.issue_key("stream")
    messages = _messages("Tell me about sandboxes.")
    client = _Client(gw, key, {"model": "any", "messages": messages, "stream": True})
    _wait(client.first_line.is_set)
    client.drop()
    time.sleep(1.0)
    usage, calls = gw.end(key, "the agent's run was cancelled")
    prompt = litellm.token_counter(model=MODEL, messages=messages)
    completion = litellm.token_counter(model=MODEL, text=content)
    assert calls and all(c.get("cut") for c in calls), calls
    assert usage.calls == 1 and usage.input_tokens == pytest.approx(prompt, abs=3), calls
    assert usage.output_tokens == pytest.approx(completion, abs=3), calls
    assert usage.cost_usd == pytest.approx(_price(usage.input_tokens, usage.output_tokens))



CLIENT = """
import json, os, sys, urllib.request
body = {"model": "any", "messages": json.loads(os.environ["MESSAGES"])}
req = urllib.request.Request(os.environ["BASE"] + "/v1/chat/completions", json.dumps(body).encode(),
                             {"Content-Type": "application/json", "Authorization": "Bearer " + os.environ["KEY"]})
print(urllib.request.urlopen(req, timeout=600).read()[:200])
"""


class OneCallAgent(InstalledAgent):
    """An installed agent whose "package" is the sandbox's python3: one chat request to the
    gateway (through the relay, as every installed agent), waiting for its answer."""

    name = "one-call"

    def __init__(self, gateway: Gateway, messages: list[dict]):
        super().__init__(model=MODEL)
        self._gateway, self.messages = gateway, messages

    def command(self, ctx, run: Run) -> tuple[str, dict[str, str]]:
        return quoted("python3", "-c", CLIENT), {"BASE": run.base_url, "KEY": run.key,
                                                 "MESSAGES": json.dumps(self.messages)}

    def trajectory(self, ctx, run: Run, calls: list[dict]) -> Trajectory:
        return TrajectoryBuilder(self.name, "0", MODEL).finish()


async def _in_sandbox(root: Path, gw: Gateway, agent_timeout: float, body):
    """``body(ctx)`` with an AgentContext whose sandbox binds the gateway's socket."""
    (root / "ws").mkdir()
    (root / "agent").mkdir()
    sb = LocalSandbox(SandboxSpec(workdir="/app", workspace=root / "ws",
                                  mounts=(Mount(gw.socket_dir, GATEWAY_INSIDE),)))
    await sb.start()
    ctx = AgentContext(task_name="cut", instruction="wait", sandbox=sb, workdir="/app", timeout_sec=agent_timeout,
                       deadline=time.monotonic() + agent_timeout, limits=Limits(), logs_dir=root / "agent",
                       model=MODEL)
    try:
        return await body(ctx)
    finally:
        await sb.stop()


def test_an_agent_whose_deadline_cuts_its_call_records_it_in_the_trials_usage(served, sandbox_dir):
    """The agent phase under its deadline (`run_agent`, the trial's meter active): the call the
    deadline cut is in the usage the trial records, priced, marked cut in the result's extra and in
    the trajectory (before: usage 0, no call)."""
    srv, gw = served
    srv.rescript([Reply("too late", prompt_tokens=999, completion_tokens=99, delay_sec=30)])
    messages = _messages("Explain the halting problem at length. " * 30)
    agent = OneCallAgent(gw, messages)
    meter = spend.start(TrialPaths(sandbox_dir / "trial"))
    outcome = asyncio.run(_in_sandbox(sandbox_dir, gw, 20.0, lambda ctx: run_agent(agent, ctx, 20.0)))
    usage, extra = spend.settle(outcome.usage, meter)
    prompt = litellm.token_counter(model=MODEL, messages=messages)
    assert outcome.exit == "timeout" and len(srv.requests) == 1, (sandbox_dir / "agent" / "one-call.log").read_text()
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (1, prompt, 0)
    assert usage.cost_usd == pytest.approx(_price(prompt, 0))
    assert extra["cut_calls"] == 1 and extra["cut_call_records"][0]["cut"] == "the agent's deadline"
    traj = read_trajectory(sandbox_dir / "agent" / "trajectory.json")
    (step,) = traj.steps
    assert step.metrics.extra == {"cut": "the agent's deadline", "estimate": True}
    assert traj.usage() == usage and traj.extra == {"cut_calls": 1}


def test_a_cancelled_agent_run_still_records_its_cut_call_in_the_trials_meter(served, sandbox_dir):
    """The agent's run cancelled (the harness's stop, or its deadline's grace over) while its call
    is in flight: the trial's meter (usage.json, the job's budgets) has the call, priced."""
    srv, gw = served
    srv.rescript([Reply("too late", prompt_tokens=999, completion_tokens=99, delay_sec=30)])
    messages = _messages("Count to a million. " * 20)
    agent = OneCallAgent(gw, messages)
    meter = spend.start(TrialPaths(sandbox_dir / "trial"))

    async def cancelled(ctx):
        with metering(meter):
            task = asyncio.ensure_future(agent.run(ctx))
            await asyncio.to_thread(_wait, lambda: len(srv.requests) == 1)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(_in_sandbox(sandbox_dir, gw, 120.0, cancelled))
    prompt = litellm.token_counter(model=MODEL, messages=messages)
    assert (meter.usage.calls, meter.usage.input_tokens) == (1, prompt)
    assert meter.usage.cost_usd == pytest.approx(_price(prompt, 0))
    assert [c["cut"] for c in meter.cut] == ["the agent's run was cancelled"]
    assert read_usage(sandbox_dir / "trial" / "usage.json") == meter.usage


def _post(gw: Gateway, path: str, body: dict, headers: dict) -> int:
    req = urllib.request.Request(gw.base_url + path, json.dumps(body).encode(),
                                 {"Content-Type": "application/json", **headers})
    with urllib.request.urlopen(req, timeout=60) as r:
        r.read()
        return r.status


def test_answered_calls_of_every_kind_are_not_counted_again_as_cut(served):
    """Chat completions (plain and streamed), Anthropic messages and the Responses API, each
    answered: ending the key counts each call once, with the provider's usage, none cut."""
    srv, gw = served
    replies = [Reply("a", prompt_tokens=11, completion_tokens=2), Reply("b", prompt_tokens=13, completion_tokens=3),
               Reply("c", prompt_tokens=17, completion_tokens=5), Reply("d", prompt_tokens=19, completion_tokens=7)]
    srv.rescript(replies)
    key = gw.issue_key("answered")
    bearer = {"Authorization": f"Bearer {key}"}
    chat = {"model": "any", "messages": _messages("x")}
    assert _post(gw, "/v1/chat/completions", chat, bearer) == 200
    assert _post(gw, "/v1/chat/completions", chat | {"stream": True}, bearer) == 200
    assert _post(gw, "/v1/messages", {"model": "claude-any", "max_tokens": 16, "messages": [
        {"role": "user", "content": "x"}]}, {"x-api-key": key, "anthropic-version": "2023-06-01"}) == 200
    assert _post(gw, "/v1/responses", {"model": "any", "input": "x"}, bearer) == 200
    time.sleep(1.0)  # the success callbacks run after the answers
    usage, calls = gw.end(key, "the agent ended without the answer")
    assert [c.get("cut") for c in calls] == [None] * 4, calls
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (4, 60, 17)


def test_a_call_the_provider_refused_is_not_counted_as_cut(served):
    """A request the model refuses (HTTP 400) is not in flight when the key ends: no call counted
    (it would be, with its prompt tokens, if its record stayed), and a later request is refused."""
    srv, gw = served
    srv.rescript([Fail(400, "bad request")])
    key = gw.issue_key("refused")
    with pytest.raises(urllib.error.HTTPError):
        _post(gw, "/v1/chat/completions", {"model": "any", "messages": _messages("x")},
              {"Authorization": f"Bearer {key}"})
    time.sleep(1.0)  # the failure callbacks run after the answer
    usage, calls = gw.end(key, "the agent ended without the answer")
    assert (usage.calls, usage.input_tokens, calls) == (0, 0, [])
    with pytest.raises(urllib.error.HTTPError) as refused:
        _post(gw, "/v1/chat/completions", {"model": "any", "messages": _messages("x")},
              {"Authorization": f"Bearer {key}"})
    assert refused.value.code == 401


def test_a_request_cannot_turn_off_its_own_usage_record(served):
    """Attack pass round 11 (docs/security.md): LiteLLM skips every logging callback of a request
    whose body says ``"no-log": true``, the usage log included, so an answered call was left in
    flight and counted at the key's end as *cut*: the gateway's estimate of the prompt (58 tokens
    here), none of the 5,000 answer tokens the provider reported, $0.0000087 instead of $0.00315.
    Now the proxy ignores the parameter (``global_disable_no_log_param``): the provider's usage,
    not cut, for chat, streamed chat and the Responses API."""
    srv, gw = served
    srv.rescript([Reply("a", prompt_tokens=1000, completion_tokens=5000)] * 3)
    key = gw.issue_key("no-log")
    bearer = {"Authorization": f"Bearer {key}"}
    chat = {"model": "any", "messages": _messages("hello " * 50), "no-log": True}
    assert _post(gw, "/v1/chat/completions", chat, bearer) == 200
    assert _post(gw, "/v1/chat/completions", chat | {"stream": True}, bearer) == 200
    assert _post(gw, "/v1/responses", {"model": "any", "input": "x", "no-log": True}, bearer) == 200
    time.sleep(1.0)  # the success callbacks run after the answers
    usage, calls = gw.end(key, "the agent ended")
    assert [c.get("cut") for c in calls] == [None] * 3, calls
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (3, 3000, 15000)
    assert usage.cost_usd == pytest.approx(3 * _price(1000, 5000))


def _get(gw: Gateway, path: str, key: str) -> int:
    req = urllib.request.Request(gw.base_url + path, headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_a_trial_key_reaches_only_the_model_routes(served):
    """Attack pass round 11: a trial key was accepted on every route of LiteLLM's proxy. ``GET
    /health`` made a model call (a 16-token completion to the job's model) that no trial's usage
    records (the trial's usage stayed 0 calls), so an agent could spend the job's provider quota
    unmetered and crowd other trials' calls; ``/model/info`` showed the model's settings. Now only
    the model routes answer a trial key (403 elsewhere) and nothing reaches the model."""
    srv, gw = served
    srv.rescript([Reply("a", prompt_tokens=5, completion_tokens=2)] * 3)
    key = gw.issue_key("routes")
    codes = {path: _get(gw, path, key) for path in ("/health", "/model/info", "/v1/model/info", "/routes")}
    assert codes == dict.fromkeys(codes, 403), codes
    assert srv.requests == []
    assert _get(gw, "/v1/models", key) == 200  # the model list stays (agents ask for it)
    assert _post(gw, "/v1/chat/completions", {"model": "any", "messages": _messages("x")},
                 {"Authorization": f"Bearer {key}"}) == 200
    time.sleep(1.0)
    usage, _ = gw.end(key, "the agent ended")
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (1, 5, 2)


def _chat(gw: Gateway, key: str) -> tuple[int, str]:
    """One chat call with ``key``: (status, body)."""
    req = urllib.request.Request(gw.base_url + "/v1/chat/completions",
                                 json.dumps({"model": "any", "messages": _messages("hi")}).encode(),
                                 {"Content-Type": "application/json", "Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_the_trials_step_and_cost_limits_hold_at_the_gateway_whatever_the_agent_does(served):
    """``max_steps`` and ``max_cost`` of a trial key (agents such as Claude Code never read the
    job's limits): the call past either is refused (400) before it reaches the model, with the
    reason, which :meth:`Gateway.limit_reached` reports; the calls before it are answered and counted."""
    srv, gw = served
    srv.rescript([Reply("a", prompt_tokens=1000, completion_tokens=500) for _ in range(4)])
    steps = gw.issue_key("steps", max_calls=2)
    assert [_chat(gw, steps)[0] for _ in range(2)] == [200, 200] and gw.limit_reached(steps) is None
    status, body = _chat(gw, steps)
    assert status == 400 and "the trial's limit is reached: max_steps 2 reached (2 model calls)" in body, body
    assert len(srv.requests) == 2 and gw.limit_reached(steps) == "max_steps 2 reached (2 model calls)"
    assert gw.end(steps, "done")[0].calls == 2

    one = _price(1000, 500)
    cost = gw.issue_key("cost", max_cost_usd=1.5 * one)
    assert [_chat(gw, cost)[0] for _ in range(3)] == [200, 200, 400]  # 2 x one spent >= 1.5 x one
    assert gw.limit_reached(cost) == f"max_cost {1.5 * one:g} USD reached ({2 * one:.6f} USD spent)"
    assert len(srv.requests) == 4
    usage, _ = gw.end(cost, "done")
    assert usage.calls == 2 and usage.cost_usd == pytest.approx(2 * one)


TWO_CALLS = CLIENT.replace("print(urllib", "for _ in range(2):\n    print(urllib")


class TwoCallAgent(OneCallAgent):
    """Two chat requests, one after the other; ends with an error when one is refused."""

    def command(self, ctx, run: Run) -> tuple[str, dict[str, str]]:
        return quoted("python3", "-c", TWO_CALLS), super().command(ctx, run)[1]


def test_an_installed_agent_past_its_step_limit_ends_with_the_limit(served, sandbox_dir):
    """``--max-steps 1`` on an installed agent that makes two calls: its second call is refused at
    the gateway, and the agent's exit is ``limit`` with the gateway's reason (before: the limit was
    recorded in the job's configuration and ignored, and both calls reached the model)."""
    srv, gw = served
    srv.rescript([Reply("a"), Reply("b")])
    agent = TwoCallAgent(gw, _messages("hi"))
    agent.options["max_steps"] = 1
    outcome = asyncio.run(_in_sandbox(sandbox_dir, gw, 60.0, lambda ctx: run_agent(agent, ctx, 60.0)))
    assert len(srv.requests) == 1, (sandbox_dir / "agent" / "one-call.log").read_text()
    assert (outcome.exit, outcome.message) == ("limit", "limit reached (max_steps 1 reached (1 model calls); "
                                                        "one-call exit code 1)")
    assert outcome.usage.calls == 1

"""A trial key's bounds at the model gateway (LiteLLM's proxy on 127.0.0.1, in front of the
scripted server; ``llm/gateway_limits.py``): a request over the key's size bound is refused 413
before LiteLLM reads it, one under it goes to the model, the key's requests in flight are bounded
(the rest wait, and past the waiting room get 429), and each refusal is counted for the key's
trial. Attack pass round 11's finding (twenty 4 MB requests from one key at once cost the gateway
35.2 s of CPU, each still sent to the model) is the last test.

One gateway serves the worker's tests (``served`` in conftest.py); each test gives the scripted server
its own script. CPU per refused MB is measured in ``benchmarks/gateway_limits.py``, not here.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
import time
import urllib.parse

import pytest
from scripted_server import Reply
from test_gateway_cut_calls import OneCallAgent, _in_sandbox

from lancebench.agents.installed.base import InstalledAgent, gateway_bounds
from lancebench.agents.trajectory import read_trajectory
from lancebench.errors import ConfigError
from lancebench.llm.gateway import BYTES_PER_TOKEN, IMAGE_ROOM_BYTES, Gateway
from lancebench.llm.gateway_limits import WAITING_PER_PLACE
from lancebench.llm.meter import UsageMeter
from lancebench.results.paths import TrialPaths
from lancebench.runner import spend
from lancebench.runner.agent_phase import run_agent

MODEL = "openai/gpt-4o-mini"  # 128,000 input tokens in LiteLLM's table
MB = 1024 * 1024


def _chat(text: str) -> bytes:
    return json.dumps({"model": "any", "messages": [{"role": "user", "content": text}]}).encode()


def _send(gw: Gateway, key: str, body: bytes, chunked: bool = False) -> tuple[int, dict, dict]:
    """POST ``body`` to the gateway's chat completions: (status, JSON answer, headers)."""
    url = urllib.parse.urlparse(gw.base_url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    try:
        if chunked:
            conn.request("POST", "/v1/chat/completions", iter([body[i:i + MB] for i in range(0, len(body), MB)]),
                         headers, encode_chunked=True)
        else:
            conn.request("POST", "/v1/chat/completions", body, headers)
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"{}"), {k.lower(): v for k, v in r.getheaders()}
    finally:
        conn.close()


def test_the_default_size_bound_is_twice_the_models_window_plus_room_for_images(served):
    _, gw = served
    assert gw.window_tokens() == 128_000
    assert gw.default_max_request_bytes() == 2 * 128_000 * BYTES_PER_TOKEN + IMAGE_ROOM_BYTES
    assert gateway_bounds("aider", {"gateway_max_request_mb": "1.5", "gateway_max_in_flight": "3"}) == {
        "max_request_bytes": int(1.5 * MB), "max_in_flight": 3}
    assert gateway_bounds("aider", {"gateway_max_in_flight": "0"}) == {"max_in_flight": 0}
    for bad in ({"gateway_max_request_mb": "lots"}, {"gateway_max_in_flight": "-1"}, {"gateway_max_in_flight": "2.5"}):
        with pytest.raises(ConfigError, match="gateway_max_"):
            gateway_bounds("aider", bad)


def test_a_request_over_the_size_bound_is_refused_before_the_model_and_counted(served):
    """Declared (Content-Length) or streamed in chunks, a body over the key's bound gets 413 with
    the bound and how to raise it; nothing reaches the model; the key's refusals are counted, and
    the trial's meter puts them in the result's extra."""
    srv, gw = served
    srv.rescript([])
    key = gw.issue_key("big", max_request_bytes=MB)
    body = _chat("x" * (2 * MB))
    status, answer, _ = _send(gw, key, body)
    assert status == 413, answer
    message = answer["error"]["message"]
    assert f"{len(body):,} bytes" in message and f"{MB:,} bytes" in message, message
    assert "--ao gateway_max_request_mb" in message
    assert _send(gw, key, body, chunked=True)[0] == 413
    assert srv.requests == []
    refused = gw.refused(key)
    assert refused["count"] == 2 and [r["status"] for r in refused["records"]] == [413, 413]
    assert [r["bytes"] for r in refused["records"]] == [len(body), MB + 1]  # the chunked one: read to the bound
    meter = UsageMeter()
    meter.add(gw.end(key, "the agent ended")[0], (), refused)
    _, extra = spend.settle(meter.usage, meter)
    assert extra["gateway_refused"] == 2 and extra["gateway_refused_records"][0]["limit"] == MB
    assert _send(gw, key, _chat("hi"))[0] == 401  # the trial ended


def test_an_honest_large_request_under_the_bound_reaches_the_model(served):
    """A 900 KB conversation (about 230,000 characters of code-like text, JSON-escaped), under a
    1 MiB bound, chunked or not: answered, with the provider's usage, nothing refused."""
    srv, gw = served
    srv.rescript([Reply("ok", prompt_tokens=120_000, completion_tokens=5)] * 2)
    key = gw.issue_key("honest", max_request_bytes=MB)
    text = 'def f(x):\n    return "value" + str(x)\n' * 22_000
    body = _chat(text)
    assert 800_000 < len(body) < MB
    assert _send(gw, key, body)[0] == 200
    assert _send(gw, key, body, chunked=True)[0] == 200
    assert [r["body"]["messages"][0]["content"] for r in srv.requests] == [text, text]
    time.sleep(1.0)  # the success callbacks run after the answers
    usage, _ = gw.end(key, "the agent ended")
    assert (usage.calls, usage.input_tokens) == (2, 240_000)
    assert gw.refused(key) == {"count": 0, "records": []}


def _at_once(gw: Gateway, key: str, n: int) -> list[int]:
    statuses: list[int] = []
    lock = threading.Lock()

    def one(i: int) -> None:
        status = _send(gw, key, _chat(f"request {i}"))[0]
        with lock:
            statuses.append(status)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
        time.sleep(0.05)
    for t in threads:
        t.join(120)
    return sorted(statuses)


def test_a_keys_requests_in_flight_are_bounded_and_the_rest_wait(served):
    """Bound 2, six requests at once, each answered after 1.2 s: the model sees them two at a time
    (no third starts before the first two are answered), all six are answered; another key's
    request is not held up behind them."""
    srv, gw = served
    srv.rescript([Reply("ok", prompt_tokens=3, completion_tokens=1, delay_sec=1.2)] * 6
             + [Reply("other", prompt_tokens=3, completion_tokens=1)])
    key, other = gw.issue_key("parallel", max_in_flight=2), gw.issue_key("other", max_in_flight=2)
    result: list[list[int]] = []
    t = threading.Thread(target=lambda: result.append(_at_once(gw, key, 6)))
    t.start()
    deadline = time.monotonic() + 30
    while len(srv.requests) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _send(gw, other, _chat("not held up"))[0] == 200
    t.join(120)
    assert result == [[200] * 6]
    times = sorted(tm for tm, r in zip(srv.times, srv.requests, strict=True)
                   if r["body"]["messages"][0]["content"].startswith("request"))
    assert len(times) == 6
    for i in range(2, 6):  # the (i)th started once the (i-2)th was answered
        assert times[i] - times[i - 2] >= 1.15, times
    assert gw.refused(key) == {"count": 0, "records": []}
    gw.end(key, "done"), gw.end(other, "done")


def test_requests_past_the_waiting_room_get_429_and_are_counted(served):
    """Bound 1: one in flight and WAITING_PER_PLACE (4) waiting; of seven at once, two get 429
    (with Retry-After), five are answered."""
    srv, gw = served
    srv.rescript([Reply("ok", prompt_tokens=3, completion_tokens=1, delay_sec=1.5)] * 7)
    key = gw.issue_key("flood", max_in_flight=1)
    statuses = _at_once(gw, key, 7)
    assert statuses == [200] * (1 + WAITING_PER_PLACE) + [429] * 2, statuses
    refused = gw.refused(key)
    assert refused["count"] == 2 and {r["status"] for r in refused["records"]} == {429}
    assert "--ao gateway_max_in_flight" in refused["records"][0]["message"]
    gw.end(key, "done")


def _cpu_sec(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime + stime, in clock ticks of 1/100 s


def test_round11_twenty_large_requests_at_once_are_refused_unparsed(served):
    """Attack pass round 11 (docs/security.md): twenty requests of 4 MB of text at once from one
    trial key (the model refusing each: over its window) cost the gateway 35.2 s of CPU in 22 s,
    against 0.26 s for the client, and each was sent to the model. With the default bound (twice
    gpt-4o-mini's 128,000-token window at 4 bytes a token, plus 8 MiB for images: 9.4 MB) a 4 MB
    request of text would still pass, so the attack now needs a request over 9.4 MB: twenty of
    12 MB are answered 413, their bodies never parsed (read and dropped), none reaches the model.
    The gateway's CPU for them is printed (a figure, not asserted: ``benchmarks/gateway_limits.py``)."""
    srv, gw = served
    srv.rescript([])
    key = gw.issue_key("round11")
    body = _chat("y" * (12 * 1000 * 1000))
    before = _cpu_sec(gw.proc.pid)  # type: ignore[union-attr]
    statuses: list[int] = []
    threads = [threading.Thread(target=lambda: statuses.append(_send(gw, key, body)[0])) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    spent = _cpu_sec(gw.proc.pid) - before  # type: ignore[union-attr]
    print(f"gateway CPU for twenty refused 12 MB requests: {spent:.2f} s")
    assert statuses == [413] * 20 and srv.requests == []
    assert gw.refused(key)["count"] == 20
    gw.end(key, "done")


class BoundedCallAgent(OneCallAgent):
    """:class:`OneCallAgent` (one chat request from the sandbox, through the relay) built with
    agent options, as ``--ao`` gives them."""

    def __init__(self, gateway: Gateway, messages: list[dict], **options: str):
        InstalledAgent.__init__(self, model=MODEL, **options)
        self._gateway, self.messages = gateway, messages


def test_an_installed_agents_refused_request_is_its_own_doing_and_in_its_result(served, sandbox_dir):
    """``--ao gateway_max_request_mb=0.05`` and a 100 KB request from the sandbox: refused 413,
    nothing reaches the model; the agent's run ends in its own error (its client raised), not the
    harness's: ``run_agent`` returns an outcome (no TrialInvalid), and the trial's result extra and
    trajectory count the refusal with the bound."""
    srv, gw = served
    srv.rescript([])
    agent = BoundedCallAgent(gw, [{"role": "user", "content": "z" * 100_000}], gateway_max_request_mb="0.05")
    meter = spend.start(TrialPaths(sandbox_dir / "trial"))
    outcome = asyncio.run(_in_sandbox(sandbox_dir, gw, 60.0, lambda ctx: run_agent(agent, ctx, 60.0)))
    usage, extra = spend.settle(outcome.usage, meter)
    log = (sandbox_dir / "agent" / "one-call.log").read_text()
    assert outcome.exit == "error" and "413" in log, log
    assert srv.requests == [] and usage.calls == 0
    assert extra["gateway_refused"] == 1
    (record,) = extra["gateway_refused_records"]
    assert (record["status"], record["limit"]) == (413, int(0.05 * MB)) and record["bytes"] > 100_000
    assert read_trajectory(sandbox_dir / "agent" / "trajectory.json").extra == {"gateway_refused": 1}

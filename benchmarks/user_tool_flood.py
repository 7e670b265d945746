"""The user tool's watcher under a flood of folders (issue 26): CPU seconds the harness spends
per poll of `take_requests` while 150,000 folders in the request area drain, and once drained.

    PYTHONPATH=src python benchmarks/user_tool_flood.py [--folders 150000]

Prints polls to drain, CPU seconds per poll (mean, max) during the drain, the share of one core
at one poll per POLL_SEC, and the CPU of an idle poll. Before the bound (every entry listed and
sorted each poll, folders never removed) the watcher used about a third of a core for the whole
agent phase."""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from lancebench.grading.user_tool import POLL_SEC, take_requests


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--folders", type=int, default=150_000)
    n = ap.parse_args().folders
    with tempfile.TemporaryDirectory() as tmp:
        requests = Path(tmp) / "requests"
        requests.mkdir()
        for i in range(n):
            os.mkdir(requests / f"f{i}")
        costs = []
        while any(True for _ in os.scandir(requests)):
            t = time.process_time()
            take_requests(requests)
            costs.append(time.process_time() - t)
        t = time.process_time()
        for _ in range(100):
            take_requests(requests)
        idle = (time.process_time() - t) / 100
    mean = sum(costs) / len(costs)
    print(f"{n} folders: {len(costs)} polls to drain; CPU per poll mean {mean * 1000:.1f} ms, max "
          f"{max(costs) * 1000:.1f} ms = {mean / POLL_SEC:.0%} of a core while draining; idle poll "
          f"{idle * 1e6:.0f} us = {idle / POLL_SEC:.3%} of a core")


if __name__ == "__main__":
    main()

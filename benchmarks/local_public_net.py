"""What a command with the whole network costs on the local backend (issue 20): the same
``true`` in a local sandbox without the network and with it (its own namespace, served by
slirp4netns: lancebench.sandbox.local_net), interleaved command by command; prints medians, the
90th percentiles and the difference. Run by hand (root, slirp4netns installed):

    .venv/bin/python benchmarks/local_public_net.py [--n 50]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from lancebench.sandbox.base import SandboxSpec
from lancebench.sandbox.local import LocalSandbox


async def bench(n: int) -> dict[str, list[float]]:
    """Seconds of each of ``n`` ``true`` commands per network setting, interleaved."""
    root = Path(tempfile.mkdtemp(prefix="lb-bench-net-"))
    os.chmod(root, 0o755)
    boxes = {name: LocalSandbox(SandboxSpec(workdir="/app", workspace=root / name, network=network))
             for name, network in (("no network", False), ("public", True))}
    times: dict[str, list[float]] = {name: [] for name in boxes}
    try:
        for box in boxes.values():
            await box.start()
            await box.exec("true")  # the first command's set-up is not what is measured
        for _ in range(n):
            for name, box in boxes.items():
                t0 = time.perf_counter()
                res = await box.exec("true")
                times[name].append(time.perf_counter() - t0)
                assert res.exit_code == 0, res.stderr
    finally:
        for box in boxes.values():
            await box.stop()
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=50)
    times = asyncio.run(bench(parser.parse_args().n))
    for name, samples in times.items():
        q = statistics.quantiles(samples, n=10)
        print(f"{name:>10}: median {statistics.median(samples) * 1000:6.1f} ms, p90 {q[-1] * 1000:6.1f} ms")
    extra = statistics.median(times["public"]) - statistics.median(times["no network"])
    print(f"the network costs {extra * 1000:.1f} ms a command (medians)")


if __name__ == "__main__":
    main()

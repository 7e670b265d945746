"""Cost of a network allowlist on the docker backend: a sandbox's start (create, start, and for
the allowlist the nftables table installed with ``nsenter``) and one DNS answer of the filtering
resolver, against the same sandbox on the plain bridge, interleaved in one process.

Run by hand, as root with an engine on this machine and the base image (``.ci/docker-setup.sh``)::

    .venv/bin/python benchmarks/docker_allowlist.py [--n 15]

Prints medians (ms) and the ratio allowlist / bridge of the start, the extra time of
``ContainerFilter.apply`` alone, and the time of ``getent hosts`` for an allowed name (resolved by
the harness, addresses added to the container's set before the answer) against a refused one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from lancebench.sandbox.base import SandboxSpec  # noqa: E402
from lancebench.sandbox.docker import DockerSandbox  # noqa: E402
from lancebench.sandbox.docker_network import ContainerFilter  # noqa: E402


async def _start_stop(allow) -> tuple[float, DockerSandbox]:
    box = DockerSandbox(SandboxSpec(image="debian:bookworm-slim", network=True, allow_hosts=allow,
                                    labels={"job": "bench-allowlist"}))
    t0 = time.perf_counter()
    await box.start()
    return (time.perf_counter() - t0) * 1000, box


async def main(n: int) -> None:
    from docker_net_support import ZoneServer
    zone = ZoneServer({"allowed.bench.test": "10.255.0.1"})
    os.environ["LANCEBENCH_ALLOWLIST_DNS"] = zone.address
    plain, filtered, apply_ms, dns_ok, dns_refused = [], [], [], [], []
    for _ in range(n):
        ms, box = await _start_stop(None)
        plain.append(ms)
        await box.stop()
        ms, box = await _start_stop(("allowed.bench.test", "10.0.0.0/8"))
        filtered.append(ms)
        flt: ContainerFilter = box.__dict__["_filter"]
        t0 = time.perf_counter()
        await asyncio.to_thread(box.apply_network)
        apply_ms.append((time.perf_counter() - t0) * 1000)
        for name, out in (("allowed.bench.test", dns_ok), ("refused.bench.test", dns_refused)):
            res = await box.exec(f"s=$(date +%s%N); getent hosts {name} >/dev/null; e=$(date +%s%N); "
                                 "echo $(( (e - s) / 1000 ))")
            out.append(int(res.stdout.strip()) / 1000)
        assert "10.255.0.1" in flt.learned
        await box.stop()
    zone.close()
    med = statistics.median
    print(f"start, plain bridge     {med(plain):8.1f} ms")
    print(f"start, allowlist        {med(filtered):8.1f} ms   (x{med(filtered) / med(plain):.2f})")
    print(f"apply (nsenter + nft)   {med(apply_ms):8.1f} ms")
    print(f"DNS, allowed name       {med(dns_ok):8.1f} ms   (resolved by the harness, set widened first)")
    print(f"DNS, refused name       {med(dns_refused):8.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=15)
    asyncio.run(main(parser.parse_args().n))

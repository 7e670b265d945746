"""Cost of the docker storage quota (``lancebench.sandbox.docker_quota``) per sandbox.

Run by hand, as root, with an engine and the base image (``.ci/docker-setup.sh``)::

    .venv/bin/python benchmarks/docker_quota.py [--n 15] [--image debian:bookworm-slim]

One sandbox lifecycle as a trial's sandboxes live it: create and start the container, one
command, stop and remove it, then remove the scratch folder (``remove_tree``). Three variants,
interleaved round by round in one process so that load drifts hit all alike:

- ``none``: ``DockerSandbox(spec, quota=False)`` (what every container was before the quota);
- ``quota 10 GiB``: the backend's way (``quota_folder`` in scratch, a writable mount covered) at
  the default ``storage_mb = 10240``;
- ``quota 64 MiB``: the same at ``storage_mb = 64``.

Prints the median of each (ms) and its ratio to ``none``. Measured on this machine (2 cores
shared with other engineers' test runs; 2026-12-01)::

    variant          median ms   ratio    median ms   ratio
                     (n=15, load 8.5-8.9)  (n=20, load 9.7-11)
    none               957.4     1.00       795.0     1.00
    quota 10 GiB      1102.6     1.15      1021.6     1.29
    quota 64 MiB       981.1     1.02       933.5     1.17

so about +0.15 to +0.23 s per sandbox at the default 10 GiB (mkfs of a larger image, the loop
mount, two binds, their unmounts), less at small sizes. A trial has two to three sandboxes with
a quota (the agent's, one or two verifier runs; the capture's container has none): a ``nop``
trial of the ``calc`` fixture took 7.3 s (median of 4, same load), so the quota adds about
0.3-0.7 s, 4-9 %, to such a short trial.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from lancebench.sandbox.base import Limits, Mount, SandboxSpec
from lancebench.sandbox.docker import DockerSandbox
from lancebench.sandbox.fstree import remove_tree


async def lifecycle(image: str, storage_mb: int | None) -> float:
    """Seconds for one sandbox's life (see the module docstring); ``storage_mb`` None: no quota."""
    scratch = Path(tempfile.mkdtemp(prefix="lb-quota-bench-", dir="/var/tmp"))
    logs = scratch / "logs"
    logs.mkdir()
    spec = SandboxSpec(image=image, workdir="/", limits=Limits(storage_mb=storage_mb or 10240),
                       mounts=(Mount(logs, "/logs", True),), labels={"job": "benchmark", "trial": "quota"})
    t0 = time.perf_counter()
    box = (DockerSandbox(spec, quota=False) if storage_mb is None
           else DockerSandbox(spec, quota_folder=scratch / "sandbox" / "quota"))
    await box.start()
    res = await box.exec("echo ok > /logs/out.txt && echo ok > /tmp/x")
    await box.stop()
    remove_tree(scratch)
    elapsed = time.perf_counter() - t0
    assert res.ok, res
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=15)
    parser.add_argument("--image", default="debian:bookworm-slim")
    args = parser.parse_args()
    variants = {"none": None, "quota 10 GiB": 10240, "quota 64 MiB": 64}
    times: dict[str, list[float]] = {name: [] for name in variants}
    asyncio.run(lifecycle(args.image, 64))  # warm-up: the engine's caches, the SDK's imports
    for _ in range(args.n):
        for name, size in variants.items():
            times[name].append(asyncio.run(lifecycle(args.image, size)))
    base = statistics.median(times["none"])
    print(f"{'variant':<16} {'median ms':>9}   ratio")
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name:<16} {med * 1000:9.1f}   {med / base:.2f}")


if __name__ == "__main__":
    main()

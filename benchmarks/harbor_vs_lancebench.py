"""Harbor 0.25 and lancebench on the same Harbor fixtures: rewards must agree, and lancebench's
warm trial should take less wall time than Harbor's.

Run by hand, with a Docker engine, the base image (``.ci/docker-setup.sh``) and Harbor in a
Python >= 3.12 (``$LANCEBENCH_HARBOR_PYTHON``, ``$LANCEBENCH_HARBOR_DOCKER_CONFIG`` holding
Docker's compose plugin; ``.ci/run`` shows the set-up)::

    .venv/bin/python benchmarks/harbor_vs_lancebench.py [--fixtures env-sizes two-step] [--agents oracle nop]

For each fixture and agent: one warm-up run of each harness (images built and cached), then one
timed run of each, both ``-n 1``. Prints the rewards of each (they must be equal; the script
exits 1 when they are not), the wall seconds of each whole command, and the ratio
lancebench / Harbor (below 1: lancebench is faster). Harbor runs with its defaults.

Measured here (2 shared cores, warm images, oracle): env-sizes 17.0 s vs Harbor 70.9 s (0.24),
two-step 19.1 s vs 81.3 s (0.24); rewards equal on both.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path.insert(0, str(TESTS))
from harbor_support import FIXTURES, harbor_reward, harbor_skip_reason, run_harbor, run_lancebench  # noqa: E402


def timed(fn, *args, **kwargs):
    t0 = time.monotonic()
    out = fn(*args, **kwargs)
    return out, time.monotonic() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fixtures", nargs="+", default=["env-sizes", "two-step"])
    ap.add_argument("--agents", nargs="+", default=["oracle", "nop"])
    args = ap.parse_args()
    reason = harbor_skip_reason()
    if reason:
        print(f"cannot run Harbor here: {reason}")
        return 2
    host = {"LB_HARBOR_WORD": "zebra"}
    os.environ.update(host)
    ok = True
    print(f"{'fixture':<12} {'agent':<8} {'harbor reward':<16} {'lancebench':<16} "
          f"{'harbor s':>9} {'lb s':>7} {'ratio':>6}")
    for name in args.fixtures:
        task = FIXTURES / name
        for agent in args.agents:
            with tempfile.TemporaryDirectory(prefix="lb-vs-harbor-") as tmp:
                root = Path(tmp)
                run_harbor(task, agent, root / "h-warm", host)
                run_lancebench(task, agent, root / "l-warm", host)
                (h,), h_sec = timed(run_harbor, task, agent, root / "h", host)
                (r,), l_sec = timed(run_lancebench, task, agent, root / "l", host)
            same = harbor_reward(h) == r["rewards"]
            ok &= same
            print(f"{name:<12} {agent:<8} {str(harbor_reward(h)):<16} {str(r['rewards']):<16} "
                  f"{h_sec:>9.1f} {l_sec:>7.1f} {l_sec / h_sec:>6.2f}" + ("" if same else "  REWARDS DIFFER"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

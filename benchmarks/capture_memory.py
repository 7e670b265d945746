"""Harness memory against the size of a file the agent leaves in its workspace (issue 12: a
150 MB file made a 193 MB patch and the harness peaked at 842 MB).

Runs ``lancebench run`` on the calc fixture with a script agent that writes one file of random
bytes (small, then large) and samples the harness process's peak resident memory (VmHWM in
/proc/PID/status) until it exits. The patch cap (``[lancebench.limits] patch_mb``, 32 MiB by
default) is checked inside the capture sandbox, so the large file never reaches the harness.
Target: the large run's peak within 1.5 times the small run's. Run by hand:

    .venv/bin/python benchmarks/capture_memory.py [--small-mb 1] [--large-mb 150]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CALC = REPO / "tests" / "fixtures" / "tasks" / "calc"


def peak_rss_mb(cmd: list[str], env: dict[str, str]) -> float:
    """Peak resident memory (MiB) of the process ``cmd`` starts, sampled every 20 ms."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        try:
            for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.02)
    if proc.returncode != 0:
        raise SystemExit(f"lancebench exited {proc.returncode}: {' '.join(cmd)}")
    return peak / 1024


def run(size_mb: int, work: Path) -> tuple[float, str]:
    agent = work / f"write_{size_mb}.sh"
    agent.write_text(f"#!/bin/bash\nhead -c {size_mb * 1024 * 1024} /dev/urandom > blob.bin\n")
    jobs = work / f"jobs-{size_mb}"
    exe = Path(sys.executable).parent / "lancebench"
    cmd = [str(exe) if exe.exists() else "lancebench", "run", "-p", str(CALC), "-a", f"script:{agent}", "-o", str(jobs)]
    peak = peak_rss_mb(cmd, dict(os.environ))
    result = json.loads(next(jobs.glob("*/trials/*/result.json")).read_text())
    return peak, f"{result['status']}: {(result['reason'] or '')[:80]}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--small-mb", type=int, default=1)
    ap.add_argument("--large-mb", type=int, default=150)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="lb-capmem-", dir="/var/tmp"))
    os.chmod(work, 0o755)
    try:
        small, small_result = run(args.small_mb, work)
        large, large_result = run(args.large_mb, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{args.small_mb:>5} MB file: harness peak {small:7.1f} MiB  ({small_result})")
    print(f"{args.large_mb:>5} MB file: harness peak {large:7.1f} MiB  ({large_result})")
    ratio = large / small if small else float("inf")
    print(f"ratio {ratio:.2f} (target <= 1.5): {'ok' if ratio <= 1.5 else 'OVER'}")


if __name__ == "__main__":
    main()

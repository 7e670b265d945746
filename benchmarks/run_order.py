"""The cost of ordering one task's verifier runs across trials (``grading/run_order.py``): a pass@k
job of one task (``calc`` fixture, ``oracle`` agent: every trial passes, so every trial has a
graded run and a canary run), ``-k K -n N``, through the real command line, two source trees
interleaved (before/after), repetition by repetition.

    .venv/bin/python benchmarks/run_order.py --src BEFORE/src --src AFTER/src [-k 4] [-n 4]
        [--repeat 3] [--backend local]

Prints, per run and as medians per source tree: the whole command's seconds, the trials' span
(first ``started_at`` to last ``finished_at``: the command's start-up left out) and the mean of the
trials' grading phase (``phases.grading``), the mean and largest wait of a trial's runs for their
turns (the ``waited ...s for its turn`` lines of its runs' ``test.log``; none before the change),
then each tree's medians as ratios to the first tree's. Every trial must be ``resolved`` (else
FAIL, exit 1).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TASK = ROOT / "tests" / "fixtures" / "tasks" / "calc"


def _seconds(span: dict) -> float:
    return (datetime.fromisoformat(span["finished_at"]) - datetime.fromisoformat(span["started_at"])).total_seconds()


def _waited(trial: Path) -> float:
    """Seconds the verifier runs of ``trial`` waited for their turns (their ``test.log`` lines)."""
    total = 0.0
    for log in trial.glob("verifier/*/test.log"):
        for line in log.read_text(errors="replace").splitlines()[1:2]:
            if line.startswith("waited ") and "for its turn" in line:
                total += float(line.split()[1].rstrip("s"))
    return total


def run_once(src: str, k: int, n: int, backend: str, jobs: Path) -> tuple[float, float, float, list[float]]:
    """(whole command seconds, trials' span seconds, mean grading phase seconds, each trial's
    seconds of waits for turns) of one ``lancebench run`` of source tree ``src``."""
    name = f"k{k}-{time.monotonic_ns()}"
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "lancebench.cli", "run", "-p", str(TASK), "-a", "oracle", "-k", str(k),
                    "-n", str(n), "--backend", backend, "-o", str(jobs), "--job-name", name], check=True,
                   capture_output=True, env={**os.environ, "PYTHONPATH": src})
    whole = time.perf_counter() - t0
    results = [json.loads(p.read_text()) for p in (jobs / name / "trials").glob("*/result.json")]
    if len(results) != k or any(r["status"] != "resolved" for r in results):
        raise SystemExit(f"FAIL: {[(r['status'], r['reason']) for r in results]} in {jobs / name}")
    starts = [datetime.fromisoformat(r["started_at"]) for r in results]
    ends = [datetime.fromisoformat(r["finished_at"]) for r in results]
    grading = statistics.mean(_seconds(r["phases"]["grading"]) for r in results)
    waits = [_waited(jobs / name / "trials" / r["trial_id"]) for r in results]
    return whole, (max(ends) - min(starts)).total_seconds(), grading, waits


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", action="append", default=None)
    parser.add_argument("-k", type=int, default=4)
    parser.add_argument("-n", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--backend", default="local")
    args = parser.parse_args()
    sources = args.src or [str(ROOT / "src")]
    jobs = Path(tempfile.mkdtemp(prefix="lb-order-"))
    got: dict[str, list[tuple[float, float, float]]] = {s: [] for s in sources}
    for rep in range(args.repeat):  # interleaved: each tree once per repetition, the order alternating
        for src in sources if rep % 2 == 0 else reversed(sources):
            whole, span, grading, waits = run_once(src, args.k, args.n, args.backend, jobs)
            got[src].append((whole, span, grading))
            print(f"rep {rep} {src}: command {whole:.1f} s, trials' span {span:.1f} s, grading phase "
                  f"{grading:.1f} s a trial, waits for turns {statistics.mean(waits):.1f} s a trial (largest "
                  f"{max(waits):.1f} s) (load {os.getloadavg()[0]:.1f})", flush=True)
    subprocess.run(["rm", "-rf", str(jobs)], check=False)
    base = [statistics.median(x[i] for x in got[sources[0]]) for i in range(3)]
    for src in sources:
        med = [statistics.median(x[i] for x in got[src]) for i in range(3)]
        print(f"{src}: median command {med[0]:.1f} s (x{med[0] / base[0]:.2f}), span {med[1]:.1f} s "
              f"(x{med[1] / base[1]:.2f}), grading {med[2]:.1f} s a trial (x{med[2] / base[2]:.2f})")
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end; -k {args.k} -n {args.n}, "
          f"{args.backend}, {args.repeat} repetitions")


if __name__ == "__main__":
    os.environ.setdefault("LANCEBENCH_HOME", "/var/tmp/lancebench-bench")
    main()

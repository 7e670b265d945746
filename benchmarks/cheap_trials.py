"""Cheap trials against concurrency (issue 29): choice trials whose sandbox runs no command (the
``pick`` fixture, the ``random`` agent: it puts its answer file), ``-k TRIALS`` at ``-n 1`` and
``-n N``, through the real command line, interleaved repetitions, on the local backend.

    .venv/bin/python benchmarks/cheap_trials.py [--trials 200] [-n 4] [--repeat 2] [--src OTHER/src] [--few 20]

``--src`` (repeatable; default this checkout's ``src``) runs each source tree's lancebench in
turn within every repetition: a before/after comparison in one run. ``--few K`` also runs
``-k K`` at ``-n 1`` after each source's pair and prints the CPU per trial (the difference of
the two runs' CPU over the trials between them: start-up cancels out), which the machine's
other load disturbs far less than the spans.

Prints, per repetition (with the load average after it) and as medians: the whole command's
seconds and CPU seconds (user and system, start-up included), the trials' span (first
``started_at`` to last ``finished_at`` in the results: the command's start-up left out), and
the speed-up ``-n 1`` / ``-n N`` of each. Target (issue 29):
the span's speed-up is at least 1.5 at ``-n 4`` on 2 cores; the script prints FAIL and exits 1
when it is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TASK = ROOT / "tests" / "fixtures" / "tasks" / "pick"
TARGET = 1.5


def run_once(src: str, n: int, trials: int, jobs: Path) -> tuple[float, float, float]:
    """(whole command seconds, trials' span seconds, the command's CPU seconds: user and system,
    every thread) of one ``lancebench run`` of source tree ``src``."""
    name = f"n{n}-{time.monotonic_ns()}"
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "lancebench.cli", "run", "-p", str(TASK), "-a", "random", "-k", str(trials),
                    "-n", str(n), "-o", str(jobs), "--job-name", name], check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": src})
    whole = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    starts, ends = [], []
    for result in (jobs / name / "trials").glob("*/result.json"):
        data = json.loads(result.read_text())
        starts.append(datetime.fromisoformat(data["started_at"]))
        ends.append(datetime.fromisoformat(data["finished_at"]))
    if len(starts) != trials:
        raise SystemExit(f"FAIL: {len(starts)} results of {trials} trials in {jobs / name}")
    return whole, (max(ends) - min(starts)).total_seconds(), cpu


def cpu_per_trial(src: str, trials: int, few: int, cpu: float, jobs: Path) -> float:
    """Milliseconds of CPU per trial of source tree ``src``: ``cpu`` (seconds, a ``-k trials`` run at
    ``-n 1``) less a ``-k few`` run's, over ``trials - few`` (the command's start-up cancels out)."""
    _, _, cpu_few = run_once(src, 1, few, jobs)
    ms = (cpu - cpu_few) / (trials - few) * 1000
    print(f"  {src}: -k {few} CPU {cpu_few:.2f} s: {ms:.2f} ms of CPU per trial", flush=True)
    return ms


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("-n", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--src", action="append", default=None)
    parser.add_argument("--few", type=int, default=0,
                        help="also run -k FEW at -n 1 each repetition: CPU per trial = the difference over the trials")
    args = parser.parse_args()
    sources = args.src or [str(ROOT / "src")]
    jobs = Path(tempfile.mkdtemp(prefix="lb-cheap-"))
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    got: dict[tuple[str, int], list[tuple[float, float, float]]] = {(s, n): [] for s in sources for n in (1, args.n)}
    per_trial: dict[str, list[float]] = {s: [] for s in sources}
    for rep in range(args.repeat):  # interleaved: each source at -n 1 and -n N, then again
        for src in sources:
            for n in (1, args.n):
                whole, span, cpu = run_once(src, n, args.trials, jobs)
                got[(src, n)].append((whole, span, cpu))
                print(f"rep {rep} {src} -n {n}: command {whole:.1f} s, trials' span {span:.1f} s, CPU {cpu:.2f} s "
                      f"(load average {os.getloadavg()[0]:.1f})", flush=True)
            if args.few:
                per_trial[src].append(cpu_per_trial(src, args.trials, args.few, got[(src, 1)][-1][2], jobs))
    subprocess.run(["rm", "-rf", str(jobs)], check=False)
    failed = False
    for src in sources:
        one, many = (tuple(statistics.median(x[i] for x in got[(src, n)]) for i in (0, 1, 2)) for n in (1, args.n))
        whole_x, span_x = one[0] / many[0], one[1] / many[1]
        print(f"{src}: {args.trials} cheap trials, median: -n 1 command {one[0]:.1f} s span {one[1]:.1f} s; "
              f"-n {args.n} command {many[0]:.1f} s span {many[1]:.1f} s; speed-up command x{whole_x:.2f}, "
              f"span x{span_x:.2f} (target >= x{TARGET} on the span); the command's CPU {one[2]:.2f} s at -n 1, "
              f"{many[2]:.2f} s at -n {args.n}")
        if per_trial[src]:
            print(f"{src}: CPU per trial at -n 1 {statistics.median(per_trial[src]):.2f} ms (median; "
                  f"{', '.join(f'{x:.2f}' for x in per_trial[src])})")
        if src == sources[0] and span_x < TARGET:
            print(f"FAIL: {src}: speed-up x{span_x:.2f} < x{TARGET}")
            failed = True
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end")
    if failed:
        raise SystemExit(1)
    print("ok")


if __name__ == "__main__":
    os.environ.setdefault("LANCEBENCH_HOME", "/var/tmp/lancebench-bench")
    main()

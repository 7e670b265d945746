"""Revisiting a finished job as it grows (issue 29): resume planning, ``show``, ``show --json`` and
``report`` of synthetic jobs of 100, 2,000 (and optionally 50,000) trials, each as a ratio to a bare
CLI start (``lancebench --version``) measured in the same run.

Run by hand: ``PYTHONPATH=src .venv/bin/python benchmarks/results_growth.py [--sizes 100,2000,50000]
[--repeat 3] [--before /work/main/src]``.

Each size is written as a run writes it (``trials/<id>/result.json`` with its index row,
``results.store.write_result``; ``plan.json``), and copied once per other source tree (trees with
different index schemas must not share a job folder: each would rebuild the other's index). The
first ``show --json`` and the first ``report`` of each tree are printed apart ("first read": the
index checked or built, the summary and, with the index, the report computed and kept); then every command runs
``--repeat`` times, interleaved (start, plan, show, show --json, report, start, plan, ...), each in a
fresh process, and the median wall time and the largest resident memory (``wait4``'s
``ru_maxrss``) are printed, with the ratio to the start's median. "resume planning" is the read
side of ``runner.job.plan`` for the whole plan (``runner.job._recorded``: the recorded trials by
id as a rerun of the finished job reads them, since issue 29 the index's head columns only;
building the task objects is not part of it). ``--before SRC`` runs the
same commands with another source tree first on the path (say, main without the index), interleaved
too, so both columns come from the same minutes of a shared machine.
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
from pathlib import Path

from lancebench.results.models import TrialConfig, TrialResult, Usage
from lancebench.results.store import write_result

PLAN = ("import json, sys; from pathlib import Path; from lancebench.results.paths import JobPaths; "
        "import lancebench.runner.job as j; p = Path(sys.argv[1]); "
        "ids = json.loads((p / 'plan.json').read_text()); "
        "rec = j._recorded(JobPaths(p), ids) if hasattr(j, '_recorded') else "
        "{t: j.read_result(JobPaths(p).trial(t).result) for t in ids}; print(len(rec))")


def write_job(root: Path, n: int) -> Path:
    """A finished job of ``n`` trials (3 attempts per task, statuses mixed) in ``root/job-n``."""
    job_dir = root / f"job-{n}"
    config = TrialConfig(agent="nop", backend="local")
    ids = []
    for i in range(n):
        status = ("resolved", "unresolved", "invalid")[(i * 7) % 5 % 3]
        r = TrialResult(trial_id=f"task-{i // 3:05d}__{i % 3}__k{i:06d}", job=job_dir.name, task=f"task-{i // 3:05d}",
                        task_digest="d" * 12, agent="nop", attempt=i % 3, status=status, price_usd=250.0,
                        reason=None if status == "resolved" else f"tests not passing: test_{i}",
                        rewards={"reward": float(status == "resolved")}, usage=Usage(cost_usd=0.001), config=config,
                        tests={f"tests/test_x.py::test_{t}": "passed" for t in range(5)})
        folder = job_dir / "trials" / r.trial_id
        folder.mkdir(parents=True)
        write_result(folder / "result.json", r)  # as run_trial records it: the file, then its index row
        ids.append(r.trial_id)
    (job_dir / "plan.json").write_text(json.dumps(ids))
    return job_dir


def run_once(argv: list[str], src: str) -> tuple[float, float]:
    """(wall seconds, max resident MB) of one process."""
    env = {**os.environ, "PYTHONPATH": src, "COLUMNS": "120"}
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
    return wall, usage.ru_maxrss / 1024


def commands(job_dir: Path, report_out: Path) -> dict[str, list[str]]:
    py = sys.executable
    cli = [py, "-m", "lancebench.cli"]
    return {"CLI start": [*cli, "--version"], "resume planning": [py, "-c", PLAN, str(job_dir)],
            "show": [*cli, "show", str(job_dir)], "show --json": [*cli, "show", str(job_dir), "--json"],
            "report": [*cli, "report", str(job_dir), "--format", "json", "-o", str(report_out)]}


def job_copies(job_dir: Path, sources: dict[str, str]) -> dict[str, Path]:
    """One copy of the job per source tree (the first uses ``job_dir`` itself): two trees with
    different index schemas reading one folder would each rebuild the other's index on every read."""
    dirs = {}
    for i, label in enumerate(sources):
        dirs[label] = job_dir if i == 0 else job_dir.parent / f"{job_dir.name}-{label}"
        if i:
            subprocess.run(["cp", "-a", str(job_dir), str(dirs[label])], check=True)
    return dirs


def warm(dirs: dict[str, Path], sources: dict[str, str]) -> dict[str, tuple[float, float]]:
    """(first ``show --json``, first ``report``) seconds per source: the first read of a job (the
    index built or checked, the summary kept) and the first report (computed and, with the index,
    kept), untimed in the table below."""
    out = {}
    for label, src in sources.items():
        cmds = commands(dirs[label], dirs[label].parent / "report.json")
        out[label] = (run_once(cmds["show --json"], src)[0], run_once(cmds["report"], src)[0])
    return out


def measure(dirs: dict[str, Path], sources: dict[str, str],
            repeat: int) -> dict[tuple[str, str], list[tuple[float, float]]]:
    cmds = {label: commands(dirs[label], dirs[label].parent / "report.json") for label in sources}
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(repeat):
        for name in cmds[next(iter(sources))]:
            for label, src in sources.items():
                times.setdefault((label, name), []).append(run_once(cmds[label][name], src))
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,2000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", default=None, help="another source tree to compare with (e.g. main's src)")
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parents[1] / "src")
    sources = {"index": os.environ.get("PYTHONPATH", here) or here}
    if args.before:
        sources = {"before": args.before, **sources}
    with tempfile.TemporaryDirectory() as tmp:
        print("| trials | source | command | median s | ratio to start | max RSS MB |")
        print("| ---: | --- | --- | ---: | ---: | ---: |")
        for n in map(int, args.sizes.split(",")):
            t0 = time.perf_counter()
            job_dir = write_job(Path(tmp), n)
            written = time.perf_counter() - t0
            dirs = job_copies(job_dir, sources)
            first = warm(dirs, sources)
            print(f"| {n} | | (written in {written:.1f} s, index rows with the files; first show --json, first report: "
                  + ", ".join(f"{label} {a:.2f} s, {b:.2f} s" for label, (a, b) in first.items()) + ") | | | |")
            times = measure(dirs, sources, args.repeat)
            for label in sources:
                base = statistics.median(w for w, _ in times[(label, "CLI start")])
                for name in commands(job_dir, job_dir).keys():
                    walls = [w for w, _ in times[(label, name)]]
                    rss = max(m for _, m in times[(label, name)])
                    med = statistics.median(walls)
                    print(f"| {n} | {label} | {name} | {med:.2f} | {med / base:.2f}x | {rss:.0f} |", flush=True)


if __name__ == "__main__":
    main()

"""Median cost of one command: plain subprocess vs bare bubblewrap vs the local (bubblewrap) sandbox
vs ``docker exec`` into a running container (when an engine answers), interleaved command by
command, for one or more source trees in the same run. Prints medians, ratios and the load
average; run by hand:

    .venv/bin/python benchmarks/sandbox_overhead.py [--n 50] [--src OTHER/src] [--no-trial]

``--src`` (repeatable; default this checkout's ``src``): each source tree gets a worker process
(``PYTHONPATH`` set to it) that imports what ``lancebench run`` imports for a local run (so that
the worker's memory, which a ``fork`` copies, is a harness's), opens one sandbox, runs its
one-time set-up (the first command) and then, on request, times one command: ``bare`` or
``local``. Each repetition asks every row once, in a shuffled order (seeded), so that load
changes hit every row alike; the targets are checked on the first tree.

"Bare bubblewrap" is one ``bwrap`` with the sandbox's own command line (same namespaces, binds
and environment), started by ``subprocess.run`` as root without cgroups, rlimits or a uid change:
what a local command cannot do with less. Also prints the trial overhead outside the agent and the
tests (environment cached, nop agent, a verifier that does nothing) for a repository of about 20
MB, for each tree in turn (median of 5 trials). Targets, each checked on the first tree (FAIL and
exit 1 when missed): a local command within 1.3x bare bubblewrap (issue 29), a trial under 1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCAL_TARGET = 1.3  # x bare bubblewrap
TRIAL_TARGET = 1.0  # seconds

WORKER = r'''
import asyncio, json, resource, shutil, subprocess, sys, tempfile, time
from pathlib import Path
import lancebench.agents.builtin, lancebench.backends.local, lancebench.runner.trial  # a harness's memory
from lancebench.sandbox.base import SandboxSpec
from lancebench.sandbox.local import LocalSandbox

loop = asyncio.new_event_loop()
ws = Path(tempfile.mkdtemp())
ws.chmod(0o755)
sb = LocalSandbox(SandboxSpec(workspace=ws))
loop.run_until_complete(sb.start())
loop.run_until_complete(sb.exec(["true"]))  # the sandbox's one-time set-up is not a command's cost
bare = sb._bwrap_argv(sb.spec.workdir, sb.base_env()) + ["true"]
print(json.dumps({"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}), flush=True)
for line in sys.stdin:
    what = line.strip()
    if what == "bare":
        t = time.perf_counter()
        subprocess.run(bare, check=True, env={"PATH": "/usr/bin:/bin"})
        ms = (time.perf_counter() - t) * 1000
    elif what == "local":
        t = time.perf_counter()
        res = loop.run_until_complete(sb.exec(["true"]))
        ms = (time.perf_counter() - t) * 1000
        assert res.ok, res
    else:
        break
    print(json.dumps({"ms": ms}), flush=True)
loop.run_until_complete(sb.stop())
shutil.rmtree(ws)
'''


class Worker:
    """One source tree's worker process (see the module docstring)."""

    def __init__(self, src: str):
        self.src = src
        env = {**os.environ, "PYTHONPATH": src}
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env)
        self.rss_mb = self._answer()["rss_mb"]

    def _answer(self) -> dict:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"the worker of {self.src} ended (see its error above)")
        return json.loads(line)

    def time(self, what: str) -> float:
        """Milliseconds of one ``bare`` or ``local`` command, timed in the worker."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(what + "\n")
        self.proc.stdin.flush()
        return self._answer()["ms"]

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(60)


def bench_commands(sources: list[str], n: int, seed: int = 29) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Milliseconds of every row over ``n`` repetitions, interleaved in a shuffled order per
    repetition: ``subprocess`` (``true`` from this process) and, per source tree, ``SRC bare``
    and ``SRC local``. Also each worker's resident memory (MB)."""
    workers = [Worker(src) for src in sources]
    rows: dict[str, list[float]] = {"subprocess": []}
    for w in workers:
        rows[f"{w.src} bare"], rows[f"{w.src} local"] = [], []
    rng = random.Random(seed)
    try:
        for _ in range(n):
            jobs = [("subprocess", None, "")] + [(f"{w.src} {what}", w, what) for w in workers
                                                 for what in ("bare", "local")]
            rng.shuffle(jobs)
            for row, w, what in jobs:
                if w is None:
                    t = time.perf_counter()
                    subprocess.run(["true"], check=True)
                    rows[row].append((time.perf_counter() - t) * 1000)
                else:
                    rows[row].append(w.time(what))
    finally:
        for w in workers:
            w.close()
    return rows, {w.src: w.rss_mb for w in workers}


def bench_docker(n: int) -> float | None:
    """Median ms of ``docker exec true`` into a running container, or None without an engine."""
    try:
        import docker
        client = docker.from_env()
        client.ping()
    except Exception:  # no engine here: the row is left out
        return None
    images = [t for img in client.images.list() for t in img.tags]
    image = next((t for t in images if t.startswith("debian")), None)
    if image is None:
        return None
    c = client.containers.run(image, ["sleep", "600"], detach=True, network_mode="none")
    try:
        out = []
        for _ in range(n):
            t = time.perf_counter()
            c.exec_run(["true"])
            out.append(time.perf_counter() - t)
        return statistics.median(out) * 1000
    finally:
        c.remove(force=True)


TRIAL = r'''
import asyncio, shutil, statistics, sys, tempfile
from pathlib import Path
from lancebench.agents.builtin import NopAgent
from lancebench.backends.local import LocalBackend
from lancebench.results.models import TrialConfig
from lancebench.results.paths import TrialPaths
from lancebench.runner.trial import TrialSpec, run_trial
from lancebench.task.load import load_task

TASK_TOML = "[lancebench]\n[lancebench.local]\nsetup = \"setup.sh\"\n"

async def main(repeats):
    root = Path(tempfile.mkdtemp())
    root.chmod(0o755)
    task_dir = root / "big"
    (task_dir / "environment").mkdir(parents=True)
    (task_dir / "tests").mkdir()
    (task_dir / "task.toml").write_text(TASK_TOML)
    (task_dir / "instruction.md").write_text("nothing to do\n")
    (task_dir / "environment" / "setup.sh").write_text(
        "for i in $(seq 1 200); do mkdir -p d$i; head -c 100000 /dev/urandom > d$i/blob.bin; done\n")
    (task_dir / "tests" / "test.sh").write_text("echo 0 > /logs/verifier/reward.txt\n")
    task = load_task(task_dir)
    backend = LocalBackend()
    await backend.prepare(task)
    times = []
    for i in range(repeats):
        paths = TrialPaths(root / "trials" / str(i))
        spec = TrialSpec(task=task, config=TrialConfig(agent="nop"), attempt=i, job="bench", trial_id=str(i),
                         paths=paths, scratch=root / "scratch" / str(i))
        r = await run_trial(spec, NopAgent(), backend)
        times.append(r.timings.total_sec)
    shutil.rmtree(root)
    print(statistics.median(times))

asyncio.run(main(int(sys.argv[1])))
'''


def bench_trial(src: str, repeats: int = 5) -> float:
    """Median wall seconds of a nop trial on a cached 20 MB repository with a no-op verifier,
    run by source tree ``src``."""
    out = subprocess.run([sys.executable, "-c", TRIAL, str(repeats)], env={**os.environ, "PYTHONPATH": src},
                         capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--src", action="append", default=None, help="a source tree (repeatable)")
    parser.add_argument("--no-trial", action="store_true", help="leave out the trial overhead")
    args = parser.parse_args()
    sources = args.src or [str(ROOT / "src")]
    print(f"load average at start {os.getloadavg()[0]:.1f}", flush=True)
    rows, rss = bench_commands(sources, args.n)
    ms = {k: statistics.median(v) for k, v in rows.items()}
    base = ms["subprocess"]
    failed = []
    print(f"{args.n} repetitions, interleaved (shuffled per repetition); medians")
    print(f"plain subprocess:  {base:8.2f} ms")
    for i, src in enumerate(sources):
        bare, local = ms[f"{src} bare"], ms[f"{src} local"]
        ratio = local / bare
        print(f"[{src}] worker {rss[src]} MB")
        print(f"  bare bubblewrap: {bare:8.2f} ms  ({bare / base:.1f}x subprocess)")
        print(f"  local (bwrap):   {local:8.2f} ms  ({ratio:.2f}x bare bubblewrap; target <= {LOCAL_TARGET}x)")
        paired = statistics.median(lo / b for lo, b in zip(rows[f"{src} local"], rows[f"{src} bare"], strict=True))
        print(f"  median of the per-repetition ratios local / bare: {paired:.2f}x")
        if i == 0 and ratio > LOCAL_TARGET:
            failed.append(f"{src}: local command {ratio:.2f}x bare bubblewrap > {LOCAL_TARGET}x")
    dock = bench_docker(args.n)
    if dock is None:
        print("docker exec:       no engine answered (start one with .ci/docker-setup.sh)")
    else:
        print(f"docker exec:       {dock:8.2f} ms  ({dock / base:.1f}x subprocess)")
    for i, src in enumerate([] if args.no_trial else sources):
        trial = bench_trial(src)
        print(f"trial overhead (nop, 20 MB repo, cached env, {src}): {trial:.2f} s (target < {TRIAL_TARGET} s)")
        if i == 0 and trial >= TRIAL_TARGET:
            failed.append(f"trial overhead {trial:.2f} s >= {TRIAL_TARGET} s")
    print(f"load average at end {os.getloadavg()[0]:.1f}")
    for why in failed:
        print(f"FAIL: {why}")
    if failed:
        raise SystemExit(1)
    print("ok")


if __name__ == "__main__":
    os.environ.setdefault("LANCEBENCH_HOME", "/var/tmp/lancebench-bench")
    main()

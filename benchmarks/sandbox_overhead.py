"""Median cost of one command: plain subprocess vs the local (bubblewrap) sandbox vs ``docker exec``
into a running container (when an engine answers). Prints medians and ratios; run by hand:

    .venv/bin/python benchmarks/sandbox_overhead.py [--n 50]

Also prints the trial overhead outside the agent and the tests (environment cached, nop agent,
a verifier that does nothing) for a repository of about 20 MB. Target: under 10 ms a command and
under 1 s a trial.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from lancebench.sandbox.base import SandboxSpec
from lancebench.sandbox.local import LocalSandbox


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bench_subprocess(n: int) -> float:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(["true"], check=True)
        out.append(time.perf_counter() - t)
    return median_ms(out)


async def bench_local(n: int) -> float:
    ws = Path(tempfile.mkdtemp())
    ws.chmod(0o755)
    sb = LocalSandbox(SandboxSpec(workspace=ws))
    await sb.start()
    out = []
    try:
        for _ in range(n):
            t = time.perf_counter()
            await sb.exec(["true"])
            out.append(time.perf_counter() - t)
    finally:
        await sb.stop()
        shutil.rmtree(ws)
    return median_ms(out)


def bench_docker(n: int) -> float | None:
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
        return median_ms(out)
    finally:
        c.remove(force=True)


TASK_TOML = """
[lancebench]
[lancebench.local]
setup = "setup.sh"
"""


async def bench_trial(repeats: int = 5) -> float:
    """Median wall seconds of a nop trial on a cached 20 MB repository with a no-op verifier."""
    from lancebench.agents.builtin import NopAgent
    from lancebench.backends.local import LocalBackend
    from lancebench.results.paths import TrialPaths
    from lancebench.runner.trial import TrialSpec, run_trial
    from lancebench.task.load import load_task
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
        spec = TrialSpec(task=task, agent_name="nop", model=None, attempt=i, job="bench", trial_id=str(i),
                         paths=paths, scratch=root / "scratch" / str(i))
        r = await run_trial(spec, NopAgent(), backend)
        times.append(r.timings.total_sec)
    shutil.rmtree(root)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=50)
    args = parser.parse_args()
    base = bench_subprocess(args.n)
    local = asyncio.run(bench_local(args.n))
    print(f"plain subprocess: {base:.2f} ms")
    print(f"local (bwrap):    {local:.2f} ms  ({local / base:.1f}x subprocess)")
    dock = bench_docker(args.n)
    if dock is None:
        print("docker exec:      no engine answered (start one with .ci/docker-setup.sh)")
    else:
        print(f"docker exec:      {dock:.2f} ms  ({dock / base:.1f}x subprocess, {dock / local:.1f}x local)")
    trial = asyncio.run(bench_trial())
    print(f"trial overhead (nop, 20 MB repo, cached env): {trial:.2f} s")


if __name__ == "__main__":
    os.environ.setdefault("LANCEBENCH_HOME", "/var/tmp/lancebench-bench")
    main()

"""Median cost of one command: plain subprocess vs bare bubblewrap vs the local (bubblewrap) sandbox
vs ``docker exec`` into a running container (when an engine answers), interleaved command by
command (subprocess, bare bwrap, local sandbox in turn). Prints medians and ratios; run by hand:

    .venv/bin/python benchmarks/sandbox_overhead.py [--n 50]

"Bare bubblewrap" is one ``bwrap`` with the sandbox's own command line (same namespaces, binds
and environment), started by ``subprocess.run`` as root without cgroups, rlimits or a uid change:
what a local command cannot do with less. Also prints the trial overhead outside the agent and the
tests (environment cached, nop agent, a verifier that does nothing) for a repository of about 20
MB. Targets, each checked (FAIL and exit 1 when missed): a local command within 1.3x bare
bubblewrap (issue 29), a trial under 1 s.
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

LOCAL_TARGET = 1.3  # x bare bubblewrap
TRIAL_TARGET = 1.0  # seconds


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def bench_commands(n: int) -> dict[str, float]:
    """Median ms of ``true`` as a plain subprocess, bare bubblewrap and a local sandbox command,
    interleaved."""
    ws = Path(tempfile.mkdtemp())
    ws.chmod(0o755)
    sb = LocalSandbox(SandboxSpec(workspace=ws))
    await sb.start()
    await sb.exec(["true"])  # the sandbox's one-time set-up (folders, cgroups) is not a command's cost
    bare = sb._bwrap_argv(sb.spec.workdir, sb.base_env()) + ["true"]
    out: dict[str, list[float]] = {"subprocess": [], "bare bwrap": [], "local": []}
    try:
        for _ in range(n):
            t = time.perf_counter()
            subprocess.run(["true"], check=True)
            out["subprocess"].append(time.perf_counter() - t)
            t = time.perf_counter()
            subprocess.run(bare, check=True, env={"PATH": "/usr/bin:/bin"})
            out["bare bwrap"].append(time.perf_counter() - t)
            t = time.perf_counter()
            await sb.exec(["true"])
            out["local"].append(time.perf_counter() - t)
    finally:
        await sb.stop()
        shutil.rmtree(ws)
    return {k: median_ms(v) for k, v in out.items()}


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
    from lancebench.results.models import TrialConfig
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
        spec = TrialSpec(task=task, config=TrialConfig(agent="nop"), attempt=i, job="bench", trial_id=str(i),
                         paths=paths, scratch=root / "scratch" / str(i))
        r = await run_trial(spec, NopAgent(), backend)
        times.append(r.timings.total_sec)
    shutil.rmtree(root)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=50)
    args = parser.parse_args()
    ms = asyncio.run(bench_commands(args.n))
    base, bare, local = ms["subprocess"], ms["bare bwrap"], ms["local"]
    failed = []
    print(f"plain subprocess: {base:.2f} ms")
    print(f"bare bubblewrap:  {bare:.2f} ms  ({bare / base:.1f}x subprocess)")
    print(f"local (bwrap):    {local:.2f} ms  ({local / base:.1f}x subprocess, {local / bare:.2f}x bare bubblewrap; "
          f"target <= {LOCAL_TARGET}x)")
    if local / bare > LOCAL_TARGET:
        failed.append(f"local command {local / bare:.2f}x bare bubblewrap > {LOCAL_TARGET}x")
    dock = bench_docker(args.n)
    if dock is None:
        print("docker exec:      no engine answered (start one with .ci/docker-setup.sh)")
    else:
        print(f"docker exec:      {dock:.2f} ms  ({dock / base:.1f}x subprocess, {dock / local:.1f}x local)")
    trial = asyncio.run(bench_trial())
    print(f"trial overhead (nop, 20 MB repo, cached env): {trial:.2f} s (target < {TRIAL_TARGET} s)")
    if trial >= TRIAL_TARGET:
        failed.append(f"trial overhead {trial:.2f} s >= {TRIAL_TARGET} s")
    print(f"load average {os.getloadavg()[0]:.1f}")
    for why in failed:
        print(f"FAIL: {why}")
    if failed:
        raise SystemExit(1)
    print("ok")


if __name__ == "__main__":
    os.environ.setdefault("LANCEBENCH_HOME", "/var/tmp/lancebench-bench")
    main()

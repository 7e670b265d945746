"""Harbor 0.25 and lancebench on the same Harbor fixtures: rewards must agree, and lancebench's
warm trial should take less wall time than Harbor's, with Harbor's defaults and with Harbor tuned.

Run by hand, with a Docker engine, the base image (``.ci/docker-setup.sh``) and Harbor in a
Python >= 3.12 (``$LANCEBENCH_HARBOR_PYTHON``, ``$LANCEBENCH_HARBOR_DOCKER_CONFIG`` holding
Docker's compose plugin; ``.ci/run`` shows the set-up)::

    PYTHONPATH=src .venv/bin/python benchmarks/harbor_vs_lancebench.py [-k 1] [-n 1] [--repeat 1] \\
        [--cases env-sizes:oracle two-step-partial:oracle ...]

Cases (fixture:agent; fixtures under ``tests/fixtures/harbor``):

- ``env-sizes`` (an image without git or Python; legacy size strings, env tables), oracle and nop;
- ``two-step`` (a multi-step task, reward = mean of the steps), oracle and nop;
- ``two-step-partial``: ``two-step`` with step two's reference solution emptied, so the oracle of
  either harness does step one only (the partial multi-step agent, the same under both);
  expected reward 0.5;
- ``multi-key`` (``reward.json`` with two keys and no ``reward`` key), oracle and nop;
- ``multi-key-git``: ``multi-key`` in an image with git and a repository at the workdir (the
  other capture and apply path of lancebench's docker backend), oracle and nop.

Three harness set-ups, in one process, on the same fixture, agent and ``-k``/``-n``:

- ``harbor``: ``harbor run`` with its defaults (``--delete``: the image is removed after each job
  and rebuilt from the build cache by the next; telemetry on);
- ``harbor-tuned``: what makes Harbor's warm trial fastest here (see ``TUNED_COMPOSE`` and ``tuned_harbor_args``);
- ``lancebench``: ``lancebench run --backend docker`` with its defaults.

Per case: one untimed warm-up run of each set-up (images built and cached), then ``--repeat``
timed runs of each, interleaved; the wall seconds of the whole command (CLI start-up included),
median over the repeats; and the trial's own seconds as each harness records them (``tun tr``,
``lb tr``: without the CLI's start-up and the job's set-up). Prints, per case, each set-up's
rewards (every trial's reward dict, sorted) and the per-key means the harness itself reports
(Harbor's job ``metrics``, lancebench's ``show --json`` ``reward_means``), which must all agree
(exit 1 when they do not), and the ratios lancebench / Harbor (below 1: lancebench is faster).
Measured numbers: ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path.insert(0, str(TESTS))
from harbor_support import FIXTURES, harbor_reward, harbor_skip_reason, run_harbor, run_lancebench  # noqa: E402
from lbtest import lb  # noqa: E402

from lancebench.sandbox.fstree import remove_tree  # noqa: E402

CASES = ["env-sizes:oracle", "env-sizes:nop", "two-step:oracle", "two-step:nop", "two-step-partial:oracle",
         "multi-key:oracle", "multi-key:nop", "multi-key-git:oracle", "multi-key-git:nop"]
HOST = {"LB_HARBOR_WORD": "zebra"}  # env-sizes fills ${LB_HARBOR_WORD} from the host

# Harbor tuned, each option measured here on env-sizes (oracle, warm, -k 1): defaults 26-27 s.
# - HARBOR_TELEMETRY=0: no PostHog events at the end of the command (an offline machine waits
#   for them): -5 s.
# - --extra-docker-compose with `init: true` on the main service: the container's `sh -c "sleep
#   infinity"` gets a real PID 1 that forwards SIGTERM, so `docker compose down` stops it at once
#   instead of after Docker's 10 s stop grace period: -10 s.
# - --no-delete: the image stays (`down` without `--rmi local`), no rebuild by the next job.
# - --no-force-build (Harbor's default, stated): the cached image is reused.
# - -n: the same concurrency as lancebench's run (Harbor's default is 4, lancebench's 1).
# Not used: --cpus/--memory ignore (they drop the task's limits; env-sizes's reward depends on
# its memory limit), a prebuilt `docker_image` (changes the task; Harbor then skips its build
# step, which is a cache hit here anyway: -0.3 s).
TUNED_COMPOSE = "services:\n  main:\n    init: true\n"


def tuned_harbor_args(tmp: Path) -> list[str]:
    """The extra ``harbor run`` arguments of the tuned set-up (writes the compose overlay in ``tmp``)."""
    overlay = tmp / "harbor-tuned-compose.yaml"
    overlay.write_text(TUNED_COMPOSE)
    return ["--no-delete", "--no-force-build", "--extra-docker-compose", str(overlay)]


# multi-key-git: the image has git and the workdir is a repository (lancebench then captures in a
# fresh container of the image and applies with git there); the apt layer is the one
# tests/sandbox/test_docker.py builds, so a machine without a package index has it cached.
GIT_DOCKERFILE = """FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*
WORKDIR /app
RUN printf '41\\n\\n' > /app/answer.txt && git init -q && git add -A \\
    && git -c user.name=base -c user.email=base@localhost commit -qm base
"""


def fixture(name: str, tmp: Path) -> Path:
    """The task folder of case fixture ``name`` (``two-step-partial`` and ``multi-key-git`` are
    derived in ``tmp``)."""
    if name not in ("two-step-partial", "multi-key-git"):
        return FIXTURES / name
    task = tmp / name
    if not task.exists():
        shutil.copytree(FIXTURES / name.rsplit("-", 1)[0], task)
        if name == "two-step-partial":
            (task / "steps" / "two" / "solution" / "solve.sh").write_text("#!/bin/bash\n# step two left undone\n")
        else:
            (task / "environment" / "Dockerfile").write_text(GIT_DOCKERFILE)
    return task


def harbor_means(jobs: Path, name: str) -> dict:
    """Harbor's own per-key means of a job (its result.json ``stats.evals.*.metrics``)."""
    evals = json.loads((jobs / name / "result.json").read_text())["stats"]["evals"]
    (one,) = evals.values()
    return one["metrics"][0]


def lancebench_means(jobs: Path, name: str) -> dict:
    """lancebench's own per-key means of a job (``show --json`` ``reward_means``)."""
    proc = lb("show", jobs / name, "--json", check=True)
    return json.loads(proc.stdout)["reward_means"]


def canon(rewards: dict | None) -> str:
    """A trial's rewards as sorted JSON with float values (Harbor keeps reward.json's ints)."""
    return json.dumps(None if rewards is None else {k: float(v) for k, v in rewards.items()}, sort_keys=True)


def harbor_trial_sec(result: dict) -> float:
    """A Harbor trial's own wall seconds (its result.json ``started_at`` to ``finished_at``)."""
    start, end = (datetime.fromisoformat(result[k].replace("Z", "+00:00")) for k in ("started_at", "finished_at"))
    return (end - start).total_seconds()


def run_setup(setup: str, task: Path, agent: str, jobs: Path, k: int, n: int, tuned: list[str]) -> tuple:
    """One run of ``setup``: (sorted trial rewards as JSON strings, the harness's means, the
    command's wall seconds, the median trial's own wall seconds as the harness recorded them)."""
    name = f"{task.name}-{agent}"
    t0 = time.monotonic()
    if setup == "lancebench":
        trials = run_lancebench(task, agent, jobs, HOST, "-k", str(k), "-n", str(n))
        sec = time.monotonic() - t0
        trial_sec = statistics.median(r["timings"]["total_sec"] for r in trials)
        return sorted(canon(r["rewards"]) for r in trials), lancebench_means(jobs, name), sec, trial_sec
    env = dict(HOST, HARBOR_TELEMETRY="0") if setup == "harbor-tuned" else HOST
    extra = tuned if setup == "harbor-tuned" else []
    found = run_harbor(task, agent, jobs, env, "-k", str(k), "-n", str(n), *extra)
    sec = time.monotonic() - t0
    trial_sec = statistics.median(harbor_trial_sec(h) for h in found)
    return sorted(canon(harbor_reward(h)) for h in found), harbor_means(jobs, name), sec, trial_sec


SETUPS = ("harbor", "harbor-tuned", "lancebench")


def measure(case: str, args, tmp: Path, tuned: list[str]) -> dict:
    """Warm-up plus ``args.repeat`` timed runs of every set-up on one case."""
    fix, agent = case.split(":")
    task = fixture(fix, tmp)
    seen: dict[str, set] = {s: set() for s in SETUPS}
    secs: dict[str, list[float]] = {s: [] for s in SETUPS}
    trial_secs: dict[str, list[float]] = {s: [] for s in SETUPS}
    for i in range(args.repeat + 1):
        for setup in SETUPS:
            jobs = tmp / f"{fix}-{agent}-{setup}-{i}"
            rewards, means, sec, trial_sec = run_setup(setup, task, agent, jobs, args.k, args.n, tuned)
            seen[setup].add((tuple(rewards), canon(means)))
            if i:
                secs[setup].append(sec)
                trial_secs[setup].append(trial_sec)
    return {"case": case, "seen": seen, "sec": {s: statistics.median(v) for s, v in secs.items()},
            "trial": {s: statistics.median(v) for s, v in trial_secs.items()}}


def report(row: dict) -> bool:
    """Print one case; True when every set-up and every run gave the same rewards and means."""
    distinct = set().union(*row["seen"].values())
    same = len(distinct) == 1
    sec, trial = row["sec"], row["trial"]
    (rewards, means) = sorted(distinct)[0]
    print(f"{row['case']:<24} {sec['harbor']:>8.1f} {sec['harbor-tuned']:>8.1f} {sec['lancebench']:>7.1f} "
          f"{sec['lancebench'] / sec['harbor']:>7.2f} {sec['lancebench'] / sec['harbor-tuned']:>7.2f} "
          f"{trial['harbor-tuned']:>7.1f} {trial['lancebench']:>7.1f} "
          f"{trial['lancebench'] / trial['harbor-tuned']:>7.2f}  "
          f"{', '.join(rewards)}  means {means}" + ("" if same else "  REWARDS DIFFER"))
    if not same:
        for setup, got in row["seen"].items():
            print(f"    {setup}: {sorted(got)}")
    return same


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="+", default=CASES, help="fixture:agent pairs (default: all)")
    ap.add_argument("-k", type=int, default=1, help="attempts per run, the same for every set-up")
    ap.add_argument("-n", type=int, default=1, help="concurrency, the same for every set-up")
    ap.add_argument("--repeat", type=int, default=1, help="timed runs per set-up (median reported)")
    args = ap.parse_args()
    reason = harbor_skip_reason()
    if reason:
        print(f"cannot run Harbor here: {reason}")
        return 2
    os.environ.update(HOST)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=TESTS.parent, check=False).stdout.strip()
    print(f"commit {commit}, -k {args.k} -n {args.n}, median of {args.repeat} timed run(s) after a warm-up; "
          f"{os.cpu_count()} CPUs")
    print(f"{'case':<24} {'harbor s':>8} {'tuned s':>8} {'lb s':>7} {'lb/hb':>7} {'lb/tun':>7} "
          f"{'tun tr':>7} {'lb tr':>7} {'tr rat':>7}  rewards")
    ok = True
    tmp = Path(tempfile.mkdtemp(prefix="lb-vs-harbor-"))
    try:
        tuned = tuned_harbor_args(tmp)
        for case in args.cases:
            ok &= report(measure(case, args, tmp, tuned))
    finally:
        remove_tree(tmp)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

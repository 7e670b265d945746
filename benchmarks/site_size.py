"""The report site's size and its index's load time as a job grows (issue 29, item 5).

Run by hand: ``PYTHONPATH=src .venv/bin/python benchmarks/site_size.py [--sizes 300,3000]
[--kind choice|code] [--repeat 3] [--before /work/main/src]``.

A synthetic finished job of N trials (3 attempts per task) is written as a run writes it: each
trial's ``result.json``, ``instruction.md`` (a ~6 KB SWE-Lancer-manager-like instruction with its
proposals, the same for every attempt of a task), and for ``--kind code`` a short trajectory, a
patch and a verifier log. ``lancebench report --html`` builds the site in a fresh process (wall
time printed); then the site's bytes per trial (apparent size, and the disk blocks allocated:
``st_blocks`` x 512), the ``index.html`` size, and the index's load time in Chromium (navigation
start to the ``load`` event, and to the task table drawn, median of ``--repeat`` loads,
interleaved with the other source tree's when ``--before SRC`` is given). Target: under 3 KB per
trial on disk; an index usable within a second at 50k trials.
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

from lancebench.agents.trajectory import TrajectoryBuilder, write_trajectory
from lancebench.results.models import TrialConfig, TrialResult, Usage

TARGET_BYTES = 3 * 1024  # per trial, on disk (issue 29)
PROPOSAL = ("Proposal {p}: change `src/pages/settings/Profile.js` so that the avatar menu closes when the "
            "user taps outside it; keep the keyboard behaviour. Cost: ${c}.\n\n")


def instruction(task: int) -> str:
    head = f"# Issue {task}: the avatar menu stays open\n\nYou are the manager. Pick the best proposal.\n\n"
    return head + "".join(PROPOSAL.format(p=p, c=250 * (p + 1)) for p in range(24))


def _trial_files(folder: Path, r: TrialResult, i: int, kind: str) -> None:
    folder.mkdir(parents=True)
    (folder / "instruction.md").write_text(instruction(i // 3), encoding="utf-8")
    if kind == "code":
        b = TrajectoryBuilder("mini-swe-agent", "1", "m")
        b.user("Fix the menu")
        for s in range(3):
            step = b.agent_step(f"Step {s}: looking at the file", commands=[(f"c{s}", f"grep -n menu src/f{s}.js")])
            b.observe(step, f"12: const menu{s} = open();\n", call_id=f"c{s}")
        write_trajectory(b.finish(), folder / "agent")
        (folder / "patch.diff").write_text("diff --git a/src/f.js b/src/f.js\n--- a/src/f.js\n+++ b/src/f.js\n"
                                           "@@ -1,2 +1,2 @@\n-const open = 1;\n+const open = 0;\n x\n")
        (folder / "verifier" / "run-0").mkdir(parents=True)
        (folder / "verifier" / "run-0" / "test.log").write_text("PASS tests/menu.test.js\n" * 10)
    (folder / "result.json").write_text(r.model_dump_json(indent=2), encoding="utf-8")


def write_job(root: Path, n: int, kind: str) -> Path:
    """A finished job of ``n`` trials of ``kind`` (choice or code) in ``root/job-n``."""
    job_dir = root / f"job-{n}"
    config = TrialConfig(agent="nop", backend="local")
    ids = []
    for i in range(n):
        status = ("resolved", "unresolved", "invalid")[(i * 7) % 5 % 3]
        r = TrialResult(trial_id=f"task-{i // 3:05d}__{i % 3}__k{i:06d}", job=job_dir.name, task=f"task-{i // 3:05d}",
                        task_digest="d" * 12, agent="nop", attempt=i % 3, status=status,
                        price_usd=250.0 * (i // 3 % 7 + 1),
                        kind="choice" if kind == "choice" else "code", choice=i % 4 if kind == "choice" else None,
                        reason=None if status == "resolved" else f"picked proposal {i % 4}, not 2",
                        rewards={"reward": float(status == "resolved")}, usage=Usage(cost_usd=0.001), config=config)
        _trial_files(job_dir / "trials" / r.trial_id, r, i, kind)
        ids.append(r.trial_id)
    (job_dir / "plan.json").write_text(json.dumps(ids))
    return job_dir


def build(job_dir: Path, site: Path, src: str) -> float:
    env = dict(os.environ, PYTHONPATH=src)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", "from lancebench.cli import main; main()", "report", str(job_dir),
                    "--html", str(site), "--bootstrap", "10"], env=env, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"report failed: {proc.stderr[-2000:]}")
    return time.perf_counter() - t0


def site_bytes(site: Path) -> tuple[int, int]:
    """(apparent bytes, allocated bytes) of every file of the site except ``static/``."""
    size = blocks = 0
    for path in site.rglob("*"):
        if path.is_file() and "static" not in path.relative_to(site).parts:
            st = path.stat()
            size += st.st_size
            blocks += st.st_blocks * 512
    return size, blocks


LOADED = """() => document.querySelectorAll('#task-table tr.task-row').length > 0"""


def load_times(page, index: Path) -> tuple[float, float]:
    """(seconds to the load event, seconds to the task table's first rows) of one fresh load."""
    t0 = time.perf_counter()
    page.goto(index.as_uri(), wait_until="load", timeout=300_000)
    loaded = time.perf_counter() - t0
    page.wait_for_function(LOADED, timeout=300_000)
    return loaded, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="300,3000")
    ap.add_argument("--kind", choices=("choice", "code"), default="choice")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", default=None, help="another source tree to compare (say, main)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    trees = ([("before", args.before)] if args.before else []) + [("this", str(Path(__file__).parents[1] / "src"))]
    print(f"load average {os.getloadavg()[0]:.1f}; kind {args.kind}")
    print(f"{'trials':>7} {'source':<7} {'build s':>8} {'B/trial':>8} {'disk B/trial':>12} {'index KB':>9} "
          f"{'load s':>7} {'table s':>8}  target: disk < 3 KB/trial")
    with tempfile.TemporaryDirectory(prefix="lb-site-") as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else r.abort())
        for n in map(int, args.sizes.split(",")):
            job_dir = write_job(Path(tmp), n, args.kind)
            sites = {}
            for name, src in trees:
                site = Path(tmp) / f"site-{name}-{n}"
                secs = build(job_dir, site, src)
                sites[name] = (site, secs)
            times: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in trees}
            for _ in range(args.repeat):  # interleaved
                for name, _ in trees:
                    times[name].append(load_times(page, sites[name][0] / "index.html"))
            for name, _ in trees:
                site, secs = sites[name]
                size, blocks = site_bytes(site)
                load = statistics.median(t[0] for t in times[name])
                table = statistics.median(t[1] for t in times[name])
                print(f"{n:>7} {name:<7} {secs:>8.1f} {size / n:>8.0f} {blocks / n:>12.0f} "
                      f"{(site / 'index.html').stat().st_size / 1024:>9.0f} {load:>7.2f} {table:>8.2f}  "
                      f"{'met' if blocks / n < TARGET_BYTES else 'NOT met'}", flush=True)
        browser.close()


if __name__ == "__main__":
    main()

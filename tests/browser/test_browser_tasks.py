"""The bundled browser tasks are valid: the oracle resolves each, nop resolves none (the F2P tests
fail and the P2P tests pass on the untouched app), in real Chromium."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lancebench.task.load import load_task

REPO = Path(__file__).resolve().parents[2]
MINI = REPO / "src" / "lancebench" / "datasets" / "mini" / "tasks"
BROWSER_TASKS = sorted(p for p in MINI.iterdir()
                       if (p / "task.toml").is_file() and "browser = true" in (p / "task.toml").read_text())

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def run(agent: str, jobs: Path) -> dict[str, dict]:
    exe = Path(sys.executable).parent / "lancebench"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "lancebench.cli"]
    args = [a for t in BROWSER_TASKS for a in ("-p", str(t))]
    proc = subprocess.run([*cmd, "run", *args, "-a", agent, "-o", str(jobs)], capture_output=True, text=True,
                          timeout=1200, cwd=REPO, env=dict(os.environ, COLUMNS="300", NO_COLOR="1"))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return {r["task"]: r for r in (json.loads(p.read_text()) for p in jobs.glob("*/trials/*/result.json"))}


def test_there_are_browser_tasks():
    assert len(BROWSER_TASKS) >= 2
    for folder in BROWSER_TASKS:
        task = load_task(folder)
        assert task.lb.browser and task.taxonomy["stack"] == "web-frontend" and task.lb.f2p and task.lb.p2p


def test_oracle_resolves_and_nop_does_not(tmp_path):
    oracle = run("oracle", tmp_path / "oracle")
    nop = run("nop", tmp_path / "nop")
    for folder in BROWSER_TASKS:
        task = load_task(folder)
        good, bad = oracle[folder.name], nop[folder.name]
        assert good["status"] == "resolved", good
        assert bad["status"] == "unresolved", bad
        assert all(bad["tests"][t] == "failed" for t in task.lb.f2p), bad["tests"]
        assert all(bad["tests"][t] == "passed" for t in task.lb.p2p), bad["tests"]

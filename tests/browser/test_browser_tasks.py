"""The bundled browser tasks are valid: the oracle resolves each, nop resolves none (the F2P tests
fail and the P2P tests pass on the untouched app), in real Chromium, on both backends, with the
app server started by the harness under its own uid (``[lancebench] app_server``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from docker_support import docker_skip_reason

from lancebench.task.load import load_task

REPO = Path(__file__).resolve().parents[2]
MINI = REPO / "src" / "lancebench" / "datasets" / "mini" / "tasks"
BROWSER_TASKS = sorted(p for p in MINI.iterdir()
                       if (p / "task.toml").is_file() and "browser = true" in (p / "task.toml").read_text())

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def start(agent: str, jobs: Path, backend: str, tasks: list[Path]) -> subprocess.Popen:
    """``lancebench run`` of ``agent`` on ``tasks``, started (see :func:`collect`)."""
    exe = Path(sys.executable).parent / "lancebench"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "lancebench.cli"]
    args = [a for t in tasks for a in ("-p", str(t))]
    return subprocess.Popen([*cmd, "run", *args, "-a", agent, "-o", str(jobs), "--backend", backend],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                            env=dict(os.environ, COLUMNS="300", NO_COLOR="1"))


def collect(proc: subprocess.Popen, jobs: Path) -> dict[str, dict]:
    """The results by task of a run :func:`start` began, once it exited 0 (20 minutes at most)."""
    try:
        stdout, stderr = proc.communicate(timeout=1200)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
    assert proc.returncode == 0, stdout[-3000:] + stderr[-3000:]
    results = {}
    for path in jobs.glob("*/trials/*/result.json"):
        r = json.loads(path.read_text())
        r["app_log"] = (path.parent / "verifier" / "run-0" / "app.log").read_text()  # the harness ran the server
        results[r["task"]] = r
    return results


def test_there_are_browser_tasks():
    assert len(BROWSER_TASKS) >= 2
    for folder in BROWSER_TASKS:
        task = load_task(folder)
        assert task.lb.browser and task.taxonomy["stack"] == "web-frontend" and task.lb.f2p and task.lb.p2p


# one task per backend (CI's budget): `lancebench check -d mini` in .ci/run runs oracle and nop on
# every bundled task on both backends; this test adds the runner's own outcomes and the app log
@pytest.mark.parametrize("backend,index", [("local", 0), ("docker", 1)])
def test_oracle_resolves_and_nop_does_not(tmp_path, backend, index):
    if backend == "docker" and (reason := docker_skip_reason()):
        pytest.skip(reason)
    tasks = [BROWSER_TASKS[index % len(BROWSER_TASKS)]]
    # the two jobs at once: one's Chromium and app server start while the other's wait
    runs = {agent: start(agent, tmp_path / agent, backend, tasks) for agent in ("oracle", "nop")}
    try:
        oracle, nop = (collect(runs[agent], tmp_path / agent) for agent in ("oracle", "nop"))
    finally:
        for proc in runs.values():  # a failed one's partner is not left running
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    for folder in tasks:
        task = load_task(folder)
        assert task.lb.app_server and task.lb.app_server.startswith("python server.py")
        assert "on http://127.0.0.1:8765/" in oracle[folder.name]["app_log"], oracle[folder.name]["app_log"]
        good, bad = oracle[folder.name], nop[folder.name]
        assert good["status"] == "resolved", good
        assert bad["status"] == "unresolved", bad
        assert all(bad["tests"][t] == "failed" for t in task.lb.f2p), bad["tests"]
        assert all(bad["tests"][t] == "passed" for t in task.lb.p2p), bad["tests"]

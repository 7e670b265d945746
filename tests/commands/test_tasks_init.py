"""``lancebench tasks init NAME`` (as Harbor's ``tasks init``): the folder it writes validates, the
oracle resolves it and the nop agent does not (local backend), and it never overwrites a folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def lb(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "lancebench"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "lancebench.cli"]
    env = dict(os.environ, COLUMNS="400", NO_COLOR="1", TERM="dumb")
    return subprocess.run([*cmd, *map(str, args)], capture_output=True, text=True, timeout=300, env=env, cwd=cwd)


def test_init_writes_a_task_that_validates_and_the_oracle_resolves(tmp_path):
    proc = lb("tasks", "init", "my-task", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    root = tmp_path / "my-task"
    for rel in ("task.toml", "instruction.md", "environment/Dockerfile", "tests/test.sh", "solution/solve.sh"):
        assert (root / rel).is_file(), rel
    assert os.access(root / "tests" / "test.sh", os.X_OK) and os.access(root / "solution" / "solve.sh", os.X_OK)
    proc = lb("tasks", "validate", root, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok my-task (code, $100, public)" in proc.stdout and "warning" not in proc.stdout
    for agent, status in (("oracle", "resolved"), ("nop", "unresolved")):
        proc = lb("run", "-p", root, "-a", agent, "-o", tmp_path / "jobs", "--job-name", agent, cwd=tmp_path)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        (result,) = [json.loads(p.read_text()) for p in (tmp_path / "jobs" / agent).rglob("result.json")]
        assert (result["task"], result["status"]) == ("my-task", status), result["reason"]


def test_init_never_overwrites(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "task.toml").write_text("keep")
    proc = lb("tasks", "init", "mine", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "mine: exists and is not an empty folder" in proc.stderr and "Traceback" not in proc.stderr
    assert (tmp_path / "mine" / "task.toml").read_text() == "keep"

"""Helpers of the core adversarial suite: run the real CLI, derive task folders from the fixtures,
read a job's results. Nothing of lancebench is mocked: every job runs through ``lancebench``."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
TASKS = FIXTURES / "tasks"            # the lead's fixtures: calc (pytest, F2P/P2P), pick (choice)
CORE_TASKS = FIXTURES / "core_tasks"  # tally: offline build, unittest + a JUnit writer
AGENTS = FIXTURES / "agents"          # cheating and helper agents, run as script:PATH


def lancebench_exe() -> list[str]:
    exe = Path(sys.executable).parent / "lancebench"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "lancebench.cli"]


def lb(*args: str | Path, timeout: float = 600, check: bool | None = None,
       env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``lancebench ARGS`` and return the completed process (text output). ``check=True``
    asserts exit 0; ``check=False`` asserts a non-zero exit."""
    full_env = dict(os.environ, COLUMNS="400", NO_COLOR="1", TERM="dumb")
    full_env.update(env or {})
    proc = subprocess.run([*lancebench_exe(), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=full_env, cwd=REPO)
    if check is True:
        assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    if check is False:
        assert proc.returncode != 0, f"expected a failure\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc


def agent(name: str) -> str:
    path = AGENTS / name
    assert path.is_file(), path
    return f"script:{path}"


def job_dir(jobs: Path) -> Path:
    """The single job folder under ``jobs``."""
    dirs = [d for d in jobs.iterdir() if d.is_dir()]
    assert len(dirs) == 1, dirs
    return dirs[0]


def results(job: Path) -> list[dict]:
    """Every result.json of a job, as dicts, sorted by (task, attempt)."""
    out = [json.loads(p.read_text()) for p in sorted((job / "trials").glob("*/result.json"))]
    return sorted(out, key=lambda r: (r["task"], r["attempt"]))


def one_result(jobs: Path) -> dict:
    rs = results(job_dir(jobs))
    assert len(rs) == 1, rs
    return rs[0]


def trial_dir(jobs: Path, result: dict) -> Path:
    return job_dir(jobs) / "trials" / result["trial_id"]


def show_json(job: Path) -> dict:
    proc = lb("show", job, "--json", check=True)
    return json.loads(proc.stdout)


def run_one(task: Path, agent_spec: str, jobs: Path, *extra: str, timeout: float = 600) -> dict:
    """Run one agent on one task folder; the job must finish (exit 0). Returns the result dict."""
    lb("run", "-p", task, "-a", agent_spec, "-o", jobs, *extra, timeout=timeout, check=True)
    return one_result(jobs)


def derive_task(src: Path, dest: Path, *, toml: dict[str, str] | None = None,
                files: dict[str, str | None] | None = None,
                append_instruction: str | None = None) -> Path:
    """Copy task folder ``src`` to ``dest``; ``toml`` replaces regex -> text in task.toml (each
    pattern must match); ``files`` writes (or, for None, deletes) task-relative files. The
    environment folder is copied unchanged, so the built environment is shared with ``src``."""
    shutil.copytree(src, dest)
    if toml:
        text = (dest / "task.toml").read_text()
        for pattern, repl in toml.items():
            text, n = re.subn(pattern, repl, text, flags=re.M)
            assert n, f"{pattern!r} not in {src}/task.toml"
        (dest / "task.toml").write_text(text)
    for rel, content in (files or {}).items():
        p = dest / rel
        if content is None:
            if p.is_dir():
                shutil.rmtree(p)
            else:
                p.unlink()
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(content)
    if append_instruction:
        with open(dest / "instruction.md", "a") as fh:
            fh.write("\n" + append_instruction + "\n")
    return dest


def patch_text(jobs: Path, result: dict) -> str:
    p = trial_dir(jobs, result) / "patch.diff"
    return p.read_text() if p.exists() else ""


def procs_with(token: str) -> list[str]:
    """Command lines of live host processes whose command line contains ``token``."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if token in cmd:
            found.append(f"{d.name}: {cmd}")
    return found


CALC_FIX = """diff --git a/calc.py b/calc.py
--- a/calc.py
+++ b/calc.py
@@ -1,5 +1,5 @@
 def add(a, b):
-    return a - b
+    return a + b
 
 
 def mul(a, b):
"""  # noqa: W293 (the blank context lines of a diff are one space)


def host_address() -> str:
    """One of this host's addresses other than loopback (the source of its default route; a UDP
    connect sends nothing), for a server that a public phase on the local backend must reach:
    such a phase cannot reach the host's 127.0.0.1 (lancebench.sandbox.local_net). Skips the
    test on a host with loopback only."""
    import pytest
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))
        except OSError:
            pytest.skip("the host has no route beside loopback")
        address = s.getsockname()[0]
    if address.startswith("127."):
        pytest.skip("the host has no address beside loopback")
    return address

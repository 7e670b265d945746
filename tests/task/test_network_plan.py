"""Where a network allowlist cannot be enforced, the task fails when the job is planned, with one
line naming the key and the fix, and no trial is recorded (never a run with a wider network)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from harbor_support import FIXTURES

from lancebench.backends.registry import cannot_run
from lancebench.task import load_task
from lancebench.task.settings import needs_network_filter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from lbtest import lb  # noqa: E402


def _allowlist_task(tmp_path) -> Path:
    """verifier-llm (it has a local recipe; a Dockerfile is added) with its verifier limited to one host."""
    dest = tmp_path / "allow"
    shutil.copytree(FIXTURES / "verifier-llm", dest)
    (dest / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\n")
    toml = dest / "task.toml"
    toml.write_text(toml.read_text().replace('network_mode = "public"',
                                             'network_mode = "allowlist"\nallowed_hosts = ["10.1.2.3"]'))
    return dest


def test_local_backend_refuses_an_allowlist_naming_the_key(tmp_path):
    task = load_task(_allowlist_task(tmp_path))
    assert needs_network_filter(task) == "verifier.network_mode"
    error = cannot_run(task, "local")
    assert error is not None and error.key == "verifier.network_mode"
    assert "allowlist" in str(error) and "--backend docker" in str(error) and "\n" not in str(error)


def test_docker_backend_refuses_it_with_a_remote_engine(tmp_path, monkeypatch):
    task = load_task(_allowlist_task(tmp_path))
    monkeypatch.setenv("DOCKER_HOST", "tcp://10.9.9.9:2375")
    error = cannot_run(task, "docker")
    assert error is not None and error.key == "verifier.network_mode" and "remote" in str(error)
    monkeypatch.delenv("DOCKER_HOST")
    if __import__("os").geteuid() == 0 and shutil.which("nsenter") and shutil.which("nft"):
        assert cannot_run(task, "docker") is None


def test_public_and_no_network_need_no_filter():
    assert needs_network_filter(load_task(FIXTURES / "verifier-llm")) is None


def test_run_on_local_stops_at_plan_time_with_one_line(tmp_path):
    jobs = tmp_path / "jobs"
    proc = lb("run", "-p", _allowlist_task(tmp_path), "-a", "oracle", "-o", jobs, "--job-name", "j",
              env={"LB_JUDGE_BASE_URL": "http://x", "LB_JUDGE_API_KEY": "sk-test-1234"})
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "verifier.network_mode" in text and "--backend docker" in text, text
    assert "Traceback" not in text
    assert not list(jobs.rglob("result.json"))

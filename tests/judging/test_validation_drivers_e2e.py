"""The validation agent's ``jest`` and ``mix-test`` drivers end to end (issue 21): stand-ins written
here in the shape of Senior SWE-Bench's design tasks (tests/fixtures/harbor/senior-jest and
senior-mix: the release's ``tests/validate/validation_spec.toml`` shape, a native test), run with
``lancebench run -a oracle|nop --judge-model`` and the judge played by the scripted
OpenAI-compatible server. The model's check goes through the real runner: Jest from npm on the
local backend (the host's node, npm fetched at build time), Debian's Elixir on docker (no Elixir
on the host). Oracle resolves with validation 1.0 (every case passed, read from the runner's own
report); nop fails each case of the story (a behavioural fail, not a script error)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from harbor_support import FIXTURES
from lbtest import lb, results
from scripted_server import Reply

from lancebench.sandbox.fstree import remove_tree

JEST_CHECK = ('const { add } = require("../../sums");\n\n'
              "async function check(inputs, expected) {\n  expect(add(inputs[0], inputs[1])).toBe(expected);\n}\n")
MIX_CHECK = ('  defp check(inputs, expected) do\n    assert Sums.add(inputs["a"], inputs["b"]) == expected\n'
             "  end\n")
TASTE = {"style_consistency": 4, "pattern_adherence": 4, "library_usage": 4, "abstraction_level": 4,
         "documentation_fit": 4, "minimality": 5, "approach_quality": 4, "hygiene": 4, "fluency": 4,
         "craftsmanship": 4}


def say(obj: object) -> Reply:
    return Reply(json.dumps(obj))


def replies(source: str, script: str, taste: bool) -> list[Reply]:
    """The judge's side of one trial: the story's script after one look at the module, the review,
    and for a non-empty patch the taste judge (three tool calls, then its scores)."""
    out = [say({"tool": "read_file", "path": source}), say({"answer": {"script": script}}),
           say({"answer": {"verdict": "ok", "smoke": "pass" if taste else "behavioural-fail"}})]
    return out + ([*[say({"tool": "list_dir"})] * 3, say({"answer": {"scores": TASTE}})] if taste else [])


@pytest.fixture
def task_copy() -> Iterator[Path]:
    """A folder the sandbox user can read, for a copy of a fixture task."""
    root = Path(tempfile.mkdtemp(prefix="lancebench-drivers-"))
    os.chmod(root, 0o755)
    yield root
    remove_tree(root)


def _run(scripted, task: Path, agent: str, backend: str, jobs: Path, source: str, script: str) -> tuple[dict, list]:
    srv = scripted(replies(source, script, taste=agent == "oracle"))
    lb("run", "-p", task, "-a", agent, "--judge-model", "scripted", "--judge-api-base", srv.api_base,
       "--backend", backend, "-o", jobs, "--job-name", agent, check=True, timeout=900)
    (result,) = results(jobs / agent)
    return result, srv.requests


def _check_pair(scripted, task: Path, backend: str, jobs: Path, source: str, script: str, story_file: str) -> None:
    # oracle and nop side by side (two jobs, two judge servers): the environment is built once
    # (builds of one environment wait on each other) and the runs overlap their waits
    with ThreadPoolExecutor(2) as pool:
        runs = {agent: pool.submit(_run, scripted, task, agent, backend, jobs, source, script)
                for agent in ("oracle", "nop")}
    oracle, asked = runs["oracle"].result()
    assert oracle["status"] == "resolved", (oracle["reason"], oracle["judges"])
    validation = oracle["judges"]["validation"]
    assert (validation["status"], validation["scores"]) == ("ok", {"score": 1.0}), validation
    (story,) = validation["details"]["stories"]
    assert story == {"name": "sums", "outcome": "pass", "detail": "2 cases passed",
                     "cases": {"case0": "passed", "case1": "passed"}}
    # the reviewer saw the smoke run's outcome as the harness read it from the runner's report,
    # and the runner's own output naming the driver's test file
    review = asked[2]["body"]["messages"][-1]["content"]
    assert "## Smoke result (from the harness): pass (1 cases passed)" in review
    assert story_file in review, review[-3000:]

    nop, asked = runs["nop"].result()
    assert nop["status"] == "unresolved" and nop["rewards"] == {"reward": 0.0}
    assert nop["judges"]["validation"]["scores"] == {"score": 0.0}
    (story,) = nop["judges"]["validation"]["details"]["stories"]
    assert (story["outcome"], story["cases"]) == ("behavioural-fail", {"case0": "failed", "case1": "failed"}), story
    assert "## Smoke result (from the harness): behavioural-fail (failed cases: case0)" in \
        asked[2]["body"]["messages"][-1]["content"]


def test_jest_driver_runs_the_models_check_with_the_projects_jest_on_local(scripted, task_copy: Path,
                                                                          tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("no node on the host: scripts/setup.sh installs nodejs")
    task = task_copy / "senior-jest"
    shutil.copytree(FIXTURES / "senior-jest", task)
    _check_pair(scripted, task, "local", tmp_path / "jobs", "src/sums.js", JEST_CHECK, "story.test.js")


@pytest.mark.docker
def test_mix_test_driver_runs_the_models_check_with_mix_test_on_docker(scripted, task_copy: Path,
                                                                      tmp_path: Path) -> None:
    pytest.importorskip("docker", reason="the Docker SDK is missing: pip install 'lancebench[docker]'")
    from docker_support import docker_skip_reason
    reason = docker_skip_reason()
    if reason:
        pytest.skip(reason)
    task = task_copy / "senior-mix"
    shutil.copytree(FIXTURES / "senior-mix", task)
    _check_pair(scripted, task, "docker", tmp_path / "jobs", "lib/sums.ex", MIX_CHECK, "story_test.exs")

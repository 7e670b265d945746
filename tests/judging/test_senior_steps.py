"""Senior grading of a multi-step task (issue 14): the final workspace is judged as one change,
against the instructions of the steps that ran joined in order, with the task's rubric and a
reference made of those steps' solutions run in order (docs/judges.md). The judge model is the
scripted OpenAI-compatible server over HTTP; the task is Harbor's two-step fixture on docker."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from scripted_server import Reply

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from docker_support import docker_skip_reason  # noqa: E402
from lbtest import FIXTURES, lb  # noqa: E402

from lancebench.task import load_task  # noqa: E402
from lancebench.task.steps import judged_as_one  # noqa: E402

pytestmark = pytest.mark.skipif(docker_skip_reason() is not None, reason=str(docker_skip_reason()))
RUBRIC = {"files": ["a.txt", "b.txt"], "fail_to_pass": [{"name": "first", "description": "a.txt holds done"},
                                                        {"name": "second", "description": "b.txt holds done"}]}
TASTE = {"style_consistency": 4, "pattern_adherence": 4, "library_usage": 4, "abstraction_level": 4,
         "documentation_fit": 4, "minimality": 5, "approach_quality": 4, "hygiene": 4, "fluency": 4,
         "craftsmanship": 4}
STEP_ONE = 'Step one: write "done" into /app/a.txt.'
STEP_TWO = 'Step two: write "done" into /app/b.txt.'


def say(obj: object) -> Reply:
    return Reply(json.dumps(obj))


@pytest.fixture
def two_step() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="lancebench-senior-steps-", dir="/var/tmp"))
    os.chmod(root, 0o755)
    task = root / "two-step"
    shutil.copytree(FIXTURES / "harbor" / "two-step", task)
    (task / "tests" / "rubric.json").write_text(json.dumps(RUBRIC))
    yield task
    shutil.rmtree(root, ignore_errors=True)


def _run(task: Path, agent: str, srv, jobs: Path) -> dict:
    lb("run", "-p", task, "-a", agent, "--backend", "docker", "--judge-model", "scripted", "--judge-api-base",
       srv.api_base, "-o", jobs, check=True)
    (result,) = [json.loads(p.read_text()) for p in jobs.glob("*/trials/*/result.json")]
    return result


def _text(request: dict) -> str:
    return "\n".join(str(m.get("content")) for m in request["body"]["messages"])


def test_the_final_workspace_is_judged_against_every_step(scripted, two_step, tmp_path):
    srv = scripted([say({"answer": {"criteria": [{"name": "first", "score": 1}, {"name": "second", "score": 1}]}}),
                    *[say({"tool": "list_dir"})] * 3, say({"answer": {"scores": TASTE, "rationale": "fine"}})])
    r = _run(two_step, "oracle", srv, tmp_path / "jobs")
    assert (r["status"], [s["name"] for s in r["steps"]]) == ("resolved", ["one", "two"]), r
    assert {k: v["status"] for k, v in r["judges"].items()} == {"rubric": "ok", "taste": "ok"}, r["judges"]
    assert r["judges"]["rubric"]["scores"]["mean"] == 1.0 and r["quality"]["tasteful"] is True
    rubric_prompt, taste_prompt = _text(srv.requests[0]), _text(srv.requests[1])
    for prompt in (rubric_prompt, taste_prompt):  # both steps' instructions, in order
        assert prompt.index("Step 1 of 2: one") < prompt.index(STEP_ONE) < prompt.index("Step 2 of 2: two") \
            < prompt.index(STEP_TWO)
    # the reference is both steps' solutions run in order: it changes a.txt and b.txt, as the work does
    assert "a/a.txt" in taste_prompt and "a/b.txt" in taste_prompt
    assert len(srv.requests) == 5


def test_a_trial_stopped_by_min_reward_is_judged_on_the_steps_that_ran(scripted, two_step, tmp_path):
    toml = two_step / "task.toml"
    toml.write_text(toml.read_text().replace('name = "one"', 'name = "one"\nmin_reward = 1.0'))
    view = judged_as_one(load_task(two_step), ["one"])
    assert STEP_ONE in view.instruction and STEP_TWO not in view.instruction
    assert [s.name for s in view.config.steps] == ["one"]
    srv = scripted([say({"answer": {"criteria": [{"name": "first", "score": 0}, {"name": "second", "score": 0}]}})])
    r = _run(two_step, "nop", srv, tmp_path / "jobs")
    assert [s["name"] for s in r["steps"]] == ["one"] and r["status"] == "unresolved", r
    assert r["judges"]["rubric"]["scores"]["mean"] == 0.0
    assert r["judges"]["taste"]["status"] == "skipped"  # an empty patch: no taste judge, no model call
    prompt = _text(srv.requests[0])
    assert "Step 1 of 1: one" in prompt and STEP_TWO not in prompt and len(srv.requests) == 1

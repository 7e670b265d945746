"""Senior grading end to end on the `calc` fixture task, in real bubblewrap sandboxes, with the
judge model played by the scripted OpenAI-compatible server over HTTP: the validation agent passes
against the reference patch, fails against an empty one, is discarded when its script edits the
repository; `lancebench run --judge-model` records every judge and the verdict."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from scripted_server import Reply

from lancebench.backends import make_backend
from lancebench.errors import TaskError
from lancebench.judging.validation import ValidationInvalid, validate
from lancebench.judging.validation_spec import load_spec
from lancebench.judging.workspace import reference_patch, snapshot
from lancebench.llm.client import LLMClient
from lancebench.sandbox.fstree import remove_tree
from lancebench.task.load import load_task

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lbtest import TASKS, lb  # noqa: E402

SPEC = '''
[[stories]]
name = "adds"
description = "add returns the sum of two numbers"
driver = "pytest"
procedure = ["import calc", "call calc.add(a, b)", "compare with the expected sum"]

[[stories.cases]]
name = "small"
inputs = [2, 3]
expected = 5

[[stories.cases]]
name = "negative"
inputs = [-4, 1]
expected = -3
'''
RUBRIC = {"files": ["calc.py"], "fail_to_pass": [{"name": "fixes-add", "description": "add returns a + b"}],
          "pass_to_pass": [{"name": "keeps-mul", "description": "mul is unchanged"}]}
GOOD_SCRIPT = "import calc\n\n\ndef check(inputs, expected):\n    assert calc.add(*inputs) == expected\n"
EDITING_SCRIPT = ("import calc, pathlib\n\n\ndef check(inputs, expected):\n"
                  "    pathlib.Path('calc.py').write_text('def add(a, b):\\n    return 0\\n')\n")


def say(obj: object) -> Reply:
    return Reply(json.dumps(obj))


def validation_replies(script: str) -> list[Reply]:
    return [say({"tool": "read_file", "path": "calc.py"}), say({"answer": {"script": script}}),
            say({"answer": {"verdict": "ok"}})]


@pytest.fixture
def calc_task() -> Iterator[Path]:
    """The calc fixture with a validation spec and a rubric, in a folder the sandbox user can read."""
    root = Path(tempfile.mkdtemp(prefix="lancebench-senior-"))
    os.chmod(root, 0o755)
    task = root / "calc"
    shutil.copytree(TASKS / "calc", task)
    (task / "tests" / "validation_spec.toml").write_text(SPEC)
    (task / "tests" / "rubric.json").write_text(json.dumps(RUBRIC))
    yield task
    remove_tree(root)


def run_validation(task_dir: Path, srv, which_patch: str):
    async def go():
        task = load_task(task_dir)
        backend = make_backend("local")
        env = await backend.prepare(task)
        scratch = task_dir.parent / "scratch"
        patch = await reference_patch(task, backend, env, scratch / "ref") if which_patch == "reference" else ""
        snap = await snapshot(task, backend, env, patch, scratch / "snap")
        client = LLMClient("openai/scripted", srv.api_base, max_retries=0)
        return await validate(client, task, backend, env, patch, load_spec(task.paths.tests / "validation_spec.toml"),
                              snap, scratch / "validation")
    return asyncio.run(go())


def test_validation_passes_on_the_reference_patch(scripted, calc_task: Path) -> None:
    srv = scripted(validation_replies(GOOD_SCRIPT))
    rec = run_validation(calc_task, srv, "reference")
    assert rec.status == "ok" and rec.scores == {"score": 1.0}, rec
    story = rec.details["stories"][0]
    assert story["outcome"] == "pass" and story["cases"] == {"small": "passed", "negative": "passed"}
    # the script was written after a look at the real file (the tool saw the fixed add)
    assert "return a + b" in srv.requests[1]["body"]["messages"][-1]["content"]


def test_validation_fails_on_an_empty_patch(scripted, calc_task: Path) -> None:
    srv = scripted(validation_replies(GOOD_SCRIPT))
    rec = run_validation(calc_task, srv, "empty")
    assert rec.status == "ok" and rec.scores == {"score": 0.0}
    story = rec.details["stories"][0]
    assert story["outcome"] == "behavioural-fail" and story["cases"] == {"small": "failed", "negative": "failed"}


def test_validation_is_discarded_when_its_script_edits_the_repository(scripted, calc_task: Path) -> None:
    srv = scripted(validation_replies(EDITING_SCRIPT))
    with pytest.raises(ValidationInvalid) as err:
        run_validation(calc_task, srv, "reference")
    assert err.value.record.status == "failed:discarded" and "calc.py" in str(err.value)
    # the control (issue 20): the same script, with no model, changes the reference solution's repository too
    assert err.value.control.startswith("the same scripts change the repository with the reference solution too")


def test_an_unknown_driver_is_named_with_its_field_when_the_spec_is_read(calc_task: Path) -> None:
    spec = calc_task / "tests" / "validation_spec.toml"
    spec.write_text(SPEC.replace('driver = "pytest"', 'driver = "playwright"'))
    with pytest.raises(TaskError, match=r"key 'stories\.0\.driver'.*'pytest', 'jest', 'go-test' or 'mix-test'"):
        load_spec(spec)


RELEASE_SPEC = '''
instructions = "Import the module under test from the repository root."
stack_profile = "python-stdlib"

[settings]
va_model = "some/model"
script_timeout_sec = 120

[[story]]
id = "adds"
driver = "pytest"
description = "add returns the sum of two numbers"
procedure = """
1. import calc
2. call calc.add(a, b) and compare with the expected sum
"""

[[story.test_case]]
inputs = [2, 3]
expected = 5
note = "kept for the check"

[[story.test_case]]
inputs = [-4, 1]
expected = -3
'''


def test_the_release_shape_of_a_spec_is_read_and_runs(scripted, calc_task: Path) -> None:
    """The release's shape as shipped (``instructions``, ``stack_profile``, ``[settings]``,
    ``[[story]]`` with ``id`` and a procedure as text, ``[[story.test_case]]`` without names and
    with keys of their own) is read, its instructions reach the model, and it runs."""
    spec_path = calc_task / "tests" / "validation_spec.toml"
    spec_path.write_text(RELEASE_SPEC)
    spec = load_spec(spec_path)
    assert spec.instructions.startswith("Import the module") and spec.stack_profile == "python-stdlib"
    assert spec.script_timeout_sec(300.0) == 120.0 and spec.settings["va_model"] == "some/model"
    story = spec.stories[0]
    assert (story.name, story.driver, [c.name for c in story.cases]) == ("adds", "pytest", ["case0", "case1"])
    assert story.cases[0].payload() == {"note": "kept for the check", "inputs": [2, 3], "expected": 5}
    srv = scripted(validation_replies(GOOD_SCRIPT))
    rec = run_validation(calc_task, srv, "reference")
    assert rec.status == "ok" and rec.scores == {"score": 1.0}, rec
    assert rec.details["stories"][0]["cases"] == {"case0": "passed", "case1": "passed"}
    first = srv.requests[0]["body"]["messages"][-1]["content"]
    assert "Import the module under test from the repository root." in first and "python-stdlib" in first


def test_a_broken_release_spec_names_the_releases_own_field(calc_task: Path) -> None:
    spec = calc_task / "tests" / "validation_spec.toml"
    spec.write_text(RELEASE_SPEC.replace('id = "adds"\n', ""))
    with pytest.raises(TaskError, match=r"key 'story\.0\.id': Field required.*\[\[story\]\] needs an id"):
        load_spec(spec)
    spec.write_text(RELEASE_SPEC.replace("[[story]]\nid = \"adds\"\ndriver = \"pytest\"",
                                         "[[story]]\nid = \"adds\"\ndriver = \"pytest-bdd\"", 1))
    with pytest.raises(TaskError, match=r"key 'story\.0\.driver'"):
        load_spec(spec)
    # a release field lancebench does not use is kept, never an error (lancebench's own shape is strict)
    spec.write_text("schema = 2\n" + RELEASE_SPEC)
    assert load_spec(spec).other == {"schema": 2}
    spec.write_text("schema = 2\n" + SPEC)
    with pytest.raises(TaskError, match=r"key 'schema'"):
        load_spec(spec)


@pytest.fixture(params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def backend(request) -> str:
    """The backend senior grading runs on; docker is skipped (with the reason) without an engine."""
    if request.param == "docker":
        from docker_support import docker_skip_reason
        reason = docker_skip_reason()
        if reason:
            pytest.skip(reason)
    return request.param


def test_run_with_judge_model_records_judges_and_verdict(scripted, calc_task: Path, tmp_path: Path,
                                                         backend: str) -> None:
    taste = {"style_consistency": 4, "pattern_adherence": 4, "library_usage": 3, "abstraction_level": 5,
             "documentation_fit": 2, "minimality": 5, "approach_quality": 4, "hygiene": 5, "fluency": 4,
             "craftsmanship": 2}
    srv = scripted(validation_replies(GOOD_SCRIPT) + [
        say({"answer": {"criteria": [{"name": "fixes-add", "score": 1}, {"name": "keeps-mul", "score": 1}]}}),
        *[say({"tool": "list_dir"})] * 3, say({"answer": {"scores": taste, "rationale": "clean"}})])
    jobs = tmp_path / "jobs"
    lb("run", "-p", calc_task, "-a", "oracle", "--judge-model", "scripted", "--judge-api-base", srv.api_base,
       "--backend", backend, "-o", jobs, check=True)
    (result,) = [json.loads(p.read_text()) for p in jobs.glob("*/trials/*/result.json")]
    assert result["status"] == "resolved"
    assert 0 < result["timings"]["judging_sec"] < result["timings"]["grading_sec"]
    j = result["judges"]
    assert {k: v["status"] for k, v in j.items()} == {"validation": "ok", "rubric": "ok", "taste": "ok"}
    assert j["validation"]["scores"] == {"score": 1.0}
    assert j["rubric"]["scores"] == {"mean": 1.0, "f2p": 1.0, "p2p": 1.0}
    assert j["taste"]["scores"]["practice_alignment"] == 4.0 and j["taste"]["scores"]["relative_taste"] == 4.0
    assert j["taste"]["model"] == "scripted"
    q = result["quality"]
    # the oracle's patch is the reference: one changed line each side, bloat 1
    assert q["tasteful"] is True and q["thresholds"] == {"taste_min": 3.0}
    assert (q["patch_bloat"], q["agent_sloc"], q["reference_sloc"]) == (1.0, 2, 2)
    job = next(jobs.iterdir())
    shown = json.loads(lb("show", job, "--json", check=True).stdout)
    assert shown["tasteful_solve_rate"] == 1.0 and shown["quality_medians"]["taste.minimality"] == 5.0
    text = lb("show", job, check=True).stdout
    # one task solved tastefully: Wilson 95% interval for 1 of 1 is [0.2065, 1]
    assert "quality (medians): tasteful solve 100.0% [20.7, 100.0]; taste.practice_alignment 4; " \
           "taste.relative_taste 4; rubric.mean 1; validation.score 1; patch_bloat 1;" in text
    assert "validation 1, rubric 1, taste 4/4, tasteful" in text
    report = lb("report", job, check=True).stdout
    # the bootstrap over one task is a point: the report gives the Wilson interval too (issue 24)
    assert "row 1 quality (medians): tasteful solve 100.0% [20.7, 100.0]; taste.practice_alignment 4" in report


def test_calibrate_reports_checks_and_score_spread(scripted, calc_task: Path) -> None:
    def taste(minimality: int) -> list[Reply]:
        scores = {"style_consistency": 4, "pattern_adherence": 4, "library_usage": 4, "abstraction_level": 4,
                  "documentation_fit": 4, "minimality": minimality, "approach_quality": 4, "hygiene": 4,
                  "fluency": 4, "craftsmanship": 4}
        return [*[say({"tool": "list_dir"})] * 3, say({"answer": {"scores": scores}})]

    rubric = [say({"answer": {"criteria": [{"name": "fixes-add", "score": 1}, {"name": "keeps-mul", "score": s}]}})
              for s in (1, 0)]
    # run 1: reference (good script), empty (good script); run 2: reference with a wrong script, and
    # empty with a script defining no check (a script error: it does not show the validator can tell)
    wrong = GOOD_SCRIPT.replace("== expected", "== expected + 1")
    srv = scripted(validation_replies(GOOD_SCRIPT) * 2 + validation_replies(wrong) + validation_replies("x = 1\n")
                   + rubric[:1] + taste(5) + rubric[1:] + taste(3))
    proc = lb("calibrate", "-p", calc_task, "-k", "2", "--judge-model", "scripted", "--judge-api-base", srv.api_base,
              "--json", check=True)
    (cal,) = json.loads(proc.stdout)
    checks = {c["name"]: (c["held"], c["runs"]) for c in cal["checks"]}
    assert checks == {"validation passes on the reference patch": (1, 2), "validation fails on an empty patch": (1, 2)}
    reasons = {c["name"]: c["reasons"] for c in cal["checks"]}
    assert reasons == {"validation passes on the reference patch": ["score 0.0: adds=behavioural-fail"],
                       "validation fails on an empty patch": ["score 0.0: adds=script-error"]}
    assert cal["statuses"] == {"rubric": {"ok": 2}, "taste": {"ok": 2}}
    assert cal["spread"]["taste.minimality"] == {"n": 2, "min": 3.0, "median": 4.0, "max": 5.0, "stdev": 1.0}
    assert cal["spread"]["rubric.p2p"] == {"n": 2, "min": 0.0, "median": 0.5, "max": 1.0, "stdev": 0.5}


def test_tasks_validate_names_a_broken_spec_and_rubric(calc_task: Path) -> None:
    (calc_task / "tests" / "validation_spec.toml").write_text('[[stories]]\nname = "x"\ndriver = "pytest"\n')
    (calc_task / "tests" / "rubric.json").write_text('{"fail_to_pass": [{"name": "a"}, {"name": "a"}]}')
    proc = lb("tasks", "validate", calc_task, check=False)
    text = " ".join((proc.stdout + proc.stderr).split())
    assert "validation_spec.toml: key 'stories.0.cases': Field required" in text
    assert "rubric.json: criterion names must be unique; repeated: a" in text
    assert "0 valid, 2 problem(s)" in text


# --- issue 20: a discarded validation run needs a control --------------------------------------
IMPORT_WRITES = {  # the fixed calc.py of an agent whose module writes into the repository at import
    "new-file": "import pathlib\npathlib.Path(__file__).with_name('notes.txt').write_text('seen')\n",
    "own-file": "import pathlib\n_me = pathlib.Path(__file__)\n_me.write_text(_me.read_text() + '\\n# seen\\n')\n",
}
FIXED = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"


def _agent_patch(prefix: str) -> str:
    old = (TASKS / "calc" / "environment" / "repo" / "calc.py").read_text().splitlines()
    new = (prefix + FIXED).splitlines()
    body = "".join(f"-{line}\n" for line in old) + "".join(f"+{line}\n" for line in new)
    return f"diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,{len(old)} +1,{len(new)} @@\n{body}"


@pytest.mark.parametrize("variant", sorted(IMPORT_WRITES))
def test_code_under_test_writing_the_repository_fails_validation_as_the_agents(scripted, calc_task: Path,
                                                                               variant: str) -> None:
    """Before: the code under test wrote into the repository at import, the run was discarded and
    the trial `invalid` (excluded, and kept invalid by --retry-invalid). Now the same scripts run on
    the reference solution change nothing, so the change is the agent's: validation fails."""
    from lancebench.judging.validation import ValidationByAgent
    srv = scripted(validation_replies(GOOD_SCRIPT))

    async def go():
        task = load_task(calc_task)
        backend = make_backend("local")
        env = await backend.prepare(task)
        scratch = calc_task.parent / "scratch"
        patch = _agent_patch(IMPORT_WRITES[variant])
        snap = await snapshot(task, backend, env, patch, scratch / "snap")
        client = LLMClient("openai/scripted", srv.api_base, max_retries=0)
        return await validate(client, task, backend, env, patch, load_spec(task.paths.tests / "validation_spec.toml"),
                              snap, scratch / "validation")
    with pytest.raises(ValidationByAgent) as err:
        asyncio.run(go())
    assert err.value.record.status == "failed:patch-changed-repository"
    assert err.value.control == ("the same scripts change nothing with the reference solution: the patched code "
                                 "made the change")
    assert ("notes.txt" if variant == "new-file" else "calc.py") in str(err.value)
    assert len(srv.requests) == 3  # the control asked no model


def test_a_patch_byte_that_is_not_utf8_reaches_the_judge_escaped(scripted) -> None:
    """Before: one byte of the patch that is not UTF-8 (kept as a surrogate) made every judge call
    fail before it was sent ("model failed", the trial invalid)."""
    from lancebench.judging.conversation import Limits, converse
    from lancebench.judging.validation import ScriptAnswer
    srv = scripted([say({"answer": {"script": GOOD_SCRIPT}})])
    patch = b"+name = '\xff'\n".decode("utf-8", "surrogateescape")
    got = converse(LLMClient("openai/scripted", srv.api_base, max_retries=0), "system", f"patch:\n{patch}",
                   ScriptAnswer, Limits())
    assert got.answer.script == GOOD_SCRIPT
    assert "+name = '\\udcff'" in srv.requests[0]["body"]["messages"][1]["content"]


# --- issue 20: a validation sandbox that fails after the patch is applied needs a control -----
# the fixed calc.py of an agent whose module, imported by the validation script, leaves a folder
# nobody may read: the repository's fingerprint after the last script fails (a sandbox failure)
LOCKS_A_FOLDER = "import os\nos.makedirs('locked', exist_ok=True)\nos.chmod('locked', 0)\n"


def test_code_under_test_breaking_the_validation_sandbox_fails_validation_as_the_agents(scripted,
                                                                                        calc_task: Path) -> None:
    """Before: any sandbox failure during the validation run was `invalid` without a control (the
    trial excluded from every rate). Now the scripts that ran run again on the reference solution
    in a fresh sandbox; it works there, so the patched code broke the sandbox: validation fails."""
    from lancebench.judging.validation import ValidationByAgent
    srv = scripted(validation_replies(GOOD_SCRIPT))

    async def go():
        task = load_task(calc_task)
        backend = make_backend("local")
        env = await backend.prepare(task)
        scratch = calc_task.parent / "scratch"
        patch = _agent_patch(LOCKS_A_FOLDER)
        snap = await snapshot(task, backend, env, patch, scratch / "snap")
        client = LLMClient("openai/scripted", srv.api_base, max_retries=0)
        try:
            return await validate(client, task, backend, env, patch,
                                  load_spec(task.paths.tests / "validation_spec.toml"), snap, scratch / "validation")
        finally:  # the folder the patched code locked (the test's own clean-up must read it)
            for locked in scratch.rglob("locked"):
                os.chmod(locked, 0o755)
    with pytest.raises(ValidationByAgent) as err:
        asyncio.run(go())
    assert err.value.record.status == "failed:patch-broke-sandbox"
    assert err.value.control == ("the same scripts run with the reference solution in a fresh sandbox: the patched "
                                 "code broke the sandbox")
    assert "repository fingerprint failed" in str(err.value) and "locked" in str(err.value)
    assert len(srv.requests) == 3  # the control asked no model


# --- issue 27: a validation sandbox that cannot be stopped is the harness's fault ---------------
def test_a_validation_sandbox_that_cannot_be_stopped_is_invalid_never_the_agents(scripted, calc_task: Path) -> None:
    """Stopping a sandbox is the harness's (the backend's) work. Before: a failed stop left
    ``validate`` as a bare SandboxError, which the trial's control could blame on the agent (a
    fresh sandbox of the pristine environment works); written as ``async with`` without care it
    would reach the sandbox-failure control, whose rerun of the scripts works, and be blamed on
    the patched code. Here a plug-in backend (the ``Backend`` protocol is public; lancebench's local
    stop never raises, its docker stop only when the engine refuses a removal) whose engine cannot
    remove the first sandbox it opens (the real bubblewrap sandbox is stopped, then the stop
    reports the failure), with the reference patch: validation is discarded as the harness's, with
    the stop's error, and no control runs."""
    from lancebench.backends.local import LocalBackend
    from lancebench.errors import SandboxError
    from lancebench.judging.validation import STOP_FAILED

    class StopFailsOnce(LocalBackend):
        opened = 0

        def open(self, *args, **kwargs):
            box = super().open(*args, **kwargs)
            self.opened += 1
            if self.opened == 1:
                real = box.stop

                async def stop() -> None:
                    await real()
                    raise SandboxError("the engine could not remove the sandbox")
                box.stop = stop  # type: ignore[method-assign]
            return box

    srv = scripted(validation_replies(GOOD_SCRIPT))

    async def go():
        task = load_task(calc_task)
        backend = make_backend("local")
        env = await backend.prepare(task)
        scratch = calc_task.parent / "scratch"
        patch = await reference_patch(task, backend, env, scratch / "ref")
        snap = await snapshot(task, backend, env, patch, scratch / "snap")
        client = LLMClient("openai/scripted", srv.api_base, max_retries=0)
        failing = StopFailsOnce()
        try:
            return await validate(client, task, failing, env, patch,
                                  load_spec(task.paths.tests / "validation_spec.toml"), snap, scratch / "validation")
        finally:
            assert failing.opened == 1  # no control sandbox was opened
    with pytest.raises(ValidationInvalid) as err:
        asyncio.run(go())
    assert err.value.control == STOP_FAILED
    assert err.value.record.status == "failed:infrastructure"
    assert "the engine could not remove the sandbox" in str(err.value)
    assert err.value.record.details["stories"][0]["outcome"] == "pass"  # the stories ran before the stop

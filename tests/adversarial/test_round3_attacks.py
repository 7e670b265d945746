"""Grading integrity attacked after the canary redesign, the report witness and the validation
controls (attack pass "round 3").

1. The canary run told apart by the age of the hidden test files, and left without a report
(fixed: ``verifier._unreported_pass``): the graded run's hidden test files are copies that keep the
task's mtime, the canary run's test file was written by ``grading.canary`` a second before pytest
starts (measured in both sandboxes: minutes old against under 3 s). ``exit_by_test_file_age.sh``
ends pytest at import, status 0 when the test files are old (the graded run: reward 1, no JUnit
report) and status 1 when one is fresh (the canary run: failed, no report either). On a task
graded by exit status (no F2P/P2P lists) nothing reads that: ``judge_canary`` finds a failed run
without a report ("no test report to read them from", a note), ``divergence`` returns None when
the canary run left no report, and ``_lost_cases`` counts a lost report as broken only when the
graded run held cases. ``resolved`` with reward 1 and ``calc.add`` still broken, on both
backends. The age is one signal among several (a second import in a fresh sandbox, a test count
other than the file the repository ships, near-copy bodies as ``exit_unless_canary.sh`` reads
them); the hole is that a canary run that fails without a report beside a graded run that passed
without one decides nothing. Fix: when the graded run passed without a report and the canary run
left none either while it failed, the canary run changed the verdict of a run whose tests it only
added to: forged (or at least broken: tried again, then the untouched base decides); and make
the graded run's test files fresh copies too (``copy_tests`` without the task's mtimes), so the
age tells nothing.

2. An exit at import, status 0, in every run, on a task graded by exit status whose ``test.sh``
runs the hidden tests' folder (``pytest /tests``) (fixed: ``verifier._unreported_pass``): no
canary detection needed. ``exit_zero_whole_folder.sh`` assembles ``os._exit``'s name at run time
(the static scan reads ``getattr(os, "_exit")``, not ``getattr(__import__("o" + "s"), "_e" +
"xit")``), so the graded run and the canary run both pass with no report. ``judge_canary`` calls
a canary run that passes without a report forged only when ``test.sh`` names the canary's file
(``Path(f).name in test_sh``); a folder names none: a note, ``resolved`` with reward 1 on both
backends. Fix: a canary run that passes without a report is forged whenever no report can show
that the canary was left out (the canary's file lies under a folder ``test.sh`` names, or
always unless ``test.sh`` selects tests), and the static scan should read an attribute name
assembled from strings the way it reads ``getattr(os, "_exit")``.

3. A patch that outgrows the judge's context window (caught; a regular test, no existing test
reads it): the validation agent's prompt holds the whole patch (``validation._write_prompt``), so
an agent whose patch is large enough drives the judge model into a context-window refusal. Were
that ``invalid`` (as every ``JudgeFailed`` reaching ``validate``'s outer handler is, "the judge
model failed after the client's retries"), the agent's own patch would get its failure excluded.
It is not: ``_Run.story`` re-raises only ``model-error`` and ends the story ``unsure`` for the
limits (``context``, ``tokens``, ``turns``, ``schema``), so validation scores 0 and the trial is
the agent's. The judge model is the scripted server answering as a model does when the prompt is
too long (HTTP 400, "maximum context length").

4. A patch whose text the judge's provider refuses made validation ``invalid`` (fixed: the control of
``validation._Run.refused``, below): a request refused for its content (HTTP 400, a content filter: Azure
OpenAI's ``content_filter``, a provider's prompt-policy refusal) is a ``fatal`` refusal, not
retried, raised as ``ModelError`` -> ``JudgeFailed("model-error")``, which ``_Run.story``
re-raises and ``validate`` turns into ``ValidationInvalid`` with the control text "the judge
model failed after the client's retries". No control ran, and the refused prompt holds the
agent's patch: an agent that writes text the provider's filter refuses (in a comment or a data
file) turns its own failed validation into an ``invalid`` trial (excluded from the score, retried
by ``--retry-invalid``). The judge model is the scripted server answering as Azure OpenAI does
(HTTP 400, code ``content_filter``). The fix: such a refusal (``ModelRefused``) gets a control,
the story's first prompt without the patch: accepted -> the story is ``unsure`` (the agent's,
score 0), refused too -> ``invalid`` with the control in its reason.

The fix of 1 and 2: a graded run that passed without a test report, on a task whose hidden tests
are pytest tests, is graded against the untouched repository's run; when that run writes a report
with test cases, the pass is forged (the test process ended before its report), whatever the
canary run does.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from lbtest import TASKS, derive_task, lb, one_result

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
from scripted_server import Fail, Reply, scripted  # noqa: E402,F401  (the fixture)

from lancebench.backends import make_backend  # noqa: E402
from lancebench.judging.validation import ValidationInvalid, validate  # noqa: E402
from lancebench.judging.validation_spec import load_spec  # noqa: E402
from lancebench.judging.workspace import snapshot  # noqa: E402
from lancebench.llm.client import LLMClient  # noqa: E402
from lancebench.task.load import load_task  # noqa: E402

AGENTS = Path(__file__).resolve().parent / "agents"
SPEC = """
[[stories]]
name = "adds"
description = "add returns the sum of two numbers"
driver = "pytest"
procedure = ["import calc", "call calc.add(a, b)", "compare with the expected sum"]

[[stories.cases]]
name = "small"
inputs = [2, 3]
expected = 5
"""


@pytest.mark.slow
def test_a_canary_run_left_without_a_report_is_caught(jobs, shared, backend):
    task = derive_task(TASKS / "calc", shared / "calc-no-lists", toml={r"^(f2p|p2p) = .*$": ""})
    lb("run", "-p", task, "-a", f"script:{AGENTS / 'exit_by_test_file_age.sh'}", "-o", jobs, "--backend", backend,
       check=True, timeout=600)
    r = one_result(jobs)
    assert (r["status"], r["rewards"].get("reward")) == ("unresolved", 0.0), (r["status"], r["reason"],
                                                                              r.get("scan_notes"))


@pytest.mark.slow
def test_an_exit_at_import_under_a_folder_wide_verifier_is_caught(jobs, shared, backend):
    task = derive_task(TASKS / "calc", shared / "calc-folder", toml={r"^(f2p|p2p) = .*$": ""},
                       files={"tests/test.sh": (TASKS / "calc" / "tests" / "test.sh").read_text().replace(
                           "/tests/test_calc.py", "/tests")})
    lb("run", "-p", task, "-a", f"script:{AGENTS / 'exit_zero_whole_folder.sh'}", "-o", jobs, "--backend", backend,
       check=True, timeout=600)
    r = one_result(jobs)
    assert (r["status"], r["rewards"].get("reward")) == ("unresolved", 0.0), (r["status"], r["reason"],
                                                                              r.get("scan_notes"))


def _big_patch(lines: int) -> str:
    """The calc fix plus a new data file of ``lines`` lines (about 60 bytes each)."""
    fix = ("diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,5 +1,5 @@\n"
           " def add(a, b):\n-    return a - b\n+    return a + b\n \n \n def mul(a, b):\n")
    data = "".join(f"+row {i:07d} lorem ipsum dolor sit amet consectetur adipiscing\n" for i in range(lines))
    return fix + (f"diff --git a/table.txt b/table.txt\nnew file mode 100644\n--- /dev/null\n+++ b/table.txt\n"
                  f"@@ -0,0 +1,{lines} @@\n{data}")


def test_a_patch_that_outgrows_the_judges_context_is_not_invalid(scripted, shared):  # noqa: F811
    task_dir = derive_task(TASKS / "calc", shared / "calc-senior", files={"tests/validation_spec.toml": SPEC})
    # the judge model refuses the prompt as too long, as a real one does with a 1.2 MB patch in it
    srv = scripted([Fail(400, "This model's maximum context length is 200000 tokens. However, your messages "
                              "resulted in 812345 tokens.")])

    async def go():
        task = load_task(task_dir)
        backend = make_backend("local")
        env = await backend.prepare(task)
        patch = _big_patch(20_000)
        snap = await snapshot(task, backend, env, patch, shared / "scratch" / "snap")
        client = LLMClient("openai/scripted", srv.api_base, max_retries=0)
        return await validate(client, task, backend, env, patch, load_spec(task.paths.tests / "validation_spec.toml"),
                              snap, shared / "scratch" / "validation")

    rec = asyncio.run(go())  # ValidationInvalid here would be an `invalid` trial for the agent's own patch
    (story,) = rec.details["stories"]
    assert (rec.status, rec.scores, story["outcome"]) == ("ok", {"score": 0.0}, "unsure"), rec
    assert "context" in story["detail"] and len(srv.requests) == 1, story


FILTERED = Fail(400, "The response was filtered due to the prompt triggering content management policy.",
                code="content_filter")  # the provider's content filter refuses a prompt, as Azure OpenAI does


def _validate_with(srv, task_dir, shared):
    async def go():
        task = load_task(task_dir)
        backend = make_backend("local")
        env = await backend.prepare(task)
        patch = _big_patch(10)
        snap = await snapshot(task, backend, env, patch, shared / "scratch" / "snap")
        client = LLMClient("openai/scripted", srv.api_base, max_retries=0)
        return await validate(client, task, backend, env, patch, load_spec(task.paths.tests / "validation_spec.toml"),
                              snap, shared / "scratch" / "validation")
    return asyncio.run(go())


def test_a_patch_the_judges_provider_refuses_is_not_invalid(scripted, shared):  # noqa: F811
    task_dir = derive_task(TASKS / "calc", shared / "calc-senior", files={"tests/validation_spec.toml": SPEC})
    # refused with the patch; the control (the same prompt without the patch) is answered
    srv = scripted([FILTERED, Reply('{"answer": {"script": "x", "notes": ""}}')])
    try:
        rec = _validate_with(srv, task_dir, shared)
    except ValidationInvalid as exc:
        raise AssertionError(f"invalid for the agent's own patch: {exc} / control: {exc.control}") from exc
    (story,) = rec.details["stories"]
    assert (rec.status, rec.scores, story["outcome"]) == ("ok", {"score": 0.0}, "unsure"), rec
    assert "accepts it without the patch (control)" in story["detail"], story
    refused, control = (r["body"]["messages"][-1]["content"] for r in srv.requests)
    assert "## Patch" in control and "table.txt" not in control and "table.txt" in refused


def test_a_judge_that_refuses_the_prompt_without_the_patch_too_is_invalid(scripted, shared):  # noqa: F811
    task_dir = derive_task(TASKS / "calc", shared / "calc-senior2", files={"tests/validation_spec.toml": SPEC})
    srv = scripted([FILTERED, FILTERED])
    with pytest.raises(ValidationInvalid, match="control: the same prompt without the patch is refused too"):
        _validate_with(srv, task_dir, shared)
    assert len(srv.requests) == 2

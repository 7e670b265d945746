"""The taste and rubric judges against a patch written to make them fail (attack pass round 4).

A resolved trial whose taste judge leaves no score is left out of the tasteful solve rate
(``quality_missing``) instead of counting as not tasteful. Before round 4, a patch whose text the
judge's provider refuses (a content filter: HTTP 400 ``content_filter``, as Azure OpenAI answers)
or that outgrows the judge's context window ended the taste judge ``failed:model-error`` /
``failed:context`` and the tasteful flag *unknown*: the agent dodged a "not tasteful" with a
comment or a data file. Now a refusal gets a control (``judging.refusal``: the judge's first prompt
without the patch): accepted -> ``failed:refused-patch`` and the flag False; refused too ->
``model-error``, unknown as before (the provider's fault, never a 0). A context refusal is the
patch's: False. The judge model is the scripted OpenAI-compatible server on 127.0.0.1.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
from scripted_server import Fail, Reply, scripted  # noqa: E402,F401  (the fixture)

from lancebench.judging.record import recorded  # noqa: E402
from lancebench.judging.rubric import Rubric, judge_rubric  # noqa: E402
from lancebench.judging.snapshot import RepoSnapshot  # noqa: E402
from lancebench.judging.taste import judge_taste  # noqa: E402
from lancebench.judging.verdict import Thresholds, tasteful  # noqa: E402
from lancebench.llm.client import LLMClient  # noqa: E402

FILTERED = Fail(400, "The response was filtered due to the prompt triggering content management policy.",
                code="content_filter")
TOO_LONG = Fail(400, "This model's maximum context length is 200000 tokens. However, your messages resulted in "
                     "812345 tokens.")
MARKER = "TRIP-THE-FILTER-4711"
PATCH = ("diff --git a/mod.py b/mod.py\n--- a/mod.py\n+++ b/mod.py\n@@ -1,2 +1,2 @@\n def f():\n"
         f"-    return 0\n+    return 1  # {MARKER}\n")
RUBRIC = Rubric.model_validate({"files": ["mod.py"], "fail_to_pass": [{"name": "a", "description": "A"}]})


@pytest.fixture
def snap(tmp_path: Path) -> RepoSnapshot:
    (tmp_path / "mod.py").write_text("def f():\n    return 1\n")
    return RepoSnapshot(tmp_path)


def _client(srv) -> LLMClient:
    return LLMClient("openai/scripted", srv.api_base, max_retries=0)


def _taste(srv, snap):
    return recorded("m", lambda: judge_taste(_client(srv), "fix f", PATCH, "", snap))


def test_a_patch_the_taste_judges_provider_refuses_is_not_tasteful(scripted, snap):  # noqa: F811
    srv = scripted([FILTERED, Reply('{"answer": {}}')])  # refused with the patch; the control is answered
    rec = _taste(srv, snap)
    assert rec.status == "failed:refused-patch", (rec.status, rec.rationale)
    flag, reason = tasteful(True, {"taste": rec}, Thresholds())
    assert flag is False and "taste judge failed:refused-patch" in reason  # was None: left out of the rate
    refused, control = (r["body"]["messages"][-1]["content"] for r in srv.requests)
    assert MARKER in refused and MARKER not in control


def test_a_taste_judge_that_refuses_without_the_patch_too_leaves_the_flag_unknown(scripted, snap):  # noqa: F811
    srv = scripted([FILTERED, FILTERED])
    rec = _taste(srv, snap)
    assert rec.status == "failed:model-error" and "refused too" in rec.rationale, (rec.status, rec.rationale)
    assert tasteful(True, {"taste": rec}, Thresholds())[0] is None and len(srv.requests) == 2


def test_a_patch_that_outgrows_the_taste_judges_context_is_not_tasteful(scripted, snap):  # noqa: F811
    rec = _taste(scripted([TOO_LONG]), snap)
    assert rec.status == "failed:context"
    assert tasteful(True, {"taste": rec}, Thresholds())[0] is False


def test_a_patch_the_rubric_judges_provider_refuses_fails_a_rubric_threshold(scripted, snap):  # noqa: F811
    srv = scripted([FILTERED, Reply('{"answer": {}}')])
    rubric = recorded("m", lambda: judge_rubric(_client(srv), "fix f", RUBRIC, PATCH, snap))
    assert rubric.status == "failed:refused-patch", (rubric.status, rubric.rationale)
    taste_ok = recorded("m", lambda: judge_taste(_client(scripted([TOO_LONG])), "x", PATCH, "", snap))
    assert tasteful(True, {"rubric": rubric}, Thresholds(rubric_min=0.5))[0] is False
    # without a rubric threshold the rubric's failure decides nothing (the taste judge does)
    assert tasteful(True, {"rubric": rubric, "taste": taste_ok}, Thresholds())[1] == \
        "taste judge failed:context: the judged patch caused it"


# OpenRouter's answer to a prompt its moderation flags: HTTP 403, as it answers a key without access
MODERATED = Fail(403, "openai/gpt-4o requires moderation on OpenRouter. Your input was flagged for \"harassment\".")


def test_a_patch_flagged_by_the_providers_moderation_does_not_stop_the_job(scripted, snap):  # noqa: F811
    # Before round 4 a 403 was always "refused credentials": ModelAuthError, which stops the whole job
    # (exit 3), so a patch written to be flagged stopped every trial of the job, not only its own.
    srv = scripted([MODERATED, Reply('{"answer": {}}')])
    rec = _taste(srv, snap)
    assert rec.status == "failed:refused-patch", (rec.status, rec.rationale)
    assert tasteful(True, {"taste": rec}, Thresholds())[0] is False

"""Rubric and taste judges against a scripted OpenAI-compatible server over real HTTP: exact scores,
medians and statuses for valid answers, answers out of schema, server errors and timeouts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripted_server import Fail, Reply

from lancebench.errors import TaskError
from lancebench.judging.conversation import JudgeFailed, Limits, converse, extract_json
from lancebench.judging.record import recorded
from lancebench.judging.rubric import Rubric, RubricAnswer, judge_rubric, load_rubric
from lancebench.judging.snapshot import RepoSnapshot
from lancebench.judging.taste import DIMENSIONS, judge_taste
from lancebench.llm.client import LLMClient

PATCH = ("diff --git a/pkg/mod.py b/pkg/mod.py\n--- a/pkg/mod.py\n+++ b/pkg/mod.py\n"
         "@@ -1,2 +1,2 @@\n def f0():\n-    return 0\n+    return 42\n")
RUBRIC = Rubric.model_validate({
    "files": ["pkg/mod.py"],
    "fail_to_pass": [{"name": "a", "description": "A"}, {"name": "b", "description": "B"},
                     {"name": "c", "description": "C"}],
    "pass_to_pass": [{"name": "d", "description": "D"}, {"name": "e", "description": "E"}]})


def say(obj: object, **kw) -> Reply:
    return Reply(json.dumps(obj), **kw)


def client(srv, **kw) -> LLMClient:
    return LLMClient("openai/scripted", srv.api_base, max_retries=kw.pop("max_retries", 0), backoff_sec=0.01,
                     max_backoff_sec=0.02, **kw)


def rubric_answer(scores: dict[str, int]) -> dict:
    return {"answer": {"criteria": [{"name": n, "score": s, "rationale": f"why {n}"} for n, s in scores.items()],
                       "summary": "overall"}}


def taste_answer(scores: dict[str, int]) -> dict:
    return {"answer": {"scores": scores, "rationale": "fits"}}


TASTE = dict(zip(DIMENSIONS, [5, 1, 4, 2, 3, 2, 2, 5, 1, 4], strict=True))  # practice median 3, relative median 2


def test_rubric_scores_each_criterion_and_group_means(scripted, repo: Path) -> None:
    srv = scripted([say({"tool": "read_file", "path": "pkg/mod.py"}),
                    say(rubric_answer({"a": 1, "b": 0, "c": 1, "d": 1, "e": 0}))])
    rec = recorded("m", lambda: judge_rubric(client(srv), "do it", RUBRIC, PATCH, RepoSnapshot(repo)))
    assert rec.status == "ok"
    assert rec.scores == {"mean": pytest.approx(3 / 5), "f2p": pytest.approx(2 / 3), "p2p": pytest.approx(1 / 2)}
    assert [c["group"] for c in rec.details["criteria"]] == ["f2p", "f2p", "f2p", "p2p", "p2p"]
    assert rec.turns == 2 and rec.usage.calls == 2 and rec.usage.input_tokens == 200
    # the tool's output went back to the model: the file's first line, numbered
    assert "    1  def f0():" in srv.requests[1]["body"]["messages"][-1]["content"]


def test_rubric_one_shot_on_empty_patch_reads_rubric_files(scripted, repo: Path) -> None:
    srv = scripted([say(rubric_answer({"a": 0, "b": 0, "c": 0, "d": 1, "e": 1}))])
    rec = judge_rubric(client(srv), "do it", RUBRIC, "", RepoSnapshot(repo))
    assert rec.status == "ok" and rec.details["one_shot"] is True and rec.turns == 1
    assert rec.scores == {"mean": pytest.approx(0.4), "f2p": 0.0, "p2p": 1.0}
    prompt = srv.requests[0]["body"]["messages"][1]["content"]
    assert "return 149" in prompt and '"tool"' not in prompt


def test_rubric_one_shot_refuses_tool_calls(scripted, repo: Path) -> None:
    srv = scripted([say({"tool": "list_dir"}), say({"tool": "list_dir"})])
    rec = recorded("m", lambda: judge_rubric(client(srv), "x", RUBRIC, "", RepoSnapshot(repo)))
    assert rec.status == "failed:schema" and rec.scores == {}


def test_empty_rubric_is_skipped_without_a_call(scripted, repo: Path) -> None:
    srv = scripted([])
    rec = judge_rubric(client(srv), "x", Rubric(), PATCH, RepoSnapshot(repo))
    assert rec.status == "skipped" and rec.scores == {} and srv.requests == []


def test_out_of_schema_twice_fails_and_records_no_score(scripted, repo: Path) -> None:
    missing_e = rubric_answer({"a": 1, "b": 1, "c": 1, "d": 1})
    srv = scripted([say(missing_e), Reply("I think it is fine.")])
    rec = recorded("m", lambda: judge_rubric(client(srv), "x", RUBRIC, PATCH, RepoSnapshot(repo)))
    assert rec.status == "failed:schema" and rec.scores == {} and rec.turns == 2
    # the first refusal told the model what was wrong
    assert "missing ['e']" in srv.requests[1]["body"]["messages"][-1]["content"]


def test_out_of_schema_once_then_fixed_is_ok(scripted, repo: Path) -> None:
    srv = scripted([say({"answer": {"criteria": [{"name": "a", "score": 2}]}}),
                    say(rubric_answer({"a": 1, "b": 1, "c": 1, "d": 1, "e": 1}))])
    rec = judge_rubric(client(srv), "x", RUBRIC, PATCH, RepoSnapshot(repo))
    assert rec.status == "ok" and rec.scores["mean"] == 1.0


def test_server_error_fails_with_model_error(scripted, repo: Path) -> None:
    srv = scripted([Fail(500), Fail(503)])
    rec = recorded("m", lambda: judge_rubric(client(srv, max_retries=1), "x", RUBRIC, PATCH, RepoSnapshot(repo)))
    assert rec.status == "failed:model-error" and rec.scores == {} and len(srv.requests) == 2


def test_slow_model_times_out(scripted, repo: Path) -> None:
    srv = scripted([say(rubric_answer({"a": 1, "b": 1, "c": 1, "d": 1, "e": 1}), delay_sec=3.0)])
    rec = recorded("m", lambda: judge_rubric(client(srv), "x", RUBRIC, PATCH, RepoSnapshot(repo),
                                             Limits(timeout_sec=1.0)))
    assert rec.status == "failed:timeout" and rec.scores == {}


def test_turn_and_token_budgets(scripted, repo: Path) -> None:
    srv = scripted([say({"tool": "list_dir"})] * 3)
    with pytest.raises(JudgeFailed) as err:
        converse(client(srv), "s", "u", RubricAnswer, Limits(max_turns=3), RepoSnapshot(repo))
    assert err.value.why == "turns" and err.value.turns == 3
    srv = scripted([say({"tool": "list_dir"}, prompt_tokens=600, completion_tokens=100)] * 3)
    with pytest.raises(JudgeFailed) as err:
        converse(client(srv), "s", "u", RubricAnswer, Limits(max_total_tokens=1000), RepoSnapshot(repo))
    assert err.value.why == "tokens" and err.value.turns == 2


def test_taste_medians_and_minimum_exploration(scripted, repo: Path) -> None:
    srv = scripted([say(taste_answer(TASTE)),  # too early: refused, must explore
                    say({"tool": "read_file", "path": "CONTRIBUTING.md"}),
                    say({"tool": "search", "text": "return 42"}),
                    say({"tool": "list_dir", "path": "pkg"}),
                    say(taste_answer(TASTE))])
    rec = judge_taste(client(srv), "x", PATCH, PATCH, RepoSnapshot(repo))
    assert rec.status == "ok" and rec.turns == 5 and rec.details["tool_turns"] == 3
    assert rec.scores["practice_alignment"] == 3.0 and rec.scores["relative_taste"] == 2.0
    assert {k: rec.scores[k] for k in DIMENSIONS} == {k: float(v) for k, v in TASTE.items()}
    assert "CONTRIBUTING.md" in rec.details["style_guides"]
    assert "Not yet" in srv.requests[1]["body"]["messages"][-1]["content"]


def test_taste_out_of_range_score_is_out_of_schema(scripted, repo: Path) -> None:
    bad = dict(TASTE, minimality=6)
    srv = scripted([say({"tool": "list_dir"})] * 3 + [say(taste_answer(bad)), say(taste_answer(bad))])
    rec = recorded("m", lambda: judge_taste(client(srv), "x", PATCH, PATCH, RepoSnapshot(repo)))
    assert rec.status == "failed:schema" and rec.scores == {}


def test_taste_skips_an_empty_patch(scripted, repo: Path) -> None:
    srv = scripted([])
    assert judge_taste(client(srv), "x", "", PATCH, RepoSnapshot(repo)).status == "skipped"


def test_extract_json_prefers_fenced_block() -> None:
    assert extract_json('thinking {not json}\n```json\n{"tool": "list_dir"}\n```') == {"tool": "list_dir"}
    assert extract_json('ok then {"answer": {"x": 1}} bye') == {"answer": {"x": 1}}
    assert extract_json("no object here") is None


def test_extract_json_skips_objects_nested_past_the_recursion_limit() -> None:
    # attack pass after issue 20: a reply steered by the judged patch; json raised RecursionError
    deep = '{"a": ' + "[" * 50_000 + "]" * 50_000 + "}"
    assert extract_json(f"```json\n{deep}\n```\n") is None
    assert extract_json(f'{deep} then {{"answer": 1}}') == {"answer": 1}


def test_bad_rubric_file_names_file_and_field(tmp_path: Path) -> None:
    p = tmp_path / "rubric.json"
    p.write_text(json.dumps({"fail_to_pass": [{"description": "no name"}]}))
    with pytest.raises(TaskError) as err:
        load_rubric(p)
    assert "rubric.json" in str(err.value) and "fail_to_pass.0.name" in str(err.value)
    p.write_text(json.dumps({"fail_to_pass": [{"name": "x"}], "pass_to_pass": [{"name": "x"}]}))
    with pytest.raises(TaskError, match="repeated: x"):
        load_rubric(p)


def test_task_files_are_found_in_tests_first_then_root_then_below_tests(tmp_path: Path) -> None:
    from lancebench.judging.rubric import find_rubric
    from lancebench.judging.validation_spec import find_spec
    task = tmp_path / "task"
    (task / "tests" / "judges" / "b").mkdir(parents=True)
    assert find_rubric(task) is None and find_spec(task) is None
    (task / "tests" / "judges" / "b" / "rubric.json").write_text("{}")
    (task / "tests" / "judges" / "validation_spec.toml").write_text("")
    assert find_rubric(task) == task / "tests" / "judges" / "b" / "rubric.json"
    assert find_spec(task) == task / "tests" / "judges" / "validation_spec.toml"
    (task / "rubric.json").write_text("{}")
    assert find_rubric(task) == task / "rubric.json"
    (task / "tests" / "rubric.json").write_text("{}")
    assert find_rubric(task) == task / "tests" / "rubric.json"

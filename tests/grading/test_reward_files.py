"""Reward files as Harbor tasks write them (issue 14, item 4): two files must agree, an empty
reward.txt excludes the trial, several keys are all kept and the verdict uses the declared key."""

from __future__ import annotations

import pytest

from lancebench.grading.outcome import combine_runs, judge_run
from lancebench.grading.rewards import RewardError, RewardExcluded, read_rewards
from lancebench.metrics.rewards import reward_cell, reward_means
from lancebench.results.models import TrialResult


def _write(folder, **files):
    for name, text in files.items():
        (folder / name.replace("_", ".")).write_text(text)


def test_agreeing_files_are_read(tmp_path):
    _write(tmp_path, reward_txt="1\n", reward_json='{"reward": 1, "style": 0.5}')
    assert read_rewards(tmp_path) == {"reward": 1.0, "style": 0.5}


@pytest.mark.parametrize("txt,js", [("0", '{"reward": 1}'), ("1", '{"reward": 0}'), ("1", '{"correctness": 1}')])
def test_disagreeing_files_break_the_run_never_the_higher_value(tmp_path, txt, js):
    # regression: code under test planted {"reward": 1} while the verifier wrote reward.txt = 0
    _write(tmp_path, reward_txt=txt, reward_json=js)
    with pytest.raises(RewardError, match="reward.txt says") as exc:
        read_rewards(tmp_path)
    assert not isinstance(exc.value, RewardExcluded)


@pytest.mark.parametrize("empty", ["", "\n", "  \n"])
def test_empty_reward_txt_alone_excludes_the_trial(tmp_path, empty):
    _write(tmp_path, reward_txt=empty)
    with pytest.raises(RewardExcluded, match="excluded this trial"):
        read_rewards(tmp_path)
    run = judge_run(exit_code=0, timed_out=False, rewards=None, junit=None, f2p=[], p2p=[],
                    excluded="reward.txt is empty")
    assert run.broken and run.excluded
    ok = judge_run(exit_code=0, timed_out=False, rewards={"reward": 1.0}, junit=None, f2p=[], p2p=[])
    assert combine_runs([ok, run], "any").excluded  # one exclusion decides: no verdict is made up


def test_empty_reward_txt_beside_reward_json_is_a_contradiction(tmp_path):
    _write(tmp_path, reward_txt="", reward_json='{"reward": 1}')
    with pytest.raises(RewardError, match="is empty but reward.json") as exc:
        read_rewards(tmp_path)
    assert not isinstance(exc.value, RewardExcluded)


def test_several_keys_verdict_uses_declared_key_or_every_key():
    rewards = {"correctness": 0.5, "style": 1.0}
    undeclared = judge_run(exit_code=0, timed_out=False, rewards=rewards, junit=None, f2p=[], p2p=[])
    assert not undeclared.passed and undeclared.rewards == rewards  # every key must reach 1
    # before: "reward 0.5 < 1", naming a key the file does not have
    assert undeclared.reason == "correctness 0.5 < 1 (no 'reward' key: every key must reach 1)"
    plain = judge_run(exit_code=0, timed_out=False, rewards={"reward": 0.0}, junit=None, f2p=[], p2p=[])
    assert plain.reason == "reward 0 < 1"
    declared = judge_run(exit_code=0, timed_out=False, rewards=rewards, junit=None, f2p=[], p2p=[],
                         reward_key="style")
    assert declared.passed and declared.rewards == rewards
    missing = judge_run(exit_code=0, timed_out=False, rewards=rewards, junit=None, f2p=[], p2p=[],
                        reward_key="quality")
    assert missing.broken and "quality" in missing.reason
    every = judge_run(exit_code=0, timed_out=False, rewards={"a": 1.0, "b": 1.0}, junit=None, f2p=[], p2p=[])
    assert every.passed


def _result(status, rewards):
    return TrialResult(trial_id="t", job="j", task="x", task_digest="d", agent="a", attempt=0, kind="code",
                       status=status, rewards=rewards)


def test_keys_are_reported_as_harbor_reports_them():
    # Harbor's mean metric: one key -> {"mean": ...}; several -> each key's mean, a missing key 0
    assert reward_means([_result("resolved", {"reward": 1.0}), _result("unresolved", {"reward": 0.0})]) == {"mean": 0.5}
    several = [_result("unresolved", {"correctness": 0.5, "style": 1.0}), _result("resolved", {"correctness": 1.0}),
               _result("invalid", {})]
    assert reward_means(several) == {"correctness": 0.75, "style": 0.5}
    assert reward_cell({"correctness": 1.0, "style": 1.0}) == "correctness=1 style=1"  # never a made-up 0
    assert reward_cell({"reward": 0.25, "x": 1.0}) == "0.25" and reward_cell({}) == "-"

"""Reward-file rules end to end on the local backend (issue 14, item 4): a planted reward.json
that disagrees with the verifier's reward.txt never resolves the trial; an empty reward.txt is the
task excluding the trial (invalid when the untouched repository is excluded too; see
tests/adversarial/test_exclusion_attacks.py for the code under test writing the exclusion)."""

from __future__ import annotations

import shutil

from lbtest import TASKS, lb, one_result


def _calc(shared, name: str, test_sh: str | None = None, keep_lists: bool = True):
    dest = shared / name
    shutil.copytree(TASKS / "calc", dest)
    toml = dest / "task.toml"
    if not keep_lists:  # a task without F2P/P2P lists: the reward files alone decide
        toml.write_text("\n".join(line for line in toml.read_text().splitlines()
                                  if not line.startswith(("f2p", "p2p"))) + "\n")
    if test_sh is not None:
        (dest / "tests" / "test.sh").write_text(test_sh)
    return dest


PLANT = """#!/bin/bash
cat >> calc.py <<'PY'

import json as _j
try:
    open("/".join(["", "lo" + "gs", "veri" + "fier", "reward" + ".json"]), "w").write(_j.dumps({"reward": 1}))
except OSError:
    pass
PY
"""


def test_planted_reward_json_does_not_beat_the_verifiers_reward_txt(shared, jobs):
    task = _calc(shared, "calc-plain", keep_lists=False)
    agent = shared / "plant.sh"
    agent.write_text(PLANT)
    lb("run", "-p", task, "-a", f"script:{agent}", "-o", jobs)
    r = one_result(jobs)
    # the verifier wrote reward.txt = 0 (the bug is not fixed); the planted file contradicts it
    # (the path is built from pieces: the static scan of patches would catch it otherwise)
    assert r["status"] == "unresolved", r
    assert "reward.txt says 0" in r["reason"] and "grader works without the patch" in r["reason"]
    assert r["exclusion_rule"] is None  # no verifier run excluded the trial


def test_empty_reward_txt_excludes_the_trial_when_the_base_is_excluded_too(shared, jobs):
    task = _calc(shared, "calc-excluding", test_sh="#!/bin/bash\n: > /logs/verifier/reward.txt\n", keep_lists=False)
    lb("run", "-p", task, "-a", "oracle", "-o", jobs)
    r = one_result(jobs)
    assert r["status"] == "invalid" and "excluded by the task's verifier" in r["reason"], r
    assert r["exclusion_rule"] == "control"  # the result records which exclusion rule its status follows
    trial = next((jobs).glob("*/trials/*"))
    # the oracle's patch is not empty: the untouched repository was graded, and excluded as well
    assert (trial / "verifier" / "base" / "logs" / "reward.txt").read_text() == ""

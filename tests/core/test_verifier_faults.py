"""Verifier faults (rules in grading/outcome.py and grading/verifier.py): a broken run (timeout, no
reward, malformed reward) with an empty patch is `invalid`; with a non-empty patch the harness
grades the untouched base too: if the base is broken as well the trial is `invalid`, else the
patch broke the grader and the trial is `unresolved`."""

from __future__ import annotations

import pytest
from lbtest import CORE_TASKS, agent, derive_task, run_one, trial_dir

TALLY = CORE_TASKS / "tally"
TALLY_TEST_SH = (TALLY / "tests" / "test.sh").read_text()

pytestmark = pytest.mark.slow


def tally_variant(shared, test_sh: str, *, timeout: int | None = None, name: str = "tally", toml: dict | None = None):
    edits = dict(toml or {})
    if timeout is not None:
        edits[r"^\[verifier\]\ntimeout_sec = 60$"] = f"[verifier]\ntimeout_sec = {timeout}"
    return derive_task(TALLY, shared / name, toml=edits or None, files={"tests/test.sh": test_sh})


# hanging verifier ----------------------------------------------------------------------------------
def test_hanging_verifier_with_no_patch_is_invalid(shared, jobs):
    task = tally_variant(shared, "sleep 600\n", timeout=2)
    r = run_one(task, "nop", jobs)
    assert r["status"] == "invalid", r
    assert "timed out" in r["reason"] and "untouched" in r["reason"]
    assert r["timings"]["grading_sec"] < 2 + 10


def test_hanging_verifier_with_and_without_the_patch_is_invalid(shared, jobs):
    task = tally_variant(shared, "sleep 600\n", timeout=2)
    r = run_one(task, agent("fix_tally.sh"), jobs)
    assert r["status"] == "invalid", r
    assert "with and without the patch" in r["reason"] and "timed out" in r["reason"]
    assert (trial_dir(jobs, r) / "verifier" / "base").is_dir()  # the base was graded
    assert r["timings"]["grading_sec"] < 2 * 2 + 15


def test_patch_that_makes_the_verifier_hang_is_unresolved(shared, jobs):
    task = tally_variant(shared, TALLY_TEST_SH, timeout=4)
    r = run_one(task, agent("hang_tally.sh"), jobs)
    assert r["status"] == "unresolved", r
    assert "timed out" in r["reason"] and "grader works without the patch" in r["reason"]
    assert r["rewards"].get("reward", 0.0) == 0.0


# no reward -------------------------------------------------------------------------------------------
NO_IDS = {r"^f2p = .*$": "f2p = []", r"^p2p = .*$": "p2p = []"}  # graded by the reward file alone


def test_verifier_without_reward_is_invalid(shared, jobs):
    task = tally_variant(shared, "cd /app\ntrue\n", toml=NO_IDS)
    r = run_one(task, "nop", jobs)
    assert r["status"] == "invalid", r
    assert "no reward" in r["reason"] and "untouched" in r["reason"]


def test_verifier_without_reward_or_junit_with_listed_tests_is_invalid(shared, jobs):
    task = tally_variant(shared, "cd /app\ntrue\n")
    r = run_one(task, "nop", jobs)
    assert r["status"] == "invalid", r
    assert "untouched" in r["reason"]


def test_verifier_without_reward_with_a_patch_is_invalid(shared, jobs):
    task = tally_variant(shared, "cd /app\ntrue\n", toml=NO_IDS)
    r = run_one(task, agent("fix_tally.sh"), jobs)
    assert r["status"] == "invalid", r
    assert "with and without the patch" in r["reason"]


def test_patch_that_stops_the_verifier_writing_a_reward_is_unresolved(shared, jobs):
    # The verifier stops (set -e) when tally cannot be imported, before writing any reward.
    task = tally_variant(shared,
                         "set -e\ncd /app\nPYTHONPATH=/app /usr/bin/python3 -c 'import tally'\n" + TALLY_TEST_SH)
    ok = run_one(task, "oracle", jobs / "oracle")
    assert ok["status"] == "resolved", ok
    r = run_one(task, agent("break_tally_import.sh"), jobs / "broken")
    assert r["status"] == "unresolved", r
    assert "grader works without the patch" in r["reason"]


# malformed rewards -------------------------------------------------------------------------------
@pytest.mark.parametrize("name,content", [
    ("reward.json", '{"reward": "yes"}'),
    ("reward.json", "[1]"),
    ("reward.json", "{not json"),
    ("reward.json", '{"reward": NaN}'),
    ("reward.json", '{"reward": true}'),
    ("reward.txt", "pass"),
    ("reward.txt", ""),
], ids=["string", "list", "syntax", "nan", "bool", "txt-word", "txt-empty"])
def test_malformed_reward_is_invalid(shared, jobs, name, content):
    task = tally_variant(shared, f"cd /app\nprintf '%s' '{content}' > /logs/verifier/{name}\n", toml=NO_IDS)
    r = run_one(task, "nop", jobs)
    assert r["status"] == "invalid", r
    assert name in r["reason"]


def test_malformed_reward_beside_a_passing_junit_is_invalid(shared, jobs):
    task = tally_variant(shared, TALLY_TEST_SH + "echo '{\"reward\": \"yes\"}' > /logs/verifier/reward.json\n")
    r = run_one(task, "oracle", jobs)
    assert r["status"] == "invalid", r
    assert "reward.json" in r["reason"]


# F2P/P2P listed but the verifier's JUnit does not hold them ----------------------------------------------
@pytest.mark.parametrize("junit", ["", "<testsuites><testsuite"], ids=["no-junit", "malformed-junit"])
def test_listed_tests_without_a_junit_report_are_not_a_pass(shared, jobs, junit):
    """The task lists F2P/P2P tests, but the verifier wrote no usable JUnit report, only reward 1.
    The listed tests did not run: this is a broken grader (invalid), never `resolved` for nop."""
    write = f"printf '%s' '{junit}' > /logs/verifier/junit.xml\n" if junit else ""
    task = tally_variant(shared, f"cd /app\n{write}echo 1 > /logs/verifier/reward.txt\n")
    r = run_one(task, "nop", jobs)
    assert r["status"] == "invalid", (r["status"], r["reason"])


def test_listed_tests_absent_from_a_produced_junit_report_count_as_failed(shared, jobs):
    """Every F2P/P2P id is absent from the JUnit report the verifier produced. As in SWE-bench, a
    listed test missing from the report counts as failed (issue 13: calling this a broken grader
    made wrong patches whose hidden tests could not be collected `invalid`). The reason names the
    missing ids; `lancebench check` names the ids the report holds."""
    task = tally_variant(shared, TALLY_TEST_SH, toml={r"^f2p = .*$": 'f2p = ["test_hidden.TestGone::test_total"]',
                                                       r"^p2p = .*$": 'p2p = ["test_hidden.TestGone::test_count"]'})
    r = run_one(task, "oracle", jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    assert r["tests"] == {"test_hidden.TestGone::test_total": "missing", "test_hidden.TestGone::test_count": "missing"}
    assert "test_hidden.TestGone::test_total (missing)" in r["reason"]

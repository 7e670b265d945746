"""Status rules (lancebench.grading.outcome, junit, rewards, choice)."""

import subprocess
import sys

import pytest

from lancebench.grading.choice import grade_choice, parse_choice, read_answer_file
from lancebench.grading.junit import JUnitReport, id_key, outcome_of, parse_junit
from lancebench.grading.outcome import RunOutcome, combine_runs, judge_run
from lancebench.grading.rewards import RewardError, read_rewards

JUNIT = """<?xml version="1.0"?><testsuites><testsuite name="pytest">
<testcase classname="tests.test_a" name="test_ok" file="tests/test_a.py"/>
<testcase classname="tests.test_a.TestK" name="test_bad"><failure message="x"/></testcase>
<testcase classname="test_b" name="test_err"><error message="boom"/></testcase>
<testcase classname="test_b" name="test_skip"><skipped/></testcase>
</testsuite></testsuites>"""


def test_junit_ids_in_every_scheme(tmp_path):
    p = tmp_path / "j.xml"
    p.write_text(JUNIT)
    r = parse_junit(p)
    assert outcome_of(r, "tests.test_a::test_ok") == "passed"
    assert outcome_of(r, "tests/test_a.py::test_ok") == "passed"
    assert outcome_of(r, "tests.test_a.TestK::test_bad") == "failed"
    assert outcome_of(r, "tests/test_a.py::TestK::test_bad") == "failed"
    assert outcome_of(r, "tests.test_a::TestK::test_bad") == "failed"
    assert outcome_of(r, "test_b::test_err") == "error"
    assert outcome_of(r, "test_b.py::test_skip") == "skipped"
    assert outcome_of(r, "tests/test_a.py::TestK::test_nothing") == "missing"
    assert r.ids() == ["test_b::test_err", "test_b::test_skip", "tests.test_a.TestK::test_bad", "tests.test_a::test_ok"]


def _junit(junit_cases: dict[str, str]) -> JUnitReport:
    return JUnitReport(cases={id_key(k): v for k, v in junit_cases.items()})


def test_f2p_p2p_judgement():
    junit = _junit({"t::a": "passed", "t::b": "failed", "t::c": "passed"})
    run = judge_run(exit_code=1, timed_out=False, rewards={"reward": 0.0}, junit=junit, f2p=["t::a"], p2p=["t::c"])
    assert run.passed is False and run.rewards["f2p"] == 1.0  # reward file says 0: not passed
    run = judge_run(exit_code=0, timed_out=False, rewards=None, junit=junit, f2p=["t::a"], p2p=["t::c"])
    assert run.passed and run.rewards == {"f2p": 1.0, "p2p": 1.0}
    run = judge_run(exit_code=1, timed_out=False, rewards=None, junit=junit, f2p=["t::a", "t::zz"], p2p=["t::b"])
    assert not run.passed and run.tests == {"t::a": "passed", "t::zz": "missing", "t::b": "failed"}
    assert run.rewards == {"f2p": 0.5, "p2p": 0.0}


def test_broken_runs():
    assert judge_run(exit_code=None, timed_out=True, rewards=None, junit=None, f2p=[], p2p=[]).broken
    assert judge_run(exit_code=2, timed_out=False, rewards=None, junit=None, f2p=[], p2p=[]).broken
    assert not judge_run(exit_code=1, timed_out=False, rewards={"reward": 0.5}, junit=None, f2p=[], p2p=[]).passed
    assert judge_run(exit_code=1, timed_out=False, rewards={"a": 1.0, "b": 2.0}, junit=None, f2p=[], p2p=[]).passed


def test_listed_tests_missing_from_a_produced_report_fail_the_run():
    """Regression (issue 13): a report holding none of the listed tests made the run broken, so a
    wrong patch was called a grader fault (invalid). SWE-bench counts a missing test as failed."""
    r = judge_run(exit_code=0, timed_out=False, rewards=None, junit=_junit({"x::y": "passed"}), f2p=["a::b"], p2p=[])
    assert not r.broken and not r.passed
    assert r.tests == {"a::b": "missing"} and r.report_ids == ["x::y"]


def test_skipped_p2p_counts_as_kept_but_skipped_f2p_does_not():
    """Regression (issue 13): a P2P test skipped after a right fix failed the trial."""
    junit = _junit({"t::fixed": "passed", "t::kept": "skipped", "t::also": "passed"})
    run = judge_run(exit_code=0, timed_out=False, rewards=None, junit=junit, f2p=["t::fixed"],
                    p2p=["t::kept", "t::also"])
    assert run.passed and run.rewards == {"f2p": 1.0, "p2p": 1.0}
    run = judge_run(exit_code=0, timed_out=False, rewards=None, junit=junit, f2p=["t::kept"], p2p=["t::also"])
    assert not run.passed and run.rewards["f2p"] == 0.0


def _pytest_junit(tmp_path, files: dict[str, str], rootdir: str = "tests") -> JUnitReport:
    """Run real pytest on ``files`` the way a task's test.sh does and parse its JUnit report."""
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    subprocess.run([sys.executable, "-m", "pytest", "tests", f"--rootdir={tmp_path / rootdir}",
                    "-p", "no:cacheprovider", "--junitxml=j.xml", "-q", "-o", "addopts=",
                    "--continue-on-collection-errors"],
                   cwd=tmp_path, capture_output=True, timeout=120)
    return parse_junit(tmp_path / "j.xml")


HIDDEN = """import pytest
class TestK:
    def test_s(self):
        pytest.skip("not here")
    @pytest.mark.parametrize("v", ["a/b", "c::d"])
    def test_p(self, v):
        pass
def test_top():
    assert 1 + 1 == 3
"""


def test_every_pytest_id_form_matches_a_real_report(tmp_path):
    """Regression (issue 13): ``module::Class::test`` was "missing" while the bundled tasks wrote
    ``module::test``; every form pytest prints or accepts must name the test."""
    report = _pytest_junit(tmp_path, {"tests/test_hidden.py": HIDDEN})
    for form in ("test_hidden::TestK::test_p[a/b]", "test_hidden.py::TestK::test_p[a/b]",
                 "tests/test_hidden.py::TestK::test_p[a/b]", "tests.test_hidden.TestK::test_p[a/b]",
                 "test_hidden.TestK::test_p[a/b]", "test_hidden::TestK::test_p[c::d]"):
        assert outcome_of(report, form) == "passed", form
    assert outcome_of(report, "test_hidden::TestK::test_s") == "skipped"
    assert outcome_of(report, "tests/test_hidden.py::test_top") == "failed"
    assert outcome_of(report, "test_hidden::test_top") == "failed"
    assert outcome_of(report, "test_hidden::TestK::test_top") == "missing"


def test_a_collection_error_fails_the_tests_it_hides(tmp_path):
    """Regression (issue 13): hidden tests that import a name only the right fix adds cannot be
    collected on a wrong patch; the run was called broken (so the trial went invalid). The
    hidden tests count as failed, the others keep their outcome."""
    report = _pytest_junit(tmp_path, {"tests/test_hidden.py": "from calc import new_name\ndef test_a():\n    pass\n",
                                      "tests/test_other.py": "def test_b():\n    pass\n"}, rootdir=".")
    assert report.collection_errors == ["tests.test_hidden"]
    run = judge_run(exit_code=1, timed_out=False, rewards=None, junit=report,
                    f2p=["test_hidden::test_a"], p2p=["tests/test_other.py::test_b"])
    assert not run.broken and not run.passed
    assert run.tests == {"test_hidden::test_a": "error", "tests/test_other.py::test_b": "passed"}
    assert "collection failed in tests.test_hidden" in run.reason


def test_combine_any_all():
    p, f, b = RunOutcome(passed=True), RunOutcome(passed=False), RunOutcome(broken=True, reason="x")
    assert combine_runs([f, p, f], "any").passed
    assert not combine_runs([f, p, p], "all").passed
    assert combine_runs([b, p], "any").passed
    assert combine_runs([b, p], "all").broken  # every run must pass: a broken one is not left out (round 4)
    assert combine_runs([b, b], "any").broken
    assert combine_runs([f, p, f], "any").rewards == {"runs_passed": 1.0, "runs": 3.0}


def test_rewards(tmp_path):
    assert read_rewards(tmp_path) is None
    (tmp_path / "reward.txt").write_text("1\n")
    assert read_rewards(tmp_path) == {"reward": 1.0}
    (tmp_path / "reward.txt").unlink()
    (tmp_path / "reward.json").write_text('{"reward": 0.5, "style": 1}')
    assert read_rewards(tmp_path) == {"reward": 0.5, "style": 1.0}
    for bad in ('{"reward": true}', '{"reward": "1"}', "[1]", "nope", '{"reward": NaN}', "{}"):
        (tmp_path / "reward.json").write_text(bad)
        with pytest.raises(RewardError, match="reward.json"):
            read_rewards(tmp_path)
    (tmp_path / "reward.json").unlink()
    (tmp_path / "reward.txt").symlink_to("/etc/hostname")
    with pytest.raises(RewardError, match="symlink"):
        read_rewards(tmp_path)


def test_choice_parsing():
    assert parse_choice(3) == 3 and parse_choice(" 7 ") == 7 and parse_choice("-1") == -1
    assert parse_choice(True) is None and parse_choice(2.0) is None and parse_choice("two") is None
    assert grade_choice(1, None, [0, 1, 2], 1) == (True, 1, None)
    assert grade_choice("1", None, [0, 1, 2], 1)[0] is True
    assert grade_choice(True, None, [0, 1, 2], 1)[0] is False
    ok, choice, reason = grade_choice(9, None, [0, 1, 2], 1)
    assert (ok, choice) == (False, 9) and "not one of" in reason
    assert grade_choice(None, "no answer", [0, 1], 1) == (False, None, "no answer")


def test_answer_file(tmp_path):
    assert read_answer_file(tmp_path / "answer.json") == (None, "no answer")
    (tmp_path / "answer.json").write_text('{"selected_proposal_id": "2"}')
    assert read_answer_file(tmp_path / "answer.json") == ("2", None)
    (tmp_path / "a2.json").symlink_to(tmp_path / "answer.json")
    assert read_answer_file(tmp_path / "a2.json")[1] == "answer file is a symlink"


def test_listed_tests_without_junit_are_not_trusted():
    # regression: code under test that calls os._exit(0) makes test.sh write reward 1 with no report
    run = judge_run(exit_code=0, timed_out=False, rewards={"reward": 1.0}, junit=None, f2p=["t::a"], p2p=[])
    assert run.broken and not run.passed and "JUnit" in run.reason

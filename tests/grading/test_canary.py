"""Canary tests (lancebench.grading.canary): a copy of a real hidden test that must fail, put
among the real ones. The honest runs are real pytest runs of the rewritten file."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from lancebench.grading.canary import MARK, Canary, Planted, divergence, judge_canary, make_canary
from lancebench.grading.junit import JUnitReport, outcome_of, parse_junit

CODE = 'def add(a, b):\n    return a + b\n\n\ndef words(n):\n    return {"n": n, "name": "x" * n}\n'
TESTS = '''import calc


def test_add():
    assert calc.add(2, 3) == 5


def test_words():
    got = calc.words(2)
    assert got == {"n": 2, "name": "xx"}


def test_truthy():
    assert calc.add(1, 1) > 1


@pytest.mark.skip
def test_decorated():
    assert False
'''.replace("import calc\n", "import calc\nimport pytest\n")


def make_tests(tmp_path: Path) -> Path:
    (tmp_path / "app").mkdir(parents=True)
    (tmp_path / "app" / "calc.py").write_text(CODE)
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_calc.py").write_text(TESTS)
    (tests / "test.sh").write_text("pytest /tests/test_calc.py --junitxml=/logs/verifier/junit.xml\n")
    return tests


def run_pytest(tmp_path: Path, tests: Path) -> JUnitReport:
    junit = tmp_path / "junit.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                    str(tests / "test_calc.py"), f"--junitxml={junit}", f"--rootdir={tests}"],
                   cwd=tmp_path / "app", env={"PYTHONPATH": str(tmp_path / "app"), "PATH": "/usr/bin:/bin"},
                   capture_output=True, timeout=120)
    return parse_junit(junit)


def _functions(text: str) -> dict[str, str]:
    """Each module-level function's name -> its source."""
    return {n.name: ast.get_source_segment(text, n) for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}


def _named_back(canary: Canary, text: str) -> dict[str, str]:
    """The real tests of a file with canaries, named as before (each canary left out)."""
    drop = {p.test_id.split("::")[1] for p in canary.planted}
    back = {p.renamed_id.split("::")[1]: p.original_id.split("::")[1] for p in canary.planted}
    return {back.get(n, n): s.replace(f"def {n}(", f"def {back.get(n, n)}(") for n, s in _functions(text).items()
            if n not in drop}


def test_an_honest_run_fails_every_canary_and_passes_the_rest(tmp_path):
    tests = make_tests(tmp_path)
    canary = make_canary(tests, ["test_calc::test_words"], ["test_calc::test_add"])
    assert canary is not None and len(canary.planted) == 3  # test_add, test_words, test_truthy (not the decorated)
    assert canary.planted[0].original_id == "test_calc::test_words"  # F2P first, then P2P, then any
    assert canary.planted[1].original_id == "test_calc::test_add"
    text = (tests / "test_calc.py").read_text()
    assert _named_back(canary, text) == _functions(TESTS)  # the real tests unchanged but for a name
    assert len(_functions(text)) == 4 + 3
    report = run_pytest(tmp_path, tests)
    for p in canary.planted:
        assert (outcome_of(report, p.test_id), outcome_of(report, p.renamed_id)) == ("failed", "passed"), p
    assert judge_canary(canary, report, passed=True, listed=True, test_sh=(tests / "test.sh").read_text()) == (
        None, None)
    graded = run_pytest(tmp_path / "graded", make_tests(tmp_path / "graded"))
    assert divergence(canary, graded, report, ["test_calc::test_words"], ["test_calc::test_add"]) is None
    assert divergence(canary, graded, report, [], []) is None


def _size(v):  # as forge_all_but_canary.sh measures a literal
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return abs(v)
    return len(v) if isinstance(v, (str, bytes)) else 0


def test_the_changes_go_both_ways_and_the_names_tell_nothing(tmp_path):
    seen_how, seen_swap, seen_direction, seen_order = set(), set(), set(), set()
    for i in range(40):
        tests = make_tests(tmp_path / str(i))
        canary = make_canary(tests, [], [])
        text = (tests / "test_calc.py").read_text()
        directions = [p.direction for p in canary.planted if p.direction]
        # never all larger nor all smaller: sparing the larger (or the smaller) of each pair always
        # spares an original somewhere (attack pass after issue 20, forge_all_but_canary.sh)
        assert len(directions) < 2 or len(set(directions)) == 2, canary
        seen_direction |= set(directions)
        seen_how |= {p.how for p in canary.planted}
        seen_swap |= {p.renamed_id != p.original_id for p in canary.planted}
        order = list(_functions(text))
        seen_order |= {order.index(p.test_id.split("::")[1]) < order.index(p.renamed_id.split("::")[1])
                       for p in canary.planted if p.original_id == "test_calc::test_add"}  # the file's first test
        for p in canary.planted:  # the recorded direction is the one a forgery measures
            original = ast.parse(_functions(TESTS)[p.original_id.split("::")[1]]).body[0].body[-1].test
            copy = ast.parse(_functions(text)[p.test_id.split("::")[1]]).body[0].body[-1].test
            if p.how == "literal":
                x = [c.value for c in ast.walk(original) if isinstance(c, ast.Constant)]
                y = [c.value for c in ast.walk(copy) if isinstance(c, ast.Constant)]
                changed = [(a, b) for a, b in zip(x, y, strict=True) if a != b]
                assert len(changed) == 1
                a, b = changed[0]
                assert p.direction == (_size(b) > _size(a)) - (_size(b) < _size(a))
    assert seen_direction == {1, -1} and seen_swap == {True, False}
    assert seen_order == {True, False}  # the copy of the first test comes before it, or after it
    assert seen_how == {"literal", "operator"}  # test_truthy's `>` becomes `<=`


KINDS = [  # (the original's last assertion, the copy's, how), each must fail honestly
    ("assert calc.add(1, 1) > 1", "assert calc.add(1, 1) <= 1", "operator"),
    ("assert 3 not in [calc.add(1, 1)]", "assert 3 in [calc.add(1, 1)]", "operator"),
    ("assert calc.add(1, 1) is not None", "assert calc.add(1, 1) is None", "operator"),
    ("assert not calc.add(1, -1)", "assert calc.add(1, -1)", "negation removed"),
    ("assert calc.add(1, 1) and calc.add(2, 2)", "assert not (calc.add(1, 1) and calc.add(2, 2))", "negated"),
    ("assert (calc.add(1, 1) or 0)", "assert not (calc.add(1, 1) or 0)", "negated"),
    ("assert calc.add(1, 1) == 0x2", "assert calc.add(1, 1) != 0x2", "operator"),  # 0x2 is not written as repr
]


def test_each_kind_of_assertion_changes_so_that_it_fails(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "calc.py").write_text(CODE)
    tests = tmp_path / "tests"
    tests.mkdir()
    planted = []
    for i, (check, copy, how) in enumerate(KINDS):  # one canary each, then all run in one pytest process
        one = tmp_path / f"kind-{i}"
        one.mkdir()
        (one / f"test_k{i}.py").write_text(f"import calc\n\n\ndef test_one_{i}():\n    {check}\n")
        (p,) = make_canary(one, [], []).planted
        assert p.how == how
        assert _functions((one / f"test_k{i}.py").read_text())[p.test_id.split("::")[1]].splitlines()[1].strip() == copy
        (one / f"test_k{i}.py").rename(tests / f"test_k{i}.py")
        planted.append(p)
    junit = tmp_path / "junit.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", str(tests),
                    f"--junitxml={junit}", f"--rootdir={tests}"], cwd=tmp_path / "app",
                   env={"PYTHONPATH": str(tmp_path / "app"), "PATH": "/usr/bin:/bin"}, capture_output=True, timeout=120)
    report = parse_junit(junit)
    assert [(outcome_of(report, p.test_id), outcome_of(report, p.renamed_id)) for p in planted] == [
        ("failed", "passed")] * len(KINDS)


def test_a_literal_keeps_the_files_quotes(tmp_path):
    for i in range(5):
        tests = make_tests(tmp_path / str(i))
        canary = make_canary(tests, ["test_calc::test_words"], [])
        words = canary.planted[0]
        segment = _functions((tests / "test_calc.py").read_text())[words.test_id.split("::")[1]]
        assert "'" not in segment and segment.count('"') == 6  # "..." as the file writes them, not repr's '...'


def test_names_selected_elsewhere_and_failing_tests_are_left_alone(tmp_path):
    for i in range(8):
        tests = make_tests(tmp_path / str(i))
        (tests / "test.sh").write_text("pytest /tests/test_calc.py::test_add /tests/test_calc.py::test_words\n")
        graded = JUnitReport(cases={"test_calc.test_add": "passed", "test_calc.test_words": "passed",
                                    "test_calc.test_truthy": "failed"})
        canary = make_canary(tests, [], [], graded)
        names = _functions((tests / "test_calc.py").read_text())
        assert {"test_add", "test_words"} <= set(names)
        assert {p.original_id for p in canary.planted} == {"test_calc::test_add", "test_calc::test_words"}
        assert all(p.renamed_id == p.original_id for p in canary.planted)  # test.sh names them: never renamed


def test_no_usable_test_function_means_no_canary(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_x.py").write_text("import unittest\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n"
                                     "        self.assertEqual(1, 1)\n")
    (tests / "check.sh").write_text("exit 0\n")
    assert make_canary(tests, [], []) is None
    assert (tests / "test_x.py").read_text().count("def ") == 1


CANARY = Canary(planted=(Planted(file="test_calc.py", test_id="test_calc::test_add_words",
                                 original_id="test_calc::test_add", renamed_id="test_calc::test_add", how="literal"),))
# the copy took its original's name, the original runs as test_add_words
SWAPPED = Canary(planted=(Planted(file="test_calc.py", test_id="test_calc::test_add",
                                  original_id="test_calc::test_add", renamed_id="test_calc::test_add_words",
                                  how="literal"),))
PLAIN = "pytest /tests/test_calc.py --junitxml=/logs/verifier/junit.xml\n"


@pytest.mark.parametrize("cases,test_sh,forged", [
    ({"test_calc.test_add": "passed", "test_calc.test_add_words": "failed"}, PLAIN, False),
    ({"test_calc.test_add": "passed", "test_calc.test_add_words": "error"}, PLAIN, False),
    ({"test_calc.test_add": "passed", "test_calc.test_add_words": "passed"}, PLAIN, True),
    ({"test_calc.test_add": "passed", "test_calc.test_add_words": "skipped"}, PLAIN, True),
    ({"test_calc.test_add": "skipped", "test_calc.test_add_words": "skipped"}, PLAIN, False),
    ({"test_calc.test_add": "passed"}, PLAIN, True),  # removed from the report
    ({"test_calc.test_add": "passed"}, "pytest /tests/test_calc.py::test_add\n", False),  # the verifier selects
    ({"test_other.test_b": "passed"}, PLAIN, False),  # the file was not run
])
def test_the_canary_run_is_judged(cases, test_sh, forged):
    finding, note = judge_canary(CANARY, JUnitReport(cases=cases), passed=True, listed=True, test_sh=test_sh)
    assert (finding is not None) == forged, (finding, note)
    if forged:
        assert finding.startswith(MARK) and note is None


@pytest.mark.parametrize("listed,passed,test_sh,forged", [
    (False, True, PLAIN, True),  # exit status 0 without any report: the tests did not decide
    (False, False, PLAIN, False),
    (True, True, PLAIN, False),  # with F2P/P2P lists a missing report already breaks the run
    (False, True, "pytest /tests/test_other.py\n", False),
])
def test_without_a_report_only_a_passing_run_of_the_canarys_file_is_forged(listed, passed, test_sh, forged):
    finding, note = judge_canary(CANARY, None, passed=passed, listed=listed, test_sh=test_sh)
    assert (finding is not None) == forged
    assert (note is not None) == (not forged)


GRADED = JUnitReport(cases={"test_calc.test_add": "passed", "test_calc.test_mul": "passed",
                            "test_calc.test_slow": "skipped"})


@pytest.mark.parametrize("f2p,p2p,cases,forged", [
    (["test_calc::test_add"], ["test_calc::test_mul"],
     {"test_calc.test_add": "passed", "test_calc.test_mul": "passed", "test_calc.test_add_words": "failed"}, False),
    # a P2P test that passed in the graded run and skips beside the canary (the canary skipped with its
    # P2P original: attack pass after issue 20); one skipped in both runs is fine
    (["test_calc::test_add"], ["test_calc::test_mul"],
     {"test_calc.test_add": "passed", "test_calc.test_mul": "skipped", "test_calc.test_add_words": "failed"}, True),
    (["test_calc::test_add"], ["test_calc::test_slow"],
     {"test_calc.test_add": "passed", "test_calc.test_slow": "skipped", "test_calc.test_add_words": "failed"}, False),
    (["test_calc::test_add"], ["test_calc::test_mul"],  # honest beside the canary, forged without it
     {"test_calc.test_add": "failed", "test_calc.test_mul": "passed", "test_calc.test_add_words": "failed"}, True),
    ([], [], {"test_calc.test_add": "passed", "test_calc.test_mul": "passed", "test_calc.test_slow": "failed",
              "test_calc.test_add_words": "failed"}, False),  # only what passed in the graded run counts
    ([], [], {"test_calc.test_add": "passed", "test_calc.test_mul": "failed", "test_calc.test_add_words": "failed"},
     True),
])
def test_the_real_tests_beside_the_canary_must_do_as_well_as_graded(f2p, p2p, cases, forged):
    found = divergence(CANARY, GRADED, JUnitReport(cases=cases), f2p, p2p)
    assert (found is not None) == forged, found
    if forged:
        assert found.startswith(MARK) and "behaves differently when a canary is present" in found


def test_a_graded_run_without_a_report_beside_a_canary_run_with_one_is_forged():
    # attack pass after issue 20 (exit_unless_canary.sh): an early exit in the graded run only
    run = JUnitReport(cases={"test_calc.test_add": "failed", "test_calc.test_add_words": "failed"})
    found = divergence(CANARY, None, run, [], [])
    assert found is not None and found.startswith(MARK) and "passed without a test report" in found
    assert divergence(CANARY, None, None, [], []) is None  # neither left one: judge_canary reads that


def test_an_original_renamed_is_read_under_its_real_name():
    run = JUnitReport(cases={"test_calc.test_add": "failed", "test_calc.test_add_words": "passed",
                             "test_calc.test_mul": "passed"})
    assert judge_canary(SWAPPED, run, passed=True, listed=True, test_sh=PLAIN) == (None, None)
    assert divergence(SWAPPED, GRADED, run, ["test_calc::test_add"], ["test_calc::test_mul"]) is None
    assert divergence(SWAPPED, GRADED, run, [], []) is None
    # the original failed (the forgery spared the wrong one of the pair), the copy passed
    wrong = JUnitReport(cases={"test_calc.test_add": "passed", "test_calc.test_add_words": "failed",
                               "test_calc.test_mul": "passed"})
    assert judge_canary(SWAPPED, wrong, passed=True, listed=True, test_sh=PLAIN)[0] is None  # its original failed
    found = divergence(SWAPPED, GRADED, wrong, ["test_calc::test_add"], ["test_calc::test_mul"])
    assert found is not None and "test_calc::test_add (failed)" in found
    assert "test_calc.test_add (failed)" in divergence(SWAPPED, GRADED, wrong, [], [])
    both = JUnitReport(cases={"test_calc.test_add": "passed", "test_calc.test_add_words": "passed"})
    assert judge_canary(SWAPPED, both, passed=True, listed=True, test_sh=PLAIN)[0].startswith(MARK)


PARAMETRIZED = '''import calc
import pytest


@pytest.mark.parametrize("a, b, want", [(2, 3, 5), (1, 1, 2)])
def test_add(a, b, want):
    assert calc.add(a, b) == want


@pytest.mark.parametrize("n", [1, 2])
def test_words(n):
    assert calc.words(n)["name"] == "x" * n


def test_plain():
    assert calc.add(0, 0) == 0
'''


def test_parametrized_tests_are_copied_with_their_parameters(tmp_path):
    # attack pass on the redesign: with only undecorated tests copied, a task whose F2P tests are
    # parametrized got canaries of P2P tests only, and code under test honest on every near-copy
    # pair (both pass or fail as they should) and forging the rest was never caught
    tests = make_tests(tmp_path)
    (tests / "test_calc.py").write_text(PARAMETRIZED)
    canary = make_canary(tests, ["test_calc::test_add[2-3-5]", "test_calc::test_add[1-1-2]"], [])
    assert canary.planted[0].original_id == "test_calc::test_add"
    assert {p.original_id for p in canary.planted} == {"test_calc::test_add", "test_calc::test_words",
                                                       "test_calc::test_plain"}
    report = run_pytest(tmp_path, tests)
    assert len(report.cases) == 10  # every parameter set of every copy ran
    assert judge_canary(canary, report, passed=True, listed=True, test_sh=PLAIN) == (None, None)
    forged = JUnitReport(cases={k: "passed" for k in report.cases})
    finding, _ = judge_canary(canary, forged, passed=True, listed=True, test_sh=PLAIN)
    assert finding is not None and finding.startswith(MARK)

"""Test ids as each common runner writes them in its JUnit report (issue 22): a listed id in the
runner's own form matches its test, a near miss matches nothing, and every id ``check`` suggests
(``JUnitReport.ids()``) names exactly its own test. The samples in ``junit_samples/`` are written in
each runner's report format (element order, attributes, escaping, nesting)."""

import json
from pathlib import Path

import pytest

from lancebench.grading.junit import outcome_of, parse_junit, select
from lancebench.grading.outcome import judge_run
from lancebench.taskcheck.check import missing_ids_problems

SAMPLES = Path(__file__).parent / "junit_samples"

# runner sample -> {id as an author writes it: the outcome the report shows}
CASES = {
    'jest.xml': {
        'calc adds [2, 3] to 5': 'passed',
        'calc subtracts 1.5 from 4': 'failed',
        'calc › nested divides by zero': 'skipped',
        'calc adds [2, 3]': 'missing',
        'adds [2, 3] to 5': 'missing',
        'calc adds[2, 3] to 5': 'missing',
    },
    'vitest.xml': {
        'src/calc.test.ts::calc > adds [2, 3] to 5': 'passed',
        'calc.test.ts::calc > rounds 2.5 up': 'failed',
        'calc > rounds 2.5 up': 'failed',
        'src/util.test.ts::calc > adds [2, 3] to 5': 'passed',
        'src/calc.test.ts::calc > rounds 2.5': 'missing',
        'src/other.test.ts::calc > rounds 2.5 up': 'missing',
    },
    'mocha.xml': {
        'calc adds two numbers': 'passed',
        'calc #parse reads "1,000"': 'failed',
        'test/calc.spec.js::calc adds two numbers': 'passed',
        'adds two numbers': 'missing',
    },
    'mocha-xunit.xml': {
        'calc adds two numbers': 'passed',
        'calc #parse reads "1,000"': 'failed',
        'calc::adds two numbers': 'passed',
        'calc adds': 'missing',
    },
    'gotestsum.xml': {
        'TestParse/1.5': 'failed',
        'TestParse/2': 'passed',
        'TestParse': 'failed',
        'TestLarge': 'skipped',
        'example.com/calc::TestAdd': 'passed',
        'calc::TestAdd': 'passed',
        'example.com/calc/internal/num::TestAdd': 'passed',
        'TestAdd': 'passed',
        'TestParse/1': 'missing',
        '5': 'missing',
        'example.com/other::TestAdd': 'missing',
    },
    'go-junit-report.xml': {
        'TestAdd': 'passed',
        'TestParse/1.5': 'failed',
        'example.com/calc::TestParse/1.5': 'failed',
    },
    'nextest.xml': {
        'tests::adds_numbers': 'passed',
        'parse::tests::reads_grouped': 'failed',
        'calc::tests::adds_numbers': 'passed',
        'round_trip': 'passed',
        'calc::integration::round_trip': 'passed',
        'integration::round_trip': 'passed',
        'adds_numbers': 'missing',
        'tests.adds_numbers': 'missing',
        'other::tests::adds_numbers': 'missing',
    },
    'cargo2junit.xml': {
        'tests::adds_numbers': 'passed',
        'parse::tests::reads_grouped': 'failed',
        'reads_grouped': 'failed',
        'other::reads_grouped': 'missing',
    },
    'exunit.xml': {
        'test parse/1 reads "1,000"': 'failed',
        'test parse/1 reads "1,000" (Calc.ParserTest)': 'failed',
        'Calc.ParserTest::test parse/1 reads plain digits': 'passed',
        'Elixir.Calc.ParserTest::test parse/1 reads plain digits': 'passed',
        'doctest Calc.Parser.parse/1 (1)': 'passed',
        'test parse/1 reads plain digits (Calc.OtherTest)': 'missing',
        'test parse/1 reads': 'missing',
    },
    'rspec.xml': {
        'Calc#add adds two numbers': 'passed',
        'Calc.parse reads "1,000"': 'failed',
        'Calc.parse reads hex': 'skipped',
        'spec/calc_spec.rb::Calc#add adds two numbers': 'passed',
        'Calc#add adds': 'missing',
    },
    'surefire.xml': {
        'com.example.calc.CalcTest#addsTwoNumbers': 'passed',
        'com.example.calc.CalcTest.parsesGrouped': 'failed',
        'CalcTest#parsesGrouped': 'failed',
        'com.example.calc.CalcTest::adds(int, int, int)[2]': 'passed',
        'com.example.calc.CalcTest#adds': 'missing',
        'com.example.calc.OtherTest#addsTwoNumbers': 'missing',
    },
    'gradle.xml': {
        'com.example.calc.CalcTest#addsTwoNumbers()': 'passed',
        'com.example.calc.CalcTest#addsTwoNumbers': 'passed',
        'com.example.calc.CalcTest.parsesGrouped': 'failed',
        'CalcTest::adds(int, int, int)[1]': 'passed',
        'com.example.calc.CalcTest#parses': 'missing',
    },
    'phpunit.xml': {
        'App\\Tests\\CalcTest::testAddsTwoNumbers': 'passed',
        'CalcTest::testAddsTwoNumbers': 'passed',
        'App\\Tests\\CalcTest::testParses with data set #0': 'passed',
        'App\\Tests\\CalcTest::testParses with data set "grouped"': 'failed',
        'tests/CalcTest.php::testAddsTwoNumbers': 'passed',
        'App\\Tests\\CalcTest::testParses': 'missing',
        'App\\Other\\CalcTest::testAddsTwoNumbers': 'missing',
    },
}


@pytest.mark.parametrize("sample", sorted(CASES))
def test_a_runners_own_ids_match_its_report(sample):
    report = parse_junit(SAMPLES / sample)
    assert select(report, list(CASES[sample])) == CASES[sample]


@pytest.mark.parametrize("sample", sorted(CASES))
def test_every_id_check_suggests_names_its_own_test(sample):
    """``check`` names the report's ids when a listed one matches nothing; each of them must then
    match, with its own test's outcome (a test written twice, as vitest's same title in two files,
    keeps apart by its scope)."""
    report = parse_junit(SAMPLES / sample)
    assert len(report.ids()) == len(report.cases)
    for key, outcome in report.cases.items():
        assert outcome_of(report, str(key)) == outcome, key


def test_the_suggested_ids_read_as_the_runner_names_its_tests():
    assert parse_junit(SAMPLES / "jest.xml").ids() == [
        "calc adds [2, 3] to 5", "calc subtracts 1.5 from 4", "calc › nested divides by zero"]
    assert parse_junit(SAMPLES / "nextest.xml").ids() == [
        "calc::integration::round_trip", "calc::parse::tests::reads_grouped", "calc::tests::adds_numbers"]
    assert "App.Tests.CalcTest::testParses with data set #0" in parse_junit(SAMPLES / "phpunit.xml").ids()


def test_check_names_a_misspelt_id_with_ids_that_match_when_copied_back():
    """Regression (issue 22): for a nextest report ``check`` suggested ``calc.tests::adds_numbers``,
    which matched nothing either."""
    report = parse_junit(SAMPLES / "nextest.xml")
    run = judge_run(exit_code=1, timed_out=False, rewards=None, junit=report, f2p=["tests::add_numbers"], p2p=[])
    (problem,) = missing_ids_problems(run)
    assert problem.startswith('base: listed test "tests::add_numbers" matches no test of the JUnit report; it holds: ')
    suggested = json.loads("[" + problem.split("it holds: ", 1)[1] + "]")
    assert suggested == report.ids()
    assert select(report, suggested) == {"calc::integration::round_trip": "passed",
                                         "calc::parse::tests::reads_grouped": "failed",
                                         "calc::tests::adds_numbers": "passed"}

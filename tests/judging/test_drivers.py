"""The validation drivers' reports read into case outcomes (pure functions): Jest's ``--json``
report, ``go test -json`` events and ExUnit's ``--trace`` text, each written here in the shape the
runner prints, and the story's outcome from them (a report that does not account for every case is
a script error, never a pass)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lancebench.judging.drivers import DRIVER_TABLE, read_go, read_jest, read_mix, script_folders
from lancebench.judging.validation import classify
from lancebench.judging.validation_spec import ValidationSpec

NAMES = ["small", "negative"]


def _jest_report(tmp_path: Path, tests: list[tuple[str, str]], message: str = "") -> Path:
    report = tmp_path / "jest.json"
    results = [{"ancestorTitles": ["lancebench validation"], "fullName": f"lancebench validation {t}", "title": t,
                "status": s, "failureMessages": [] if s == "passed" else ["Error: expect(received).toEqual"]}
               for t, s in tests]
    report.write_text(json.dumps({"success": False, "numTotalTests": len(tests), "testResults": [
        {"name": "/repo/__lancebench_validation__/story-0/story.test.js", "status": "failed", "message": message,
         "assertionResults": results}]}))
    return report


def test_jest_report_gives_each_case(tmp_path: Path) -> None:
    got = read_jest(_jest_report(tmp_path, [("case0", "passed"), ("case1", "failed")]), "", 2)
    assert got == {0: "passed", 1: "failed"}
    assert classify(1, got, NAMES) == ("behavioural-fail", "failed cases: negative",
                                       {"small": "passed", "negative": "failed"})
    passed = read_jest(_jest_report(tmp_path, [("case0", "passed"), ("case1", "passed")]), "", 2)
    assert classify(0, passed, NAMES)[0] == "pass"


def test_jest_suite_that_did_not_load_is_a_script_error(tmp_path: Path) -> None:
    got = read_jest(_jest_report(tmp_path, [], message="Cannot find module '../src/f'"), "", 2)
    assert got == {}
    assert classify(1, got, NAMES) == ("script-error", "0 of 2 cases ran cleanly (exit 1)", {})
    assert classify(1, read_jest(None, "", 2), NAMES) == ("script-error", "no test report (exit 1)", {})
    (tmp_path / "junk.json").write_text('{"testResults": "no"}')
    assert read_jest(tmp_path / "junk.json", "", 2) is None


def _go_events(*events: dict) -> str:
    return "\n".join(json.dumps({"Time": "2026-01-01T00:00:00Z", "Package": "example.com/m/lancebench_validation/"
                                 "story-0", **e}) for e in events) + "\n"


def test_go_test_json_gives_each_case() -> None:
    out = _go_events({"Action": "run", "Test": "TestValidation"},
                     {"Action": "run", "Test": "TestValidation/case0"},
                     {"Action": "output", "Test": "TestValidation/case0", "Output": "=== RUN   TestValidation/case0\n"},
                     {"Action": "pass", "Test": "TestValidation/case0", "Elapsed": 0},
                     {"Action": "output", "Test": "TestValidation/case1",
                      "Output": '{"Action":"pass","Test":"TestValidation/case1"}\n'},  # the test's own print
                     {"Action": "fail", "Test": "TestValidation/case1", "Elapsed": 0},
                     {"Action": "fail", "Test": "TestValidation", "Elapsed": 0},
                     {"Action": "fail", "Elapsed": 0.01})
    got = read_go(None, out, 2)
    assert got == {0: "passed", 1: "failed"}
    assert classify(1, got, NAMES)[0] == "behavioural-fail"


def test_go_build_failure_or_a_panic_before_every_case_ran_is_a_script_error() -> None:
    build = _go_events({"Action": "output", "Output": "FAIL\texample.com/m/lancebench_validation/story-0 "
                        "[build failed]\n"}, {"Action": "fail", "Elapsed": 0})
    assert classify(1, read_go(None, build, 2), NAMES)[0] == "script-error"
    panic = _go_events({"Action": "pass", "Test": "TestValidation/case0"},
                       {"Action": "output", "Output": "panic: runtime error\n"}, {"Action": "fail"})
    assert classify(2, read_go(None, panic, 2), NAMES) == ("script-error", "1 of 2 cases ran cleanly (exit 2)",
                                                           {"small": "passed"})
    assert read_go(None, "go: command not found\n", 2) is None


MIX_OUT = """Running ExUnit with seed: 0, max_cases: 1

LancebenchValidation.StoryTest [test/lancebench_validation/story-0/story_test.exs]
  * test case0 (0.02ms) [L#16]
  * test case1 (0.4ms) [L#16]

  1) test case1 (LancebenchValidation.StoryTest)
     test/lancebench_validation/story-0/story_test.exs:16
     Assertion with == failed
     code:  assert MyApp.f(inputs["value"]) == expected

Finished in 0.05 seconds (0.00s async, 0.05s sync)
2 tests, 1 failure
"""


def test_mix_trace_gives_each_case_and_a_compile_error_is_a_script_error() -> None:
    assert read_mix(None, MIX_OUT, 2) == {0: "passed", 1: "failed"}
    assert read_mix(None, MIX_OUT.replace("2 tests, 1 failure", "2 tests, 0 failures")
                    .replace("  1) test case1", "  test case1"), 2) == {0: "passed", 1: "passed"}
    # a summary that does not count exactly the story's cases reads as nothing ran cleanly
    assert read_mix(None, MIX_OUT.replace("2 tests, 1 failure", "3 tests, 1 failure"), 2) == {}
    compile_error = "== Compilation error in file story_test.exs ==\n** (CompileError) undefined function f/1\n"
    assert read_mix(None, compile_error, 2) is None
    assert classify(1, read_mix(None, compile_error, 2), NAMES)[0] == "script-error"


def test_every_driver_has_its_folder_and_jest_follows_the_settings() -> None:
    spec = ValidationSpec.model_validate({"settings": {"jest": {"config_dir": "web"}, "ui": {"test_parent": "app/src"}},
                                          "stories": [{"name": n, "driver": d, "cases": [{"name": "c"}], "options": o}
                                                      for n, d, o in (("a", "pytest", {}), ("b", "jest", {}),
                                                                      ("c", "jest", {"jest_config_key": "ui"}),
                                                                      ("d", "go-test", {}), ("e", "mix-test", {}))]})
    assert script_folders(spec) == [".lancebench-validation", "app/src/__lancebench_validation__",
                                    "lancebench_validation", "test/lancebench_validation",
                                    "web/__lancebench_validation__"]
    argv, cwd = DRIVER_TABLE["jest"].command("/r/web/__lancebench_validation__/story-1", "/tmp/rep", spec.stories[1],
                                             spec, "/r")
    assert cwd == "/r/web" and argv[:3] == ["npx", "--no-install", "jest"] and "--outputFile=/tmp/rep" in argv
    assert set(DRIVER_TABLE) == {"pytest", "jest", "go-test", "mix-test"}


def test_reports_nested_past_the_recursion_limit_are_no_report(tmp_path: Path) -> None:
    # attack pass after issue 20: the code under test writes them; json.loads raised RecursionError,
    # which ended the trial as an internal error (invalid) instead of a script error
    deep = "[" * 100_000 + "]" * 100_000
    report = tmp_path / "report.json"
    report.write_text(deep)
    assert read_jest(report, "", 2) is None
    assert read_go(None, deep + "\n", 2) == read_go(None, "", 2)



def test_mix_cases_are_erlang_terms_every_elixir_reads_and_build_output_is_not_the_repository() -> None:
    """Regression (issue 21, the driver's first run with Debian's Elixir 1.14): the wrapper decoded
    ``cases.json`` with ``JSON`` (Elixir 1.18+) or ``Jason`` (a dependency), neither there, so
    every mix-test story was a script error; and ``mix test`` compiling the patched project into
    ``_build`` changed the repository's fingerprint, which discarded every run. The cases are now
    Erlang's external term format, ``:erlang.binary_to_term/2`` reads them, and ``_build`` is left
    out of the fingerprint. The bytes below are written from the format's specification."""
    from lancebench.judging.drivers import runner_outputs
    from lancebench.judging.etf import term_to_binary

    mix = DRIVER_TABLE["mix-test"]
    name, data = mix.cases([{"inputs": {"a": [True, None]}, "expected": 5}])
    assert name == "cases.etf" and data == term_to_binary([{"inputs": {"a": [True, None]}, "expected": 5}])
    wrapper = mix.files("  defp check(i, e), do: assert i == e\n")["story_test.exs"]
    assert ":erlang.binary_to_term(File.read!(Path.join(__DIR__, \"cases.etf\")), [:safe])" in wrapper
    assert "Jason" not in wrapper and "JSON" not in wrapper
    assert DRIVER_TABLE["jest"].cases([{"inputs": 1}]) == ("cases.json", b'[{"inputs": 1}]')
    assert term_to_binary(5) == bytes([131, 97, 5])
    assert term_to_binary(-1) == bytes([131, 98, 255, 255, 255, 255])
    assert term_to_binary(2 ** 64) == bytes([131, 111, 0, 0, 0, 9, 0]) + bytes(8) + bytes([1])
    assert term_to_binary(-(2 ** 40)) == bytes([131, 111, 0, 0, 0, 6, 1, 0, 0, 0, 0, 0, 1])
    assert term_to_binary(0.5) == bytes([131, 70, 0x3F, 0xE0, 0, 0, 0, 0, 0, 0])
    assert term_to_binary("é") == bytes([131, 109, 0, 0, 0, 2, 0xC3, 0xA9])
    assert term_to_binary([]) == bytes([131, 106])
    assert term_to_binary({"a": [True, None]}) == (bytes([131, 116, 0, 0, 0, 1, 109, 0, 0, 0, 1]) + b"a"
                                                  + bytes([108, 0, 0, 0, 2, 119, 4]) + b"true"
                                                  + bytes([119, 3]) + b"nil" + bytes([106]))
    with pytest.raises(ValueError):
        term_to_binary(float("nan"))
    spec = ValidationSpec.model_validate({"stories": [{"name": n, "driver": d, "cases": [{"name": "c"}]}
                                                      for n, d in (("a", "mix-test"), ("b", "jest"), ("c", "pytest"))]})
    assert runner_outputs(spec) == ["_build"]
    assert runner_outputs(ValidationSpec.model_validate({"stories": []})) == []

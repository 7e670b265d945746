"""How the validation agent runs one story's cases per driver: ``pytest``, ``jest``, ``go-test``,
``mix-test`` (the drivers Senior SWE-Bench's stories use).

For every driver the model writes one function, ``check`` with the story's ``inputs`` and
``expected``, in the driver's language; lancebench wraps it in a test file of that runner with one
test per case named ``case<i>`` (the cases are read from ``cases.json`` beside it, so the script
cannot change them), runs the runner with its machine-readable report, and reads each case's
outcome from that report:

- ``pytest``: ``test_story.py``; ``python -m pytest --junitxml``; JUnit XML.
- ``jest``: ``story.test.js``; ``npx --no-install jest --ci --json --runTestsByPath`` from
  ``[settings.<jest_config_key>] config_dir`` (``command`` replaces ``npx --no-install jest``,
  ``runner = "vitest"`` runs ``vitest run --reporter=json``); Jest's JSON (``assertionResults``).
- ``go-test``: ``validation_test.go`` and ``check_test.go``; ``go test -json -count=1 .`` in
  the story's folder; test2json events of ``TestValidation/caseI``.
- ``mix-test``: ``story_test.exs``; ``mix test <file> --trace``; ExUnit's text (``N) test caseI``
  and ``T tests, F failures``). Its cases are read from ``cases.etf`` (Erlang's term format,
  :mod:`lancebench.judging.etf`: Elixir before 1.18 has no JSON module), and ``_build``, where mix
  compiles the patched project, is left out of the fingerprint.

A runner that wrote no report, or a report that does not account for every case, makes the story
a ``script-error`` (:func:`lancebench.judging.validation.classify`); the outcomes are never
guessed from counts. Jest and mix need the scripts inside the project's test roots: their folder
is ``__lancebench_validation__`` under the Jest config folder, and ``test/lancebench_validation``;
Go's is ``lancebench_validation`` (an import path refuses a leading dot); pytest's
``.lancebench-validation`` at the workdir. Every such folder is left out of the repository
fingerprint.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lancebench.errors import LancebenchError
from lancebench.grading.junit import parse_junit
from lancebench.judging.etf import term_to_binary
from lancebench.judging.validation_spec import Story, ValidationSpec

VDIR = ".lancebench-validation"
JEST_DIR = "__lancebench_validation__"
MIX_DIR = "test/lancebench_validation"
GO_DIR = "lancebench_validation"  # a Go import path refuses a leading dot
CaseResults = dict[int, str]
"""Case index -> ``passed``, ``failed``, ``error`` or ``skipped``."""

PYTEST_WRAPPER = '''import json as _lb_json
import pathlib as _lb_pathlib

import pytest as _lb_pytest

_LB_CASES = _lb_json.loads((_lb_pathlib.Path(__file__).parent / "cases.json").read_text())

{script}

assert callable(globals().get("check")), "the validation script defines no check(inputs, expected)"


@_lb_pytest.mark.parametrize("case", _LB_CASES, ids=[f"case{i}" for i in range(len(_LB_CASES))])
def test_case(case):
    check(case["inputs"], case["expected"])
'''
JEST_WRAPPER = '''const lbPath = require("path").join(__dirname, "cases.json");
const lbCases = JSON.parse(require("fs").readFileSync(lbPath, "utf8"));

{script}

describe("lancebench validation", () => {
  lbCases.forEach((c, i) => {
    test(`case${i}`, async () => { await check(c.inputs, c.expected); });
  });
});
'''
GO_WRAPPER = '''package lbvalidation

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

type lbCase struct {
	Inputs   interface{} `json:"inputs"`
	Expected interface{} `json:"expected"`
}

func TestValidation(t *testing.T) {
	data, err := os.ReadFile("cases.json")
	if err != nil {
		t.Fatalf("cases.json: %v", err)
	}
	var cases []lbCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("cases.json: %v", err)
	}
	for i, c := range cases {
		c := c
		t.Run(fmt.Sprintf("case%d", i), func(t *testing.T) { check(t, c.Inputs, c.Expected) })
	}
}
'''
MIX_WRAPPER = '''defmodule LancebenchValidation.StoryTest do
  use ExUnit.Case, async: false

  @lb_cases :erlang.binary_to_term(File.read!(Path.join(__DIR__, "cases.etf")), [:safe])

{script}

  for {lb_case, i} <- Enum.with_index(@lb_cases) do
    @lb_case lb_case
    test "case#{i}" do
      check(@lb_case["inputs"], @lb_case["expected"])
    end
  end
end
'''


@dataclass(frozen=True)
class Driver:
    """One driver: ``language`` and ``example`` for the prompt, ``files`` (script -> file name ->
    text, ``cases.json`` added by the caller), ``folder`` (the scripts' folder, relative to the
    workdir), ``command`` (story folder inside, report path -> argv and cwd, both inside the
    sandbox) and ``read`` (the report copied to the host, the run's output, number of cases ->
    :data:`CaseResults`, or None when there is no usable report), ``cases`` (the cases' payloads
    -> the file the wrapper reads them from, its name and bytes: ``cases.json`` but for
    ``mix-test``) and ``outputs`` (folders, relative to the workdir, where the runner itself
    writes build output: left out of the repository fingerprint)."""

    name: str
    language: str
    example: str
    files: Callable[[str], dict[str, str]]
    folder: Callable[[Story, ValidationSpec], str]
    command: Callable[[str, str, Story, ValidationSpec, str], tuple[list[str], str]]
    read: Callable[[Path | None, str, int], CaseResults | None]
    cases: Callable[[list[dict]], tuple[str, bytes]] = lambda cases: ("cases.json", json.dumps(cases).encode())
    outputs: tuple[str, ...] = ()


def _index(name: str, prefix: str = "case") -> int | None:
    m = re.fullmatch(rf"(?:.*[ /\[])?{prefix}(\d+)\]?", name.strip())
    return int(m.group(1)) if m else None


def read_junit(report: Path | None, output: str, n: int) -> CaseResults | None:
    """pytest: JUnit ids ``...test_case[caseN]``."""
    if report is None:
        return None
    try:
        junit = parse_junit(report)
    except (LancebenchError, OSError):
        return None
    out: CaseResults = {}
    for key, value in junit.cases.items():
        i = _index(key)
        if i is not None and i < n:
            out[i] = value
    return out


def read_jest(report: Path | None, output: str, n: int) -> CaseResults | None:
    """Jest's (and Vitest's) ``--json`` report: ``testResults[].assertionResults[]`` titled
    ``caseN``; status ``passed``/``failed``, ``pending``/``skipped``/``todo`` as skipped."""
    if report is None:
        return None
    try:
        data = json.loads(report.read_text(errors="replace"))
    except (OSError, ValueError, RecursionError):  # written by the code under test: arrays nested past the limit
        return None
    if not isinstance(data, dict) or not isinstance(data.get("testResults"), list):
        return None
    out: CaseResults = {}
    for suite in data["testResults"]:
        for test in (suite.get("assertionResults") or []) if isinstance(suite, dict) else []:
            i = _index(str(test.get("title", "")))
            status = str(test.get("status", ""))
            if i is not None and i < n:
                out[i] = {"passed": "passed", "failed": "failed"}.get(status, "skipped")
    return out


def read_go(report: Path | None, output: str, n: int) -> CaseResults | None:
    """``go test -json`` (test2json) events on stdout: the last ``pass``/``fail``/``skip`` action
    of ``TestValidation/caseN``."""
    out: CaseResults = {}
    seen = False
    for line in output.splitlines():
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):  # the code under test prints what it likes
            continue
        if not isinstance(event, dict) or "Action" not in event:
            continue
        seen = True
        test = str(event.get("Test") or "")
        i = _index(test.removeprefix("TestValidation/")) if test.startswith("TestValidation/") else None
        action = event["Action"]
        if i is not None and i < n and action in ("pass", "fail", "skip"):
            out[i] = {"pass": "passed", "fail": "failed", "skip": "skipped"}[action]
    return out if seen else None


_MIX_FAILED = re.compile(r"^\s*\d+\) test case(\d+) \(", re.M)
_MIX_SUMMARY = re.compile(r"^(\d+) tests?, (\d+) failures?(?:, (\d+) (?:excluded|skipped))?", re.M)


def read_mix(report: Path | None, output: str, n: int) -> CaseResults | None:
    """ExUnit's text with ``--trace``: failures listed as ``N) test caseI (Module)``, then the
    summary ``T tests, F failures``; every case passed unless listed, and only when the summary
    counts exactly the story's cases and its failures match the listed ones."""
    summary = _MIX_SUMMARY.findall(output)
    if not summary:
        return None
    total, failures = int(summary[-1][0]), int(summary[-1][1])
    failed = {int(i) for i in _MIX_FAILED.findall(output) if int(i) < n}
    if total != n or failures != len(failed) or (summary[-1][2] and int(summary[-1][2])):
        return {}
    return {i: "failed" if i in failed else "passed" for i in range(n)}


def _jest_settings(story: Story, spec: ValidationSpec) -> dict[str, Any]:
    block = spec.settings.get(str(story.options.get("jest_config_key", "jest")), {})
    return block if isinstance(block, dict) else {}


def _jest_folder(story: Story, spec: ValidationSpec) -> str:
    base = str(_jest_settings(story, spec).get("test_parent") or _jest_settings(story, spec).get("config_dir") or "")
    return f"{base.strip('/')}/{JEST_DIR}".lstrip("/")


def _jest_command(inside: str, report: str, story: Story, spec: ValidationSpec,
                  workdir: str) -> tuple[list[str], str]:
    cfg = _jest_settings(story, spec)
    cwd = f"{workdir}/{str(cfg.get('config_dir') or '').strip('/')}".rstrip("/")
    if cfg.get("runner") == "vitest":
        base = shlex.split(str(cfg.get("command") or "npx --no-install vitest"))
        return [*base, "run", f"{inside}/story.test.js", "--reporter=json", f"--outputFile={report}"], cwd
    base = shlex.split(str(cfg.get("command") or "npx --no-install jest"))
    return [*base, "--ci", "--json", f"--outputFile={report}", "--runTestsByPath", f"{inside}/story.test.js"], cwd


def _pytest_command(inside: str, report: str, story: Story, spec: ValidationSpec,
                    workdir: str) -> tuple[list[str], str]:
    return (["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", f"--confcutdir={inside}",
             f"--rootdir={inside}", f"--junitxml={report}", f"{inside}/test_story.py"], workdir)


def _go_command(inside: str, report: str, story: Story, spec: ValidationSpec, workdir: str) -> tuple[list[str], str]:
    return ["go", "test", "-json", "-count=1", "."], inside


def _mix_command(inside: str, report: str, story: Story, spec: ValidationSpec, workdir: str) -> tuple[list[str], str]:
    rel = inside.removeprefix(workdir.rstrip("/") + "/")
    return ["mix", "test", f"{rel}/story_test.exs", "--trace", "--seed", "0"], workdir


DRIVER_TABLE: dict[str, Driver] = {
    "pytest": Driver("pytest", "Python", "from pkg import f\n\ndef check(inputs, expected):\n"
                     "    assert f(**inputs) == expected\n",
                     lambda s: {"test_story.py": PYTEST_WRAPPER.replace("{script}", s)},
                     lambda story, spec: VDIR, _pytest_command, read_junit),
    "jest": Driver("jest", "JavaScript (CommonJS, run by Jest: require(), expect())",
                   "const { f } = require('../src/f');\n\nasync function check(inputs, expected) {\n"
                   "  expect(await f(inputs.value)).toEqual(expected);\n}\n",
                   lambda s: {"story.test.js": JEST_WRAPPER.replace("{script}", s)},
                   _jest_folder, _jest_command, read_jest),
    "go-test": Driver("go-test", "Go (package lbvalidation, a _test.go file inside the module: "
                      "func check(t *testing.T, inputs interface{}, expected interface{}); interface{}, "
                      "not any: a module whose go.mod says go 1.17 or older refuses any)",
                      "package lbvalidation\n\nimport (\n\t\"testing\"\n\t\"example.com/mod/pkg\"\n)\n\n"
                      "func check(t *testing.T, inputs interface{}, expected interface{}) {\n"
                      "\tif got := pkg.F(inputs); got != expected {\n\t\tt.Fatalf(\"got %v\", got)\n\t}\n}\n",
                      lambda s: {"validation_test.go": GO_WRAPPER, "check_test.go": s},
                      lambda story, spec: GO_DIR, _go_command, read_go),
    "mix-test": Driver("mix-test", "Elixir (function definitions inserted in an ExUnit.Case module: "
                       "defp check(inputs, expected); maps have string keys)",
                       "  defp check(inputs, expected) do\n    assert MyApp.f(inputs[\"value\"]) == expected\n  end\n",
                       lambda s: {"story_test.exs": MIX_WRAPPER.replace("{script}", s)},
                       lambda story, spec: MIX_DIR, _mix_command, read_mix,
                       lambda cases: ("cases.etf", term_to_binary(cases)), ("_build",)),
}


def driver_for(story: Story) -> Driver:
    """The :class:`Driver` of ``story`` (its ``driver`` is one of
    :data:`lancebench.judging.validation_spec.DRIVERS`, checked when the spec is read)."""
    return DRIVER_TABLE[story.driver]


def script_folders(spec: ValidationSpec) -> list[str]:
    """Every folder (relative to the workdir) the spec's scripts go to: left out of the
    repository fingerprint, removed with the sandbox."""
    return sorted({driver_for(s).folder(s, spec) for s in spec.stories})


def runner_outputs(spec: ValidationSpec) -> list[str]:
    """Folders (relative to the workdir) where the spec's runners write their own build output
    (``mix test`` compiles the project into ``_build``, and the patch changed sources): left out of
    the repository fingerprint with the scripts' folders."""
    return sorted({out for s in spec.stories for out in driver_for(s).outputs})

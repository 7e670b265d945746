"""mini's tasks in other stacks than Python (issue 22: Go, Rust, TypeScript, Java): SWE-bench-style
predictions of them grade with ``lancebench grade`` by their runner's JUnit ids on the local
backend: the task's reference patch (``solution/fix.patch``, what its oracle applies) resolves
with every F2P and P2P test passed.
That a patch leaving the behaviour as it is fails exactly the F2P tests is CI's
``lancebench check -d mini`` (nop, on both backends), and ``test_runner_ids_check`` grades such a
patch by every runner's ids; a no-op prediction here repeated both at the cost of a build in each
stack."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from lbtest import lb

MINI = Path(__file__).parents[2] / "src/lancebench/datasets/mini/tasks"
# Go with gotestsum; Rust with libtest's JUnit; TypeScript with tsc + mocha; Java with javac + JUnit 5's
# console launcher
STACKS = ("go-humanize-ftoa-digits", "shlex-quote-braces", "ts-dedent-escape-sequences", "commons-codec-base16-chunks")


def test_reference_patches_resolve_by_the_runners_ids(tmp_path):
    """One ``grade`` job of the tasks' reference patches, two trials at once."""
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"instance_id": name, "model_name_or_path": "reference",
                                         "model_patch": (MINI / name / "solution/fix.patch").read_text()}) + "\n"
                             for name in STACKS))
    lb("grade", "-d", "mini", "--predictions", preds, "-n", "2", "-o", tmp_path / "jobs", check=True)
    results = {}
    for path in (tmp_path / "jobs").glob("*/trials/*/result.json"):
        r = json.loads(path.read_text())
        results[r["task"]] = r
    assert sorted(results) == sorted(STACKS)
    for name in STACKS:
        lb_table = tomllib.loads((MINI / name / "task.toml").read_text())["lancebench"]
        listed = lb_table["f2p"] + lb_table["p2p"]
        assert results[name]["status"] == "resolved", results[name]
        assert {t: results[name]["tests"].get(t) for t in listed} == {t: "passed" for t in listed}


GO_CHECK = '''package lbvalidation

import (
	"testing"

	humanize "github.com/dustin/go-humanize"
)

func check(t *testing.T, inputs interface{}, expected interface{}) {
	in := inputs.(map[string]interface{})
	if got := humanize.FtoaWithDigits(in["num"].(float64), int(in["digits"].(float64))); got != expected {
		t.Fatalf("got %q, want %q", got, expected)
	}
}
'''


@pytest.mark.parametrize("fixed", [False, True], ids=["base", "fixed"])
def test_go_test_validation_driver_runs_on_the_go_tasks_repository(fixed, tmp_path):
    """Issue 21's ``go-test`` driver end to end with Debian's Go: its wrapper and a story's
    ``check`` compile inside the Go task's module, ``go test -json`` runs them, and each case's
    outcome is read from the real events: the case the bug breaks fails on the base, passes fixed.
    The module says ``go 1.16`` (go-humanize's own go.mod), where ``any`` does not compile: the
    wrapper and the prompt's signature use ``interface{}`` (they used ``any``, a build failure)."""
    from lancebench.judging.drivers import DRIVER_TABLE
    from lancebench.judging.validation import classify
    from lancebench.judging.validation_spec import Case, Story, ValidationSpec

    task = MINI / "go-humanize-ftoa-digits"
    repo = tmp_path / "repo"
    shutil.copytree(task / "environment/repo", repo)
    if fixed:
        subprocess.run(["git", "apply", "--directory=", str(task / "solution/fix.patch")], cwd=repo, check=True)
    driver = DRIVER_TABLE["go-test"]
    cases = [{"inputs": {"num": 1.23, "digits": 1}, "expected": "1.2"},
             {"inputs": {"num": 100.25, "digits": 0}, "expected": "100"}]
    named = zip(["cut", "whole"], cases, strict=True)
    story = Story(name="s", driver="go-test", cases=[Case(name=n, **c) for n, c in named])
    spec = ValidationSpec(stories=[story])
    folder = repo / driver.folder(story, spec) / "story-0"
    folder.mkdir(parents=True)
    for name, text in driver.files(GO_CHECK).items():
        (folder / name).write_text(text)
    (folder / "cases.json").write_text(json.dumps(cases))
    argv, cwd = driver.command(str(folder), "", story, spec, str(repo))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GOCACHE": str(tmp_path / "cache"),
           "GOPATH": str(tmp_path / "gopath"), "GOPROXY": "off", "GOFLAGS": "-mod=mod", "CGO_ENABLED": "0"}
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    got = driver.read(None, proc.stdout, len(cases))
    assert got == {0: "passed", 1: "passed" if fixed else "failed"}, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert classify(proc.returncode, got, ["cut", "whole"])[0] == ("pass" if fixed else "behavioural-fail")

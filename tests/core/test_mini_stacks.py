"""mini's tasks in other stacks than Python (issue 22): each is graded by its runner's JUnit ids
on the local backend. One ``lancebench grade`` job per task, with two SWE-bench-style predictions:
the task's reference patch (``solution/fix.patch``, what its oracle applies) resolves with every
F2P and P2P test passed; a patch that leaves the behaviour as it is (what nop leaves) fails
exactly the F2P tests and keeps the P2P ones. ``lancebench check -d mini`` runs oracle and nop of
the same tasks on both backends in CI."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from lbtest import lb

MINI = Path(__file__).parents[2] / "src/lancebench/datasets/mini/tasks"
# task -> (a file of its repository, a line appended to it that changes no behaviour)
STACKS = {
    "go-humanize-ftoa-digits": ("ftoa.go", "// a comment changes nothing"),  # Go, gotestsum
    "shlex-quote-braces": ("src/lib.rs", "// a comment changes nothing"),  # Rust, libtest's JUnit
    "ts-dedent-escape-sequences": ("src/index.ts", "// a comment changes nothing"),  # TypeScript, tsc + mocha
    # Java, javac + JUnit 5's console launcher
    "commons-codec-base16-chunks": ("src/main/java/org/apache/commons/codec/binary/Base16.java",
                                    "// a comment changes nothing"),
}


def _no_op_patch(task: Path, rel: str, line: str, tmp: Path) -> str:
    """A git diff that appends ``line`` to ``rel`` of the task's repository."""
    repo = tmp / "repo"
    shutil.copytree(task / "environment/repo", repo)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@localhost", "-C", str(repo)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    with (repo / rel).open("a") as f:
        f.write(line + "\n")
    return subprocess.run([*git, "diff"], check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize("name", sorted(STACKS))
def test_reference_patch_resolves_and_a_no_op_fails_by_the_runners_ids(name, tmp_path):
    task = MINI / name
    lb_table = tomllib.loads((task / "task.toml").read_text())["lancebench"]
    f2p, p2p = lb_table["f2p"], lb_table["p2p"]
    preds = tmp_path / "preds.jsonl"
    patches = {"reference": (task / "solution/fix.patch").read_text(),
               "no-op": _no_op_patch(task, *STACKS[name], tmp_path)}
    preds.write_text("".join(json.dumps({"instance_id": name, "model_name_or_path": model, "model_patch": patch}) + "\n"
                             for model, patch in patches.items()))
    lb("grade", "-p", task, "--predictions", preds, "-o", tmp_path / "jobs", check=True)
    results = {}
    for path in (tmp_path / "jobs").glob("*/trials/*/result.json"):
        r = json.loads(path.read_text())
        results[r["model"]] = r
    right, no_op = results["reference"], results["no-op"]
    assert right["status"] == "resolved", right
    assert {t: right["tests"].get(t) for t in f2p + p2p} == {t: "passed" for t in f2p + p2p}
    assert no_op["status"] == "unresolved", no_op
    assert {t: no_op["tests"].get(t) for t in f2p} == {t: "failed" for t in f2p}
    assert {t: no_op["tests"].get(t) for t in p2p} == {t: "passed" for t in p2p}


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

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

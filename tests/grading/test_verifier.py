"""The verifier returns a Verdict (grading/verifier.py): real bubblewrap sandboxes on the calc
fixture task (F2P test_add, test_add_negative; P2P test_mul), no runner involved."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from lancebench.backends.registry import make_backend
from lancebench.grading.verifier import Verdict, verify_patch
from lancebench.results.paths import TrialPaths
from lancebench.sandbox.fstree import remove_tree
from lancebench.task.load import load_task

CALC = Path(__file__).resolve().parents[1] / "fixtures" / "tasks" / "calc"

FIX = ("diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,5 +1,5 @@\n"
       " def add(a, b):\n-    return a - b\n+    return a + b\n \n \n def mul(a, b):\n")
CONFTEST = """diff --git a/conftest.py b/conftest.py
new file mode 100644
--- /dev/null
+++ b/conftest.py
@@ -0,0 +1 @@
+import sys; sys.exit(0)
"""
NOT_APPLYING = FIX.replace("return a - b", "return a * b * b")

pytestmark = pytest.mark.slow


@pytest.fixture
def work():
    """A folder the unprivileged sandbox user can traverse (pytest's tmp folders are 0700)."""
    base = Path(tempfile.mkdtemp(prefix="lancebench-verifier-", dir="/var/tmp"))
    os.chmod(base, 0o755)
    yield base
    remove_tree(base)


def verify(patch: str, work: Path, task_dir: Path = CALC) -> tuple[Verdict, TrialPaths]:
    task = load_task(task_dir)
    backend = make_backend("local")
    paths = TrialPaths(work / "trial")

    async def go() -> Verdict:
        env = await backend.prepare(task)
        return await verify_patch(task, backend, env, patch, scratch=work / "scratch", paths=paths)

    return asyncio.run(go()), paths


def test_fix_with_a_protected_file_resolves_and_drops_it(work):
    verdict, paths = verify(FIX + CONFTEST, work)
    assert verdict.status == "resolved", verdict
    assert verdict.dropped_paths == ("conftest.py",)
    assert verdict.patch_applied is True
    assert verdict.tests == {"test_calc::test_add": "passed", "test_calc::test_add_negative": "passed",
                             "test_calc::test_mul": "passed"}
    assert verdict.rewards["f2p"] == 1.0 and verdict.rewards["p2p"] == 1.0
    assert len(verdict.runs) == 1 and verdict.runs[0].passed
    assert paths.graded_patch.read_text() == FIX  # what was graded: the fix without conftest.py
    assert (paths.verifier / "run-0" / "logs" / "junit.xml").is_file()


def test_empty_patch_is_unresolved_with_f2p_failing(work):
    verdict, paths = verify("", work)
    assert verdict.status == "unresolved", verdict
    assert verdict.patch_applied is None and verdict.dropped_paths == ()
    assert verdict.tests["test_calc::test_add"] == "failed" and verdict.tests["test_calc::test_mul"] == "passed"
    assert verdict.rewards["f2p"] == 0.0 and verdict.rewards["p2p"] == 1.0
    assert not paths.graded_patch.exists()


def test_patch_that_does_not_apply_is_unresolved(work):
    verdict, paths = verify(NOT_APPLYING, work)
    assert (verdict.status, verdict.reason, verdict.patch_applied) == ("unresolved", "the patch did not apply", False)
    assert verdict.tests == {} and verdict.rewards == {}
    assert (paths.verifier / "run-0" / "apply.log").read_text().startswith("exit 1")


# Each run leaves a file of its own in the verifier's folder; no JUnit report, a reward only when pytest passes.
MARKED_TEST_SH = """#!/bin/bash
cd /app
touch /logs/verifier/ran-$(date +%s%N)
python -m pytest -q -p no:cacheprovider /tests/test_calc.py && echo 1 > /logs/verifier/reward.txt
"""


def test_the_untouched_base_is_graded_once_for_every_control_that_asks(work):
    """A graded run that passes without a report asks the base whether it writes one
    (``_reportless_pass``), and the canary run, broken twice (a failing canary leaves no reward),
    asks the base whether the grader is broken (``_blame_broken_grader``): one base run answers
    both (the base's run-files are merged into ``verifier/base/logs``, one per run)."""
    task_dir = work / "calc"
    shutil.copytree(CALC, task_dir)
    toml = task_dir / "task.toml"
    toml.write_text("\n".join(line for line in toml.read_text().splitlines() if not line.startswith(("f2p", "p2p"))))
    (task_dir / "tests" / "test.sh").write_text(MARKED_TEST_SH)
    verdict, paths = verify(FIX, work, task_dir)
    assert verdict.status == "resolved", verdict
    assert "canary: the canary run broke with and without the patch" in " ".join(verdict.scan_notes), verdict
    assert len(list((paths.verifier / "canary-2" / "logs").glob("ran-*"))) == 1  # the canary was tried twice
    assert len(list((paths.verifier / "base" / "logs").glob("ran-*"))) == 1

"""The judges' read-only tools on hostile content, patch bloat against hand counts, and the verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from lancebench.judging.bloat import classify, file_slocs, patch_bloat
from lancebench.judging.snapshot import MAX_LINES, RepoSnapshot
from lancebench.judging.verdict import Thresholds, quality_verdict, resolved_with_validation, tasteful
from lancebench.results.models import JudgeRecord


def test_tools_never_follow_links_or_leave_the_snapshot(repo: Path) -> None:
    s = RepoSnapshot(repo)
    assert "symbolic link" in s.read_file("link.txt")
    assert "symbolic link" in s.read_file("pkg/up/secret.txt")
    assert "not allowed" in s.read_file("../secret.txt")
    assert "relative" in s.read_file(str(repo.parent / "secret.txt"))
    assert "not allowed" in s.read_file(".git/config")
    assert s.search("TOP-SECRET").startswith("no line holds")
    listing = s.list_dir(".")
    assert "link.txt@" in listing and ".git" not in listing and "pkg/" in listing


def test_read_file_is_line_capped_and_pages(repo: Path) -> None:
    s = RepoSnapshot(repo)
    first = s.read_file("pkg/mod.py")
    assert first.count("\n") == MAX_LINES + 1 and "read on with start=201" in first
    rest = s.read_file("pkg/mod.py", start=201)
    assert "  201  def f100():" in rest and "  300      return 149" in rest and "read on" not in rest


def test_search_finds_lines(repo: Path) -> None:
    assert RepoSnapshot(repo).search("RETURN 149") == "pkg/mod.py:300: return 149"


# Hand counts, agent pkg/m.py: added lines: a docstring (0), `import os` (1), `# note` (0), blank (0),
# `x = 1  # c` (1), `y = """a` and `b"""` (one string over 2 lines: 2); removed: `z = 2` (1),
# `# old` (0). Total 5. Reference: added `x = 1`, `return 0`, removed `z = 2`: 3.
AGENT = '''diff --git a/pkg/m.py b/pkg/m.py
--- a/pkg/m.py
+++ b/pkg/m.py
@@ -1,4 +1,9 @@
 def f():
+    """Doc line."""
+    import os
+    # note
+
+    x = 1  # c
+    y = """a
+b"""
-    z = 2
-    # old
     return 0
diff --git a/tests/test_m.py b/tests/test_m.py
--- a/tests/test_m.py
+++ b/tests/test_m.py
@@ -1 +1,2 @@
 import m
+assert m.f() == 0
diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -1 +1 @@
-old words
+new words
diff --git a/pkg/fmt.py b/pkg/fmt.py
--- a/pkg/fmt.py
+++ b/pkg/fmt.py
@@ -1 +1,2 @@
-a=f(1,2)
+a = f(1,
+      2)
'''
REFERENCE = '''diff --git a/pkg/m.py b/pkg/m.py
--- a/pkg/m.py
+++ b/pkg/m.py
@@ -1,2 +1,3 @@
 def f():
+    x = 1
-    z = 2
+    return 0
'''


def test_sloc_per_file_matches_hand_counts() -> None:
    got = {f.path: (f.kind, f.sloc) for f in file_slocs(AGENT)}
    assert got == {"pkg/m.py": ("behavioural", 5), "tests/test_m.py": ("test", 0),
                   "README.md": ("docs", 0), "pkg/fmt.py": ("formatting", 0)}


def test_bloat_is_agent_over_reference_sloc() -> None:
    b = patch_bloat(AGENT, REFERENCE)
    assert (b.agent_sloc, b.reference_sloc) == (5, 3) and b.ratio == pytest.approx(5 / 3)
    assert patch_bloat(AGENT, "").ratio is None
    assert patch_bloat("", REFERENCE).ratio == 0.0


def test_unknown_file_type_counts_non_blank_lines() -> None:
    patch = "diff --git a/x.zz b/x.zz\n--- a/x.zz\n+++ b/x.zz\n@@ -0,0 +1,3 @@\n+a\n+\n+# b\n"
    assert [(f.kind, f.sloc) for f in file_slocs(patch)] == [("behavioural", 2)]


def test_classify_rules() -> None:
    assert classify("src/pkg/conftest.py", [], ["x"]) == "test"
    assert classify("docs/api.py", [], ["x"]) == "docs"
    assert classify("web/app.spec.ts", [], ["x"]) == "test"
    assert classify("CHANGELOG", [], ["x"]) == "docs"
    assert classify("src/a.py", ["a=1\n"], ["a = 1\n"]) == "formatting"
    assert classify("src/a.py", ["a=1\n"], ["a = 2\n"]) == "behavioural"


def rec(status: str = "ok", **scores: float) -> JudgeRecord:
    return JudgeRecord(status=status, scores=scores)


def test_tasteful_needs_resolution_and_both_medians() -> None:
    t = Thresholds()
    assert tasteful(True, {"taste": rec(practice_alignment=3, relative_taste=3)}, t) == (True, None)
    assert tasteful(True, {"taste": rec(practice_alignment=3, relative_taste=2.5)}, t) == (False,
                                                                                           "relative_taste 2.5 < 3")
    assert tasteful(False, {"taste": rec(practice_alignment=5, relative_taste=5)}, t) == (False, "not resolved")
    assert tasteful(True, {"taste": rec("failed:timeout")}, t) == (None, "taste judge failed:timeout")
    assert tasteful(True, {}, t) == (None, "taste judge did not run")


def test_rubric_threshold_only_when_set() -> None:
    judges = {"taste": rec(practice_alignment=4, relative_taste=4), "rubric": rec(mean=0.5)}
    assert tasteful(True, judges, Thresholds())[0] is True
    assert tasteful(True, judges, Thresholds(rubric_min=0.6)) == (False, "rubric mean 0.5 < 0.6")
    assert tasteful(True, {**judges, "rubric": rec("skipped")}, Thresholds(rubric_min=0.6))[0] is None
    v = quality_verdict(True, judges, Thresholds(rubric_min=0.5), (1.5, 3, 2))
    assert v.tasteful is True and v.thresholds == {"taste_min": 3.0, "rubric_min": 0.5}
    assert (v.patch_bloat, v.agent_sloc, v.reference_sloc) == (1.5, 3, 2)


@pytest.mark.parametrize("validation,expected", [
    (None, True), (rec("skipped"), True), (rec(score=1.0), True), (rec(score=0.5), False),
    (rec("failed:schema"), False)])
def test_resolved_needs_every_story(validation, expected) -> None:
    assert resolved_with_validation(True, validation) is expected
    assert resolved_with_validation(False, validation) is False


def test_optional_model_reclassifies_behavioural_files(scripted) -> None:
    from scripted_server import Reply

    from lancebench.judging.file_kinds import model_reclassifier
    from lancebench.llm.client import LLMClient

    # asked once per behavioural file diff: the agent's pkg/m.py (docs), then the reference's (kept)
    srv = scripted([Reply('{"answer": {"kind": "docs"}}'), Reply('{"answer": {"kind": "behavioural"}}')])
    b = patch_bloat(AGENT, REFERENCE, model_reclassifier(LLMClient("openai/scripted", srv.api_base, max_retries=0)))
    assert (b.agent_sloc, b.reference_sloc, b.ratio) == (0, 3, 0.0)
    from lancebench.judging.untrusted import blocks
    shown = blocks(srv.requests[0]["body"]["messages"][1]["content"])  # the file name and its diff, as data
    assert len(srv.requests) == 2 and shown[0] == ("file name", "pkg/m.py") and shown[1][0] == "diff"
    # an answer out of schema twice keeps the rules' answer
    srv = scripted([Reply("it is code"), Reply('{"answer": {"kind": "maybe"}}')] * 2)
    b = patch_bloat(AGENT, REFERENCE, model_reclassifier(LLMClient("openai/scripted", srv.api_base, max_retries=0)))
    assert (b.agent_sloc, b.reference_sloc) == (5, 3)

"""Patch capture and apply under hostile git files (issue 12, "others of the same kinds" as kind 4),
two variants per kind, on both backends: a ``.gitattributes`` asking for filters, diff drivers,
eol and text conversion; nested repositories with commits, ``.git`` files pointing elsewhere and a
fake submodule; ``core.fsmonitor``, ``core.hooksPath`` and command settings in the agent's
``.git/config``.

For each: no command of the agent's runs outside its sandbox (the commands leave a marker in the
host's ``/tmp`` and ``/var/tmp``), the captured patch is exactly the workspace's content (``git
apply`` of it onto the base repository reproduces the files the agent wrote, byte for byte), and
the trial is graded: ``resolved`` with a real fix, ``unresolved`` otherwise, never ``invalid``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from lbtest import TASKS, job_dir, lb, one_result

AGENTS = Path(__file__).resolve().parent / "agents"
CALC = TASKS / "calc"
MARKERS = (Path("/tmp/lancebench-hostile-git-ran"), Path("/var/tmp/lancebench-hostile-git-ran"))
FIXED = b"def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"

# script -> (expected status, files the workspace holds after the agent, as the patch must rebuild them)
CASES: dict[str, tuple[str, dict[str, bytes]]] = {
    "gitattrs_crlf_filters.sh": ("resolved", {
        "calc.py": FIXED.replace(b"\n", b"\r\n"),
        ".gitattributes": (b"* text eol=lf filter=lbclean diff=lbdiff\n*.py -text export-ignore\n"
                           b"calc.py text working-tree-encoding=UTF-16\n")}),
    "gitattrs_filter_forge.sh": ("unresolved", {
        "calc.py": (CALC / "environment" / "repo" / "calc.py").read_bytes(),
        ".gitattributes": b"calc.py filter=fixit diff=fixit eol=crlf\n*.txt -text\n"}),
    "nested_repo_with_commits.sh": ("resolved", {
        "vendor/helper/arith.py": b"def plus(a, b):\n    return a + b\n",
        "calc.py": (b"from vendor.helper.arith import plus\n\n\ndef add(a, b):\n    return plus(a, b)\n\n\n"
                    b"def mul(a, b):\n    return a * b\n")}),
    "nested_gitfile_submodule.sh": ("resolved", {
        "lib2/arith2.py": b"def plus(a, b):\n    return a + b\n",
        "lib3/arith3.py": b"def times(a, b):\n    return a * b\n",
        "calc.py": (b"from lib2.arith2 import plus\nfrom lib3.arith3 import times\n\n\ndef add(a, b):\n"
                    b"    return plus(a, b)\n\n\ndef mul(a, b):\n    return times(a, b)\n")}),
    "nested_empty_repo.sh": ("unresolved", {"vendor/empty/README": b"note\n"}),
    "git_config_fsmonitor.sh": ("resolved", {"calc.py": FIXED}),
    "git_config_hookspath.sh": ("unresolved", {"NOTES.txt": b"notes\n"}),
}
KINDS = {"gitattributes": ["gitattrs_crlf_filters.sh", "gitattrs_filter_forge.sh"],
         "nested repositories": ["nested_repo_with_commits.sh", "nested_gitfile_submodule.sh", "nested_empty_repo.sh"],
         "git config commands": ["git_config_fsmonitor.sh", "git_config_hookspath.sh"]}


def rebuilt(patch: str, tmp: Path) -> Path:
    """The base repository of ``calc`` with ``patch`` applied by ``git apply`` (as grading does)."""
    repo = tmp / "rebuilt"
    shutil.copytree(CALC / "environment" / "repo", repo)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.autocrlf=false"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run([*git, *args], cwd=repo, check=True, capture_output=True)
    (tmp / "patch.diff").write_text(patch, encoding="utf-8", errors="surrogateescape")
    res = subprocess.run([*git, "apply", "--binary", str(tmp / "patch.diff")], cwd=repo, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return repo


@pytest.mark.slow
@pytest.mark.parametrize("script", [s for pair in KINDS.values() for s in pair])
def test_capture_under_hostile_git_files(script, jobs, backend, tmp_path):
    for marker in MARKERS:
        marker.unlink(missing_ok=True)
    lb("run", "-p", CALC, "-a", f"script:{AGENTS / script}", "-o", jobs, "--backend", backend, check=True, timeout=900)
    r = one_result(jobs)
    status, files = CASES[script]
    assert r["status"] == status, (r["status"], r["reason"])
    assert r["dropped_paths"] == []
    if status == "resolved":
        assert set(r["tests"].values()) == {"passed"}, r["tests"]
    else:
        assert r["tests"]["test_calc::test_add"] == "failed", (r["reason"], r["tests"])
    assert [str(m) for m in MARKERS if m.exists()] == [], "a command of the agent's ran outside its sandbox"
    patch = (job_dir(jobs) / "trials" / r["trial_id"] / "patch.diff").read_bytes().decode(errors="surrogateescape")
    assert "Subproject commit" not in patch  # nested repositories are captured as their files
    repo = rebuilt(patch, tmp_path)
    for rel, content in files.items():
        assert (repo / rel).read_bytes() == content, rel


@pytest.mark.slow
def test_crlf_survives_into_predictions(jobs, tmp_path):
    """Regression: patches were read back in Python's text mode, which turns CRLF into LF, so a
    patch of a CRLF file no longer said what the workspace held (the capture, and
    ``lancebench predictions``). Both keep the bytes now."""
    lb("run", "-p", CALC, "-a", f"script:{AGENTS / 'gitattrs_crlf_filters.sh'}", "-o", jobs, check=True, timeout=900)
    out = tmp_path / "preds.jsonl"
    lb("predictions", job_dir(jobs), "-o", out, check=True)
    (pred,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert "+    return a + b\r\n" in pred["model_patch"]
    repo = rebuilt(pred["model_patch"], tmp_path)
    assert (repo / "calc.py").read_bytes() == CASES["gitattrs_crlf_filters.sh"][1]["calc.py"]

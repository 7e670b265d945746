"""Splitting patches and dropping protected paths (lancebench.grading.patch)."""

import subprocess

from lancebench.grading.patch import filter_patch, is_protected, split_patch
from lancebench.task.model import DEFAULT_PROTECTED


def _git(repo, *args, input=None):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, input=input).stdout


def _repo_with_changes(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "src").mkdir()
    (repo / "src" / "mod.py").write_text("x = 1\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_mod.py").write_text("def test(): pass\n")
    (repo / "old name.txt").write_text("a\n" * 20)
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    (repo / "src" / "mod.py").write_text("x = 2\n")
    (repo / "tests" / "test_mod.py").write_text("def test(): assert True\n")
    (repo / "conftest.py").write_text("import pytest\n")
    (repo / "blob.bin").write_bytes(bytes(range(256)))
    (repo / "ünïcode.py").write_text("y = 1\n")
    _git(repo, "mv", "old name.txt", "new name.txt")
    _git(repo, "add", "-A")
    return repo, _git(repo, "diff", "--cached", "--binary", "-M", "HEAD").decode()


def test_split_names_every_file(tmp_path):
    _, patch = _repo_with_changes(tmp_path)
    paths = set().union(*(fd.paths for fd in split_patch(patch)))
    assert paths == {"src/mod.py", "tests/test_mod.py", "conftest.py", "blob.bin", "ünïcode.py",
                     "old name.txt", "new name.txt"}


def test_filter_drops_protected_and_the_rest_applies(tmp_path):
    repo, patch = _repo_with_changes(tmp_path)
    kept, dropped = filter_patch(patch, DEFAULT_PROTECTED)
    assert dropped == ["conftest.py", "tests/test_mod.py"]
    _git(repo, "reset", "-q", "--hard", "HEAD")
    _git(repo, "clean", "-qfd")
    _git(repo, "apply", "--binary", "-", input=kept.encode())
    assert (repo / "src" / "mod.py").read_text() == "x = 2\n"
    assert (repo / "blob.bin").read_bytes() == bytes(range(256))
    assert (repo / "new name.txt").exists() and not (repo / "old name.txt").exists()
    assert (repo / "tests" / "test_mod.py").read_text() == "def test(): pass\n"
    assert not (repo / "conftest.py").exists()


def test_rename_out_of_a_protected_folder_is_dropped():
    patch = ("diff --git a/tests/helper.py b/src/helper.py\nsimilarity index 100%\n"
             "rename from tests/helper.py\nrename to src/helper.py\n")
    kept, dropped = filter_patch(patch, DEFAULT_PROTECTED)
    assert kept == "" and dropped == ["src/helper.py", "tests/helper.py"]


def test_default_globs():
    yes = ["tests/a.py", "pkg/tests/b.py", "test/x", "conftest.py", "a/b/conftest.py", "x.pth", "lib/sitecustomize.py",
           "usercustomize.py", "test_foo.py", "pkg/mod_test.py", "pytest.ini", "sub/tox.ini", "setup.cfg",
           "pyproject.toml"]
    no = ["src/foo.py", "src/testing.py", "contest.py", "tests.py", "src/latest/x.py", "README.md"]
    assert [p for p in yes if not is_protected(p, DEFAULT_PROTECTED)] == []
    assert [p for p in no if is_protected(p, DEFAULT_PROTECTED)] == []

"""Every removal of a sandbox's scratch goes through ``remove_tree``, which unmounts the storage
quota's filesystem first (issue 12, item 3: clean-up is bounded and complete). Before, ``check``,
``calibrate``, senior grading and the Ray executor removed scratch with ``shutil.rmtree``, which
cannot remove a mount point: every run left loop-mounted filesystems behind (hundreds after a
test session), and a rerun of a killed Ray trial failed with EBUSY."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from lbtest import TASKS, lb

from lancebench.sandbox.fstree import remove_tree


def _mounts_below(root: str) -> list[str]:
    with open("/proc/self/mountinfo") as fh:
        points = [line.split()[4] for line in fh]
    return [p for p in points if p.startswith(root.rstrip("/") + "/")]


@pytest.mark.skipif(os.geteuid() != 0, reason="the storage quota is mounted only as root")
def test_check_leaves_no_quota_mount(tmp_path):
    home = Path(tempfile.mkdtemp(prefix="lancebench-home-", dir="/var/tmp"))  # reachable by the sandbox user
    os.chmod(home, 0o755)
    try:
        lb("check", "-p", TASKS / "calc", "-k", "1", "-o", tmp_path / "jobs", env={"LANCEBENCH_HOME": str(home)},
           check=True)
        assert (home / "scratch").is_dir()  # the check used this home's scratch
        assert _mounts_below(str(home)) == []
    finally:
        remove_tree(home)


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting needs root")
def test_a_mount_made_after_the_table_was_read_is_unmounted_before_removal(tmp_path):
    """``remove_tree`` keeps the mount table between removals and reads it again only when the
    kernel says it changed (``fstree._MountTable``, issue 29): a mount made after an earlier
    removal read it (and another after that, once the table was read again) is still unmounted
    before its tree is removed, and nothing of either is left."""
    import subprocess

    remove_tree(tmp_path / "absent")  # the table is read and kept
    for n in range(2):
        target = tmp_path / f"tree{n}" / "deep" / "mnt"
        target.mkdir(parents=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "none", str(target)], check=True)
        (target / "file").write_text("on the tmpfs")
        assert _mounts_below(str(tmp_path / f"tree{n}")) == [str(target)]
        assert remove_tree(tmp_path / f"tree{n}") is None
        assert _mounts_below(str(tmp_path)) == [] and not (tmp_path / f"tree{n}").exists()


def test_remove_tree_removes_small_large_deep_and_linked_trees_without_following_links(tmp_path):
    """Whichever way a tree goes (in this process when small, ``fstree._small_enough``; else
    ``rm``): a small tree, one past ``SMALL_TREE`` entries, one 70 folders deep and one holding a
    link to a folder outside are gone, and what the link pointed at is untouched."""
    from lancebench.sandbox.fstree import SMALL_TREE

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("kept")
    trees = {name: tmp_path / name for name in ("small", "large", "deep", "linked")}
    (trees["small"] / "a" / "b").mkdir(parents=True)
    (trees["small"] / "a" / "b" / "f").write_text("x")
    trees["large"].mkdir()
    for i in range(SMALL_TREE + 5):
        (trees["large"] / f"f{i}").write_text("x")
    deep = trees["deep"]
    for _ in range(70):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (trees["linked"] / "in").mkdir(parents=True)
    (trees["linked"] / "in" / "link").symlink_to(outside)
    (trees["linked"] / "in" / "file-link").symlink_to(outside / "keep")
    for name, tree in trees.items():
        assert remove_tree(tree) is None, name
        assert not os.path.lexists(tree), name
    assert (outside / "keep").read_text() == "kept"

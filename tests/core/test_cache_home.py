"""The cache home and its folders (``caches/cache.py``): made when missing, given mode 0755 when
they have another, left alone (one ``stat``) when they are right (issue 29: every trial asks)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lancebench.caches import cache


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_cache_folder_is_made_fixed_and_then_left_alone(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("LANCEBENCH_HOME", str(tmp_path / "deep" / "home"))
    old = os.umask(0o077)  # a strict umask: the mode comes from the fix, not the default
    try:
        envs = cache.sub("envs")
    finally:
        os.umask(old)
    assert envs == tmp_path / "deep" / "home" / "envs" and envs.is_dir()
    assert _mode(envs) == 0o755
    assert (_mode(tmp_path / "deep" / "home") == 0o755) == (os.geteuid() == 0)  # the home's mode only as root
    os.chmod(envs, 0o700)
    cache.sub("envs")
    assert _mode(envs) == 0o755
    before = os.stat(envs).st_ctime_ns
    cache.sub("envs")  # right already: not written again
    assert os.stat(envs).st_ctime_ns == before
    (tmp_path / "deep" / "home" / "file").write_text("not a folder")
    with pytest.raises(FileExistsError):
        cache.sub("file")

"""The user tool's request watcher under a flood (grading/user_tool.py:take_requests): each poll
looks at a bounded number of entries, removes every entry that is not a request (folders whole,
symbolic links never followed, stale dot files), keeps a request being written, and finds the real
requests once the flood has drained. Run on real folders; the CPU it costs a poll is measured in
benchmarks/user_tool_flood.py."""

from __future__ import annotations

import os
import time
from pathlib import Path

from lancebench.grading.user_tool import take_requests


def test_a_flood_drains_in_bounded_polls_and_the_requests_are_found(tmp_path: Path) -> None:
    requests = tmp_path / "requests"
    requests.mkdir()
    outside = tmp_path / "outside"
    (outside / "keep").mkdir(parents=True)
    for i in range(1000):
        (requests / f"d{i}").mkdir()
    (requests / "deep").mkdir()
    (requests / "deep" / "a" / "b").mkdir(parents=True)
    (requests / "link.json").symlink_to(outside)
    (requests / "dirlink").symlink_to(outside)
    (requests / "junk.txt").write_text("x")
    (requests / "bad id!.json").write_text("{}")
    (requests / "r1.json").write_text("{}")
    (requests / "r-2.json").write_text("{}")
    (requests / ".r3.tmp").write_text("{}")  # being written
    stale = requests / ".old.tmp"
    stale.write_text("{}")
    found: list[str] = []
    polls = 0
    while len(list(os.scandir(requests))) > 2 and polls < 100:
        before = len(list(os.scandir(requests)))
        found += take_requests(requests, max_entries=200, stale_sec=3600)
        polls += 1
        assert before - len(list(os.scandir(requests))) <= 200  # a bounded amount of work per poll
    assert sorted(found) == ["r-2", "r1"]
    assert sorted(e.name for e in os.scandir(requests)) == [".old.tmp", ".r3.tmp"]
    assert 1000 / 200 <= polls <= 1000 / 200 + 2
    assert (outside / "keep").is_dir()  # links removed, never followed
    old = time.time() - 120
    os.utime(stale, (old, old))  # mtime is the agent's to set: the age counts from the last change (ctime)
    assert take_requests(requests, stale_sec=3600) == [] and stale.exists()
    assert take_requests(requests, stale_sec=0) == [] and not any(requests.iterdir())


def test_a_missing_request_folder_is_no_request(tmp_path: Path) -> None:
    assert take_requests(tmp_path / "gone") == []

"""``LocalSandbox.exec_with_app``: a browser task's app server runs beside the command (the test
runner) as another host uid, in a sandbox of its own that shares only the runner's network
namespace: the runner reaches it on 127.0.0.1, it sees none of the runner's processes, the
workspace read-only and no hidden mount; it ends with the command. ``fstree.seal_tree`` gives a
folder to one uid alone. (Grading with it: ``tests/adversarial/test_runner_uid_attacks.py``.)"""

from __future__ import annotations

import asyncio
import os
import stat
import time
from pathlib import Path

import pytest

from lancebench.sandbox.base import AppProcess, Mount, SandboxSpec
from lancebench.sandbox.fstree import seal_tree
from lancebench.sandbox.local import LocalSandbox, app_host_uid, sandbox_host_uid

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="a second uid needs root")

SEEN = "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '"
# /tmp/seen is renamed into place: the app is killed with the command, maybe between a truncation
# and its write (CI saw an empty listing once under load)
APP = ("cat /hidden/secret 2>&1 | head -c 60; echo; touch /app/by-app 2>&1; "
       f"(while :; do date +%s%N > /tmp/beat; {SEEN} > /tmp/seen.new; mv /tmp/seen.new /tmp/seen; sleep 0.1; done) & "
       "exec python3 -m http.server 8765 --bind 127.0.0.1 --directory /app")
RUNNER = ("(exec -a lb-runner-marker sleep 30) & "
          "for i in $(seq 100); do python3 -c \"import urllib.request as u; "
          "print(u.urlopen('http://127.0.0.1:8765/page.txt').read().decode())\" 2>/dev/null && break; sleep 0.1; done; "
          f"sleep 0.5; touch /app/by-runner; echo; {SEEN}; kill %1")


def test_app_runs_apart_under_its_own_uid_and_ends_with_the_command(shared: Path):
    (shared / "ws").mkdir()
    (shared / "ws" / "page.txt").write_text("served by the app\n")
    (shared / "hidden").mkdir()
    (shared / "hidden" / "secret").write_text("hidden test\n")
    sb = LocalSandbox(SandboxSpec(workdir="/app", workspace=shared / "ws",
                                  mounts=(Mount(shared / "hidden", "/hidden", False),)), root=shared / "root")

    async def go():
        await sb.start()
        try:
            return await sb.exec_with_app(RUNNER, AppProcess(command=APP, hidden=("/hidden",)), timeout=60)
        finally:
            await sb.stop()

    res, app_out = asyncio.run(go())
    assert res.exit_code == 0, (res.stderr, app_out)
    assert "served by the app" in res.stdout  # 127.0.0.1 is shared
    assert "No such file or directory" in app_out and "hidden test" not in app_out  # /hidden not mounted
    assert "Read-only file system" in app_out and not (shared / "ws" / "by-app").exists()
    # host uids: the app's files belong to the app uid, the runner's to the sandbox uid
    assert (shared / "root" / "app" / "tmp" / "beat").stat().st_uid == app_host_uid()
    assert (shared / "ws" / "by-runner").stat().st_uid == sandbox_host_uid() != app_host_uid()
    # each sees only its own processes
    seen_by_app = (shared / "root" / "app" / "tmp" / "seen").read_text()
    assert "http.server" in seen_by_app and "lb-runner-marker" not in seen_by_app, seen_by_app
    assert "lb-runner-marker" in res.stdout and "http.server" not in res.stdout, res.stdout
    beat = (shared / "root" / "app" / "tmp" / "beat").read_text()
    time.sleep(0.6)
    assert (shared / "root" / "app" / "tmp" / "beat").read_text() == beat  # the app and its children ended


def test_seal_tree_leaves_a_folder_to_one_uid(shared: Path):
    folder = shared / "logs"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "f").write_text("x")
    os.chmod(folder / "sub" / "f", 0o666)
    seal_tree(folder, 61234)
    for path in (folder, folder / "sub", folder / "sub" / "f"):
        st = path.stat()
        assert (st.st_uid, st.st_gid) == (61234, 61234), path
        assert stat.S_IMODE(st.st_mode) & 0o077 == 0, (path, oct(st.st_mode))

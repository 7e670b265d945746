"""A local sandbox that runs no command makes no file system and changes no owner; its first
command gets the storage quota, the repository and the owners, and keeps what was put before
(issue 29, item 2; sandbox/local_files.py)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from lancebench.backends.local import LocalBackend
from lancebench.task.load import load_task

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tasks"


def test_no_command_no_filesystem_then_the_first_command_gets_everything(shared, monkeypatch):
    monkeypatch.setenv("LANCEBENCH_HOME", str(shared / "home"))
    task = load_task(FIXTURES / "pick")
    backend = LocalBackend()
    scratch = shared / "scratch"
    answer = shared / "answer.json"
    answer.write_text('{"selected_proposal_id": 1}\n')

    async def go():
        env = await backend.prepare(task)
        box = backend.open(task, env, scratch)
        await box.start()
        try:
            await box.put(answer, f"{env.workdir}/answer.json")
            await box.get(f"{env.workdir}/answer.json", shared / "back.json")
            before = (os.path.ismount(scratch), box.cgroups, (box.workspace / "answer.json").stat().st_uid,
                      (box.workspace / ".git").exists())
            res = await box.exec("cat answer.json; test -d .git && echo repo; id -u; stat -c %u answer.json; "
                                 "touch made-by-the-sandbox && echo wrote")
            return before, res, os.path.ismount(scratch), box.uid
        finally:
            await box.stop()

    before, res, mounted_after, uid = asyncio.run(go())
    assert (shared / "back.json").read_text() == answer.read_text()
    # before any command: no quota filesystem, no cgroups, the put file still the harness's, no copy of the repo
    assert before == (False, None, os.geteuid(), False)
    assert res.ok, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == '{"selected_proposal_id": 1}' and lines[1] == "repo" and lines[-1] == "wrote"
    assert lines[2] == "1000"  # the sandbox's own uid inside
    if uid is not None:  # as root: the storage quota is mounted and the put file is the sandbox user's
        assert mounted_after is True
        assert lines[3] == "1000"

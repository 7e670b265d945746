"""Who is at fault when the capture of the agent's work fails, on the local backend (bubblewrap;
the docker backend's are in test_round8_attacks.py): decided by a control, the same capture of
the pristine base in the same scratch space (``backends/capture.py:controlled``), never by a
threshold. An agent that makes its workdir uncapturable gets its own failure, with the control
that cleared the harness; a scratch space the harness cannot write (filled by the test, outside
the agent) is the machine's: ``invalid``, with the control that failed too.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from lancebench.backends.local import LocalBackend
from lancebench.errors import SandboxError, WorkspaceError
from lancebench.runner.control import Checkpoint, TrialInvalid, blame
from lancebench.sandbox.fstree import remove_tree
from lancebench.task.load import load_task

TASK = Path(__file__).resolve().parents[1] / "fixtures" / "tasks" / "runner-ids"  # its set-up copies one file
pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")
# ten nested repositories: the capture stages nested repositories at most 8 levels deep
NESTED = "p=.; for i in $(seq 10); do p=$p/r$i; mkdir -p $p && git init -q $p; done; echo x > $p/f.txt"


@pytest.fixture
def scratch():
    path = Path(tempfile.mkdtemp(prefix="lancebench-capctl-", dir="/var/tmp"))
    path.chmod(0o755)
    yield path
    remove_tree(path)


def _capture_after(scratch: Path, agent: str, capture_scratch: Path, before_capture=None):
    """Run ``agent`` (a shell command) in a fresh sandbox of the task, call ``before_capture()``
    (the test's own change to this machine, outside every sandbox), then capture. Returns (the
    exception the capture raised or None, the backend, the task, the prepared environment)."""
    task, backend = load_task(TASK), LocalBackend()

    async def body():
        env = await backend.prepare(task)
        box = backend.open(task, env, scratch / "agent")
        async with box:
            assert (await box.exec(agent)).ok
            if before_capture is not None:
                before_capture()
            try:
                await backend.capture(task, env, box, capture_scratch)
            except (SandboxError, WorkspaceError) as exc:
                return exc, env
        return None, env

    exc, env = asyncio.run(body())
    return exc, backend, task, env


def test_a_workdir_the_agent_made_uncapturable_is_its_failure_with_the_control(scratch):
    exc, *_ = _capture_after(scratch, NESTED, scratch / "capture")
    assert type(exc) is WorkspaceError, exc
    assert "nested repositories too many or too deep" in str(exc)  # the capture's own finding, kept
    assert getattr(exc, "control", None) == (
        "the same capture of the pristine base (a fresh sandbox of the environment, never started), in the same "
        "scratch space, worked: the agent's work made the capture fail")
    assert not (scratch / "capture" / "control").exists() and not (scratch / "capture-control").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a small tmpfs (root only)")
def test_a_scratch_space_the_harness_cannot_write_is_invalid_with_its_control(scratch):
    small = scratch / "capture"  # the capture's scratch space itself: 1 MiB, filled by the test
    small.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "tmpfs", str(small)], check=True)

    def fill() -> None:  # this machine's disk under the capture's scratch space, full: not the agent's doing
        with open(small / "filler", "wb") as fh, pytest.raises(OSError):
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()

    try:
        exc, backend, task, env = _capture_after(scratch, "echo changed > answer.txt", small, fill)
        assert type(exc) is SandboxError, exc
        control = getattr(exc, "control", None)
        assert control is not None and control.startswith(
            "the same capture of the pristine base (a fresh sandbox of the environment, never started) fails too: "), \
            control
        assert "No space left on device" in control and "No space left on device" in str(exc)  # the same way
        # the trial: invalid with that control, without a second one (which, in another scratch
        # space, would work and blame the agent)
        point = Checkpoint(agent_ran=True, env=env, capturing=True)
        verdict = asyncio.run(blame(exc, point, task, backend, scratch / "trial", {}))
        assert isinstance(verdict, TrialInvalid), verdict
        assert verdict.control == control
    finally:
        subprocess.run(["umount", "-l", str(small)], check=False)

"""Attack pass round 8 (docs/security.md, "Attack pass round 8"): the docker backend's capture on
this machine (an image with git: its ``.git`` copied to the host, the agent's workdir exported and
diffed in bubblewrap). Needs a Docker engine, the locally built ``debian:bookworm-slim`` image
(``.ci/docker-setup.sh``) and bubblewrap; skips otherwise. One prepared image, one agent container
holding every attack, two captures (on the host and in a container) compared.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest
from docker_support import docker_skip_reason

docker_mod = pytest.importorskip("docker", reason="the Docker SDK is missing: pip install 'lancebench[docker]'")

from lancebench.sandbox.docker import gc  # noqa: E402
from lancebench.sandbox.docker_engine import client  # noqa: E402
from lancebench.sandbox.fstree import remove_tree  # noqa: E402
from lancebench.task.load import load_task  # noqa: E402

BASE = "debian:bookworm-slim"
_REASON = docker_skip_reason(BASE) or (None if shutil.which("bwrap") else "bubblewrap (bwrap) is not installed")
pytestmark = [pytest.mark.docker, pytest.mark.skipif(_REASON is not None, reason=_REASON or "")]
JOB = f"pytest-{uuid.uuid4().hex[:8]}"

DOCKERFILE = f"""FROM {BASE}
RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*
WORKDIR /app
RUN echo a > a.txt && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm base \\
 && echo {{nonce}} > /nonce
"""

# links an ordinary agent makes (a virtual environment's absolute link to its interpreter, a link
# up out of the workdir, a hard link) and special files
AGENT = ("ln -s /usr/bin/python3 abs.link && ln -s ../elsewhere up.link && mkdir -p d && ln -s ../../x d/up2.link "
         "&& echo h > h1.txt && ln h1.txt h2.txt && mkfifo fifo && ln fifo fifo2 && ln -P abs.link abs2.link "
         "&& echo b > a.txt && echo n > \"$(printf 'new\\nline.txt')\" && echo l > $(printf 'L%.0s' $(seq 200)) "
         "&& echo c > \"$(printf 'caf\\351.txt')\" && mkdir -p \"$(printf 'd\\001ir')\" "
         "&& echo x > \"$(printf 'd\\001ir/x')\"")


def _task(root: Path):
    (root / "environment").mkdir(parents=True)
    (root / "environment" / "Dockerfile").write_text(DOCKERFILE.replace("{nonce}", uuid.uuid4().hex))
    (root / "tests").mkdir()
    (root / "tests" / "test.sh").write_text("#!/bin/bash\nexit 0\n")
    (root / "instruction.md").write_text("change things\n")
    (root / "task.toml").write_text('version = "1.0"\n[environment]\nbuild_timeout_sec = 600\n'
                                    '[lancebench]\nkind = "code"\n')
    return load_task(root)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    from lancebench.backends.docker import DockerBackend

    task = _task(tmp_path_factory.mktemp("task") / f"r8cap-{uuid.uuid4().hex[:6]}")
    backend = DockerBackend(ca_bundle=False)
    env = asyncio.run(backend.prepare(task))
    yield task, backend, env
    gc(JOB)
    try:
        client().api.remove_image(env.handle.image, force=True, noprune=True)
    except docker_mod.errors.APIError:
        pass


@pytest.fixture
def scratch():
    path = Path(tempfile.mkdtemp(prefix="lancebench-r8-"))
    path.chmod(0o755)
    yield path
    remove_tree(path)


def test_links_and_special_files_are_captured_on_the_host_as_in_a_container(prepared, scratch):
    """Absolute links, links up out of the workdir and hard links are ordinary work: the host
    capture gives the capture container's patch, not a capture failure."""
    task, backend, env = prepared
    assert env.handle.host_base is not None
    in_container = dataclasses.replace(env, handle=dataclasses.replace(env.handle, host_base=None))

    async def body():
        agent = backend.open(task, env, scratch / "agent", labels={"lancebench.job": JOB, "lancebench.trial": "r8"})
        await agent.start()
        try:
            r = await agent.exec(AGENT)
            assert r.ok, r
            boxed = await backend.capture(task, in_container, agent, scratch / "c2")
            on_host = await backend.capture(task, env, agent, scratch / "c1")
        finally:
            await agent.stop()
        return on_host, boxed

    on_host, boxed = asyncio.run(body())
    assert "+/usr/bin/python3" in boxed and "+../elsewhere" in boxed and "h2.txt" in boxed, boxed
    names = {"new\nline.txt", "L" * 200, "caf\udce9.txt", "d\x01ir/x", "h2.txt", "abs2.link"}  # odd names too
    assert names <= set(boxed.paths), boxed.paths
    assert on_host == boxed and on_host.paths == boxed.paths
    assert (scratch / "elsewhere").exists() is False


def test_an_agent_cannot_unknow_the_metered_cost(tmp_path):
    """An agent reporting one call more than the meter saw and no cost (None) had the trial's
    cost recorded as unknown, which a job's cost budget counts as $0: the meter's $5 of calls
    vanished from the trial and from ``--max-cost``. The metered cost is now the floor."""
    from lancebench.llm.meter import UsageMeter
    from lancebench.results.models import Usage
    from lancebench.runner.spend import settle

    meter = UsageMeter(tmp_path / "usage.json")
    for _ in range(10):
        meter.add(Usage(input_tokens=1000, output_tokens=200, cost_usd=0.5, calls=1))
    usage, _ = settle(Usage(input_tokens=0, output_tokens=0, cost_usd=None, calls=11), meter)
    assert usage.cost_usd == 10 * 0.5 and usage.calls == 11
    unpriced = UsageMeter(tmp_path / "b.json")  # the meter knows no price: the agent's own count stands
    unpriced.add(Usage(input_tokens=10, output_tokens=2, cost_usd=None, calls=1))
    assert settle(Usage(input_tokens=10, output_tokens=2, cost_usd=0.25, calls=2), unpriced)[0].cost_usd == 0.25


def test_a_log_file_grown_while_it_is_copied_is_copied_as_it_was_seen(tmp_path):
    """The verifier's log folder is copied straight from its host folder (``DockerSandbox.get`` of
    a writable mount, as the local backend's): code under test still running in the sandbox
    watches its file with inotify (which sees the host's open of the shared inode) and extends
    it, sparse, to 1 GiB the moment the copy opens it: the copy read until the end of the file,
    past the size it had checked against the bound (256 MiB), and wrote 1 GiB of zeros into the
    job's folder. Now a file is copied up to the size the bound was checked against."""
    import ctypes
    import os
    import threading

    from lancebench.sandbox.fstree import copy_tree

    logs = tmp_path / "logs"
    logs.mkdir()
    big = logs / "grows.log"
    with open(big, "wb") as f:
        f.truncate(64 << 20)  # under the bound when the copy checks it
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(0)
    assert fd >= 0 and libc.inotify_add_watch(fd, str(big).encode(), 0x20) >= 0  # IN_OPEN

    def grow() -> None:
        os.read(fd, 4096)
        with open(big, "r+b") as f:
            f.truncate(1 << 30)

    grower = threading.Thread(target=grow, daemon=True)
    grower.start()
    copy_tree(logs, tmp_path / "copy")
    grower.join(5)
    os.close(fd)
    assert (tmp_path / "copy" / "grows.log").stat().st_size == 64 << 20


def _capture_after(prepared, scratch: Path, agent: str, capture_scratch: Path, before_capture=None):
    """Run ``agent`` (a shell command) in a fresh agent container, call ``before_capture()`` (the
    test's own change to this machine, outside every container), then capture with a fresh docker
    backend. Returns (the exception the capture raised, or None; the backend; the environment)."""
    from lancebench.backends.docker import DockerBackend
    from lancebench.errors import SandboxError, WorkspaceError

    task, _, _ = prepared
    backend = DockerBackend(ca_bundle=False)  # its own: a fallback to container captures stays in it

    async def body():
        env = await backend.prepare(task)  # the module's image, known to this process: no build
        agent_box = backend.open(task, env, scratch / "agent", labels={"lancebench.job": JOB,
                                                                       "lancebench.trial": "r8f"})
        await agent_box.start()
        try:
            assert (await agent_box.exec(agent)).ok
            if before_capture is not None:
                before_capture()
            try:
                await backend.capture(task, env, agent_box, capture_scratch)
            except (SandboxError, WorkspaceError) as exc:
                return exc, env
            return None, env
        finally:
            await agent_box.stop()

    exc, env = asyncio.run(body())
    return exc, backend, env


@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a small tmpfs (root only)")
@pytest.mark.parametrize(("disk", "written"), [("2m", 1_500_000), ("3m", 1_200_000)], ids=["export", "git"])
def test_an_agent_that_fills_the_captures_disk_gets_its_own_failure(prepared, scratch, disk, written):
    """The host capture unpacks the agent's workdir into the capture's scratch space (here a small
    tmpfs); the agent's files fill it (``export``: while the workdir is unpacked; ``git``: while
    git writes the patch in bubblewrap). Round 8 took it for this machine's full disk when under
    1 MiB was left (``SandboxError``, and the captures moved to containers): a threshold the agent
    reaches with its own writes. Now the control decides: the same capture of the pristine base,
    in the same scratch space, works, so the failure is the agent's (``WorkspaceError`` with the
    control recorded), and the captures stay on this machine."""
    import subprocess

    from lancebench.errors import WorkspaceError

    small = scratch / "capture"
    small.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={disk},mode=0755", "tmpfs", str(small)], check=True)
    try:
        exc, backend, env = _capture_after(prepared, scratch, f"head -c {written} /dev/urandom > big.bin", small)
    finally:
        subprocess.run(["umount", "-l", str(small)], check=False)
    assert type(exc) is WorkspaceError, exc
    assert getattr(exc, "control", None) == (
        f"the same capture of the pristine base (a created, never started container of {env.handle.image}, on "
        "this machine), in the same scratch space, worked: the agent's work made the capture fail")
    assert backend._host_capture_failed is None


@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a small tmpfs (root only)")
def test_a_full_disk_under_the_captures_scratch_is_invalid_with_its_control(prepared, scratch):
    """The capture's scratch space is full before the capture (filled by the test, outside the
    agent, whose one change is a line): the capture on this machine fails, and so does its
    control (the pristine base, the same way): the host capture is broken here, the backend moves
    to the capture in a container, which fails with its control too. The trial is ``invalid`` with
    that control, without a second one (round 8: the container capture's spool raised a bare
    ``OSError``)."""
    import subprocess

    from lancebench.errors import SandboxError
    from lancebench.runner.control import Checkpoint, TrialInvalid, blame

    task = prepared[0]
    small = scratch / "capture"
    small.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "tmpfs", str(small)], check=True)

    def fill() -> None:
        with open(small / "filler", "wb") as fh, pytest.raises(OSError):
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()

    try:
        exc, backend, env = _capture_after(prepared, scratch, "echo b > a.txt", small, fill)
    finally:
        subprocess.run(["umount", "-l", str(small)], check=False)
    assert type(exc) is SandboxError, exc
    control = getattr(exc, "control", None)
    assert control is not None and control.startswith(
        f"the same capture of the pristine base (a created, never started container of {env.handle.image}, in a "
        "capture container) fails too: "), control
    assert "No space left on device" in control and "No space left on device" in str(exc)  # the same way
    assert backend._host_capture_failed is not None and "fails too" in backend._host_capture_failed
    verdict = asyncio.run(blame(exc, Checkpoint(agent_ran=True, env=env, capturing=True), task, backend,
                                scratch / "trial", {"lancebench.job": JOB}))
    assert isinstance(verdict, TrialInvalid), verdict
    assert verdict.control == control


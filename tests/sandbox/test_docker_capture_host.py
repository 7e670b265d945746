"""The docker backend's cheaper trial (issue 29): an image with git is captured on this machine,
without a capture container, to the same patch the capture container gives; the verifier's
Python guard finds an image's site folders once. Needs a Docker engine, the locally built
``debian:bookworm-slim`` image (``.ci/docker-setup.sh``) and bubblewrap; skips otherwise.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from docker_support import docker_skip_reason

docker_mod = pytest.importorskip("docker", reason="the Docker SDK is missing: pip install 'lancebench[docker]'")

from lancebench.caches.cache import sub  # noqa: E402
from lancebench.sandbox.base import CapturedPatch  # noqa: E402
from lancebench.sandbox.docker import gc  # noqa: E402
from lancebench.sandbox.docker_engine import client  # noqa: E402
from lancebench.sandbox.docker_quota import quota_root  # noqa: E402
from lancebench.sandbox.fstree import remove_tree  # noqa: E402
from lancebench.task.load import load_task  # noqa: E402

BASE = "debian:bookworm-slim"
_REASON = docker_skip_reason(BASE) or (None if shutil.which("bwrap") else "bubblewrap (bwrap) is not installed")
pytestmark = [pytest.mark.docker, pytest.mark.skipif(_REASON is not None, reason=_REASON or "")]
JOB = f"pytest-{uuid.uuid4().hex[:8]}"

# git, a committed repository with an ignore rule, a CRLF file and a binary file, and a site folder
DOCKERFILE = f"""FROM {BASE}
RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*
RUN mkdir -p /usr/local/lib/python3.11/site-packages
WORKDIR /app
RUN printf 'a\\nb\\n' > text.txt && printf 'one\\r\\ntwo\\r\\n' > crlf.txt && printf '\\000\\001\\002' > blob.bin \\
 && echo '*.log' > .gitignore && echo gone > old.txt && git init -q && git add -A \\
 && git -c user.name=t -c user.email=t@t commit -qm base && echo {{nonce}} > /nonce
"""

# what the agent does: edits, a new binary file, a removal, an ignored file, a nested repository
# (captured as its files), and a hostile .git of its own (never read by the capture)
AGENT = ("printf 'a\\nB\\n' > text.txt && printf 'one\\r\\nTWO\\r\\n' > crlf.txt && printf '\\003\\000' > new.bin "
         "&& rm old.txt && echo noise > run.log && mkdir -p sub && cd sub && git init -q && echo inner > f.txt "
         "&& cd .. && printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config && rm -rf .git/objects")


def _task(root: Path):
    (root / "environment").mkdir(parents=True)
    (root / "environment" / "Dockerfile").write_text(DOCKERFILE.replace("{nonce}", uuid.uuid4().hex))
    (root / "tests").mkdir()
    (root / "tests" / "test.sh").write_text("#!/bin/bash\nexit 0\n")
    (root / "instruction.md").write_text("change things\n")
    (root / "task.toml").write_text('version = "1.0"\n[environment]\nbuild_timeout_sec = 600\n'
                                    '[lancebench]\nkind = "code"\n')
    return load_task(root)


def _created(since: float, trial: str) -> int:
    """Capture containers of ``trial`` created since ``since`` (epoch seconds, less one)."""
    events = client().events(since=int(since) - 1, until=int(time.time()) + 1, decode=True,
                              filters={"type": "container", "event": "create",
                                       "label": [f"lancebench.trial={trial}", "lancebench.phase=capture"]})
    return sum(1 for _ in events)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    from lancebench.backends.docker import DockerBackend

    task = _task(tmp_path_factory.mktemp("task") / f"hostcap-{uuid.uuid4().hex[:6]}")
    backend = DockerBackend(ca_bundle=False)
    env = asyncio.run(backend.prepare(task))
    yield task, backend, env
    gc(JOB)
    try:
        client().api.remove_image(env.handle.image, force=True, noprune=True)  # the apt layer stays as build cache
    except docker_mod.errors.APIError:
        pass


@pytest.fixture
def scratch():
    """A folder the host capture's sandbox user (uid 61000 under root) can reach, unlike pytest's."""
    path = Path(tempfile.mkdtemp(prefix="lancebench-hostcap-"))
    path.chmod(0o755)
    yield path
    remove_tree(path)


@pytest.mark.slow
def test_an_image_with_git_is_captured_on_the_host_to_the_container_captures_patch(prepared, scratch):
    task, backend, env = prepared
    assert env.handle.host_base is not None
    assert (env.handle.host_base / "commit").read_text().strip() == env.base_commit
    in_container = dataclasses.replace(env, handle=dataclasses.replace(env.handle, host_base=None))

    tmp_path = scratch
    async def body() -> tuple[CapturedPatch, CapturedPatch, int, int]:
        agent = backend.open(task, env, tmp_path / "agent", labels={"lancebench.job": JOB, "lancebench.trial": "h"})
        await agent.start()
        try:
            r = await agent.exec(AGENT)
            assert r.ok, r
            t0 = time.time()
            on_host = await backend.capture(task, env, agent, tmp_path / "c1")
            t1 = time.time()
            boxed = await backend.capture(task, in_container, agent, tmp_path / "c2")  # the reference
            host_boxes, boxes = _created(t0, "h"), _created(t1, "h")
        finally:
            await agent.stop()
        return on_host, boxed, host_boxes, boxes

    on_host, boxed, host_boxes, boxes = asyncio.run(body())
    assert host_boxes == 1 and boxes == 1  # the host capture started none; the reference its capture container
    assert on_host == boxed and on_host.paths == boxed.paths
    for piece in ("-b\n+B", "-two\r\n+TWO\r\n", "new.bin", "GIT binary patch", "deleted file mode", "sub/f.txt",
                  "+inner"):
        assert piece in on_host, on_host
    assert "run.log" not in on_host and "/tmp/pwned" not in on_host


def _reads(cid: str, since: float) -> int:
    """Archives the engine made of container ``cid`` since ``since`` (epoch seconds, less one)."""
    return sum(1 for _ in client().events(since=int(since) - 1, until=int(time.time()) + 1, decode=True,
                                          filters={"type": "container", "container": cid, "event": "archive-path"}))


@pytest.mark.slow
def test_an_untouched_workdir_is_captured_empty_without_reading_it_once_its_image_is_known(prepared, scratch):
    """A workdir the agent left as the image has it (its writes elsewhere) captures to the empty
    patch; once one such capture of the image gave it, later ones give it without reading the
    container; a workdir with a change, a removal alone included, is captured in full."""
    task, backend, env = prepared
    marks = sub("docker-base")

    async def one(n: int, command: str) -> tuple[CapturedPatch, int, list[str]]:
        agent = backend.open(task, env, scratch / f"agent{n}", labels={"lancebench.job": JOB, "lancebench.trial": "u"})
        await agent.start()
        try:
            assert (await agent.exec(command)).ok
            image_id, t0 = agent.image_id.split(":")[-1][:32], time.time()
            patch = await backend.capture(task, env, agent, scratch / f"c{n}")
            return patch, _reads(agent.container_id, t0), sorted(p.name for p in marks.glob(f"{image_id}-*.untouched"))
        finally:
            await agent.stop()

    image_id = client().api.inspect_image(env.handle.image)["Id"].split(":")[-1][:32]
    for mark in marks.glob(f"{image_id}-*.untouched"):  # this image's only: other runs share the home
        mark.unlink()
    first, first_reads, first_marks = asyncio.run(one(1, "echo x > /tmp/x && mkdir -p /root/.cache"))
    again, again_reads, _ = asyncio.run(one(2, "echo y > /tmp/y"))
    removed, removed_reads, _ = asyncio.run(one(3, "rm /app/old.txt"))
    assert first == "" and first_reads == 1 and len(first_marks) == 1  # captured in full, then marked
    assert again == "" and again.paths == () and again_reads == 0  # nothing read
    assert removed_reads == 1 and removed.paths == ("old.txt",) and "deleted file mode" in removed


@pytest.mark.slow
def test_the_guard_finds_an_images_site_folders_once(prepared, tmp_path):
    """Later fresh grading containers of an image, in this process or a later one, get the same
    guard without a ``find``."""
    task, backend, env = prepared
    folders, execs = [], []

    async def grade(n: int) -> None:
        box = backend.open(task, env, tmp_path / f"grade{n}", labels={"lancebench.job": JOB})
        await box.start()
        try:
            t0 = time.time()
            folders.append(await backend.guard_python(task, env, box))
            execs.append(sum(1 for _ in client().events(
                since=int(t0) - 1, until=int(time.time()) + 1, decode=True,
                filters={"type": "container", "container": box.container_id, "event": "exec_create"})))
            r = await box.exec(["cat", "/usr/local/lib/python3.11/site-packages/" + PTH_NAME])
            assert r.ok and r.stdout == PTH_TEXT, r
        finally:
            await box.stop()

    from lancebench.backends import docker as docker_backend
    from lancebench.grading.pyguard import PTH_NAME, PTH_TEXT

    asyncio.run(grade(1))
    asyncio.run(grade(2))
    docker_backend._site_folders.clear()  # as in a new process: the answer is read from its record
    asyncio.run(grade(3))
    assert folders[0] == folders[1] == folders[2] == ["/usr/local/lib/python3.11/site-packages"]
    assert execs == [1, 0, 0]  # the first container ran the find, the later ones none


@pytest.mark.slow
def test_a_known_images_guard_is_bound_at_the_start_without_a_copy(prepared, tmp_path):
    """Once an image's site folders are known, a grading container opened with
    ``guard_mounts`` has the guard's ``.pth`` in each from its start: ``guard_python`` copies
    nothing through the engine, and root inside can neither replace nor remove the file."""
    task, backend, env = prepared
    from lancebench.grading.pyguard import PTH_NAME, PTH_TEXT

    async def body() -> tuple[tuple, list[str], int, str, bool]:
        first = backend.open(task, env, tmp_path / "first", labels={"lancebench.job": JOB})
        await first.start()
        try:
            await backend.guard_python(task, env, first)  # finds and records the folders
        finally:
            await first.stop()
        mounts = await backend.guard_mounts(task, env)
        box = backend.open(task, env, tmp_path / "grade", mounts=mounts, labels={"lancebench.job": JOB})
        await box.start()
        try:
            t0 = time.time()
            folders = await backend.guard_python(task, env, box)
            puts = sum(1 for _ in client().events(
                since=int(t0) - 1, until=int(time.time()) + 1, decode=True,
                filters={"type": "container", "container": box.container_id, "event": "extract-to-dir"}))
            pth = f"/usr/local/lib/python3.11/site-packages/{PTH_NAME}"
            r = await box.exec(["cat", pth])
            gone = await box.exec(f"rm -f {pth} || echo x > {pth} || true; test -f {pth} && cat {pth}", user="root")
        finally:
            await box.stop()
        return mounts, folders, puts, r.stdout, gone.stdout == PTH_TEXT

    mounts, folders, puts, text, kept = asyncio.run(body())
    assert [m.target for m in mounts] == [f"/usr/local/lib/python3.11/site-packages/{PTH_NAME}"]
    assert all(not m.writable and m.source.read_text() == PTH_TEXT for m in mounts)
    assert folders == ["/usr/local/lib/python3.11/site-packages"] and puts == 0
    assert text == PTH_TEXT and kept


@pytest.mark.slow
def test_a_patch_is_applied_from_git_applys_stdin_without_a_copy(prepared, tmp_path):
    """An image with git: the grading container gets the patch on ``git apply``'s standard input
    (no archive put into it); a patch that does not apply is (False, its log)."""
    task, backend, env = prepared
    patch = ("diff --git a/text.txt b/text.txt\n--- a/text.txt\n+++ b/text.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
             "diff --git a/crlf.txt b/crlf.txt\n--- a/crlf.txt\n+++ b/crlf.txt\n@@ -1,2 +1,2 @@\n one\r\n-two\r\n"
             "+TWO\r\n")

    async def body() -> tuple[tuple[bool, str] | None, tuple[bool, str] | None, str, int]:
        box = backend.open(task, env, tmp_path / "grade", labels={"lancebench.job": JOB})
        await box.start()
        try:
            t0 = time.time()
            done = await backend.apply_patch(task, env, box, patch, tmp_path / "apply")
            puts = sum(1 for _ in client().events(
                since=int(t0) - 1, until=int(time.time()) + 1, decode=True,
                filters={"type": "container", "container": box.container_id, "event": "extract-to-dir"}))
            again = await backend.apply_patch(task, env, box, patch, tmp_path / "apply")  # applied already
            r = await box.exec(["cat", "text.txt", "crlf.txt"])
        finally:
            await box.stop()
        return done, again, r.stdout, puts

    done, again, files, puts = asyncio.run(body())
    assert done == (True, "exit 0\n") and puts == 0
    assert files == "a\nB\none\r\nTWO\r\n"
    assert again is not None and again[0] is False and again[1].startswith("exit 1\n") and "text.txt" in again[1]


def test_a_writable_mounts_folder_is_read_on_the_host_as_the_engine_would_give_it(tmp_path):
    """``get`` of a writable mount's target copies its host folder (no archive from the engine):
    files and folders as written inside, symbolic links and special files left out and noted."""
    from lancebench.sandbox.base import Mount, SandboxSpec
    from lancebench.sandbox.docker import DockerSandbox

    logs = tmp_path / "logs"
    box = DockerSandbox(SandboxSpec(image=BASE, labels={"job": JOB, "trial": "g"},
                                    mounts=(Mount(logs, "/logs/verifier", True),)))

    async def body() -> int:
        await box.start()
        try:
            r = await box.exec("cd /logs/verifier && echo 1 > reward.txt && mkdir -p deep/er && echo x > deep/er/f "
                               "&& ln -s /etc/passwd link && mkfifo pipe")
            assert r.ok, r
            t0 = time.time()
            await box.get("/logs/verifier", tmp_path / "out")
            return sum(1 for _ in client().events(
                since=int(t0) - 1, until=int(time.time()) + 1, decode=True,
                filters={"type": "container", "container": box.container_id, "event": "archive-path"}))
        finally:
            await box.stop()

    assert asyncio.run(body()) == 0
    out = tmp_path / "out"
    assert (out / "reward.txt").read_text() == "1\n" and (out / "deep" / "er" / "f").read_text() == "x\n"
    assert not os.path.lexists(out / "link") and not os.path.lexists(out / "pipe")
    notes = (tmp_path / "out.copy-notes.txt").read_text()
    assert "link: symbolic link left out" in notes and "pipe: special file left out" in notes


@pytest.mark.slow
def test_an_empty_patch_graded_before_it_is_known_starts_no_canary_container(scratch):
    """Grading begun before the capture ends opens the graded and the canary run's sandboxes; the
    canary run's container starts only once the patch is known, so an empty patch (no canary
    run) starts one grading container, not two."""
    from lancebench.backends.docker import DockerBackend
    from lancebench.grading.verifier import verify_patch
    from lancebench.results.paths import TrialPaths

    backend = DockerBackend()  # the CA bundle of this machine: the image installs pytest
    task = load_task(Path(__file__).resolve().parents[1] / "fixtures" / "tasks" / "calc")  # tests to make a canary of
    labels = {"lancebench.job": JOB, "lancebench.trial": "empty"}

    async def go():
        env = await backend.prepare(task)
        patch = asyncio.get_running_loop().create_future()
        t0 = time.time()
        grading = asyncio.ensure_future(verify_patch(task, backend, env, patch, scratch=scratch / "g",
                                                     paths=TrialPaths(root=scratch / "t"), labels=labels))
        await asyncio.sleep(4)  # the graded run's container started meanwhile
        patch.set_result("")
        return await grading, t0

    verdict, t0 = asyncio.run(go())
    starts = sum(1 for _ in client().events(since=int(t0) - 1, until=int(time.time()) + 1, decode=True,
                                            filters={"type": "container", "event": "start",
                                                     "label": ["lancebench.trial=empty"]}))
    assert (verdict.status, verdict.patch_applied, len(verdict.runs)) == ("unresolved", None, 1), verdict
    assert starts == 1
    assert not list(quota_root().glob(f"lancebench-{JOB}-empty-*.json"))  # the unstarted one's quota released too

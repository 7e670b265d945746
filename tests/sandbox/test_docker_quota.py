"""The docker backend's storage quota (``lancebench.sandbox.docker_quota``): ``storage_mb`` bounds
the sum of everything a container writes (its root filesystem, ``/dev/shm``, its writable mounts),
an honest task still resolves under it, and no mount or loop device outlives a job, nor a harness
killed mid-trial (``lancebench gc`` and the next docker backend release what it left).

The attacks themselves (many files, files outside the workspace) are in ``tests/adversarial/``."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))  # lbtest: the CLI helpers

from docker_support import BASE, docker_skip_reason  # noqa: E402
from lbtest import TASKS, derive_task, lancebench_exe, lb, one_result  # noqa: E402

from lancebench.sandbox.base import Limits, Mount, SandboxSpec  # noqa: E402
from lancebench.sandbox.fstree import remove_tree  # noqa: E402

pytestmark = [pytest.mark.skipif(docker_skip_reason() is not None, reason=str(docker_skip_reason())),
              pytest.mark.skipif(os.geteuid() != 0, reason="the quota needs root (without it: per-file bound only)")]
MB = 1024 * 1024


@pytest.fixture
def home() -> Path:
    """A LANCEBENCH_HOME of the test's own: every quota mount and image of its jobs is under it."""
    path = Path(tempfile.mkdtemp(prefix="lancebench-quota-", dir="/var/tmp"))
    os.chmod(path, 0o755)
    yield path
    remove_tree(path)


def leftovers(root: Path) -> list[str]:
    """Mount points and loop devices (by backing file) under ``root``."""
    root_s = str(root.resolve())
    with open("/proc/self/mountinfo") as fh:
        mounts = [line.split()[4] for line in fh if line.split()[4].startswith(root_s)]
    loops = subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout.splitlines()
    return mounts + [line for line in loops if root_s in line]


def test_sum_of_root_shm_and_writable_mount_is_bounded(tmp_path):
    """One container, ``storage_mb = 32``: 3 x 16 MB into the root, ``/dev/shm`` and a writable
    mount; the sum written stays under 32 MiB; the host reads the mount's files at their path
    during the run and after ``stop()``; nothing stays mounted once the folders are removed."""
    from lancebench.sandbox.docker import DockerSandbox

    out = tmp_path / "out"
    out.mkdir()
    (out / "before.txt").write_text("from the host")
    scratch = tmp_path / "scratch"
    spec = SandboxSpec(image=BASE, workdir="/", limits=Limits(storage_mb=32), mounts=(Mount(out, "/out", True),),
                       labels={"job": "quota-test"})
    script = ("n=0; for d in /root /dev/shm /out; do head -c 16000000 /dev/zero > $d/fill 2>/dev/null; "
              "n=$((n + $(stat -c %s $d/fill))); done; echo $n; cat /out/before.txt; rm /out/fill; "
              "echo hi > /out/after.txt")

    async def run() -> tuple[str, str, Path]:
        box = DockerSandbox(spec, quota_folder=scratch / "quota")
        await box.start()
        try:
            assert box.quota is not None and box.quota.layer is not None
            layer = box.quota.layer
            res = await box.exec(script, user="root")
            during = (out / "after.txt").read_text()
        finally:
            await box.stop()
        return res.stdout, during, layer

    stdout, during, layer = asyncio.run(run())
    written, seen = stdout.split("\n", 1)
    assert 16_000_000 < int(written) <= 32 * MB, written  # one file fits, the sum is cut at the quota
    assert seen.startswith("from the host")
    assert during == "hi\n" and (out / "after.txt").read_text() == "hi\n" and not (out / "fill").exists()
    assert not os.path.lexists(layer)  # unmounted, so that docker rm could remove the layer folder
    assert leftovers(tmp_path) != []  # the cover of ``out`` stays until the folder is removed
    remove_tree(out)
    remove_tree(scratch)
    assert leftovers(tmp_path) == []


@pytest.mark.slow
def test_oracle_resolves_under_storage_mb_and_the_job_leaves_no_mount(tmp_path, home):
    task = derive_task(TASKS / "calc", home / "calc-64",
                       toml={r"^memory_mb = 1024$": "memory_mb = 1024\nstorage_mb = 64"})
    jobs = tmp_path / "jobs"
    proc = lb("run", "-p", task, "-a", "oracle", "-o", jobs, "--backend", "docker", check=True, timeout=900,
              env={"LANCEBENCH_HOME": str(home)})
    r = one_result(jobs)
    assert r["status"] == "resolved", (r["status"], r["reason"])
    assert "no storage quota" not in proc.stderr  # the quota was in force, not the per-file fallback
    assert leftovers(home) == []
    assert list((home / "docker-quota").glob("*.json")) == []


@pytest.mark.slow
@pytest.mark.parametrize("release", ["gc", "next run"])
def test_harness_killed_mid_trial_leaves_nothing(release, tmp_path, home):
    """kill -9 of ``lancebench run`` while the agent's container runs on its quota: the mounts stay
    (nobody is left to release them) until ``lancebench gc``, or the next run's docker backend,
    finds the record of a dead owner."""
    job = f"quota-killed-{uuid.uuid4().hex[:8]}"  # its own: another test may run beside it
    agent = tmp_path / "sleeper.sh"
    agent.write_text("#!/bin/bash\necho started > started.txt\nsleep 600\n")
    agent.chmod(0o755)
    jobs = tmp_path / "jobs"
    env = dict(os.environ, LANCEBENCH_HOME=str(home), NO_COLOR="1")
    proc = subprocess.Popen([*lancebench_exe(), "run", "-p", TASKS / "calc", "-a", f"script:{agent}", "-o", jobs,
                             "--backend", "docker", "--job-name", job], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while not any(p.endswith("/quota") for p in leftovers(home)):
            assert proc.poll() is None and time.monotonic() < deadline, "the agent's container never got its quota"
            time.sleep(0.5)
        time.sleep(2)  # the agent runs
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    # the agent's quota, and those of the graded and canary runs opened while the agent runs
    # (runner/steps.py:_grade_early) when they were opened before the kill
    assert leftovers(home) != [] and 1 <= len(list((home / "docker-quota").glob("*.json"))) <= 3
    if release == "gc":
        lb("gc", "--job", job, check=True, env={"LANCEBENCH_HOME": str(home)})
    else:  # another job: its backend releases what the dead one left, then runs as usual
        lb("run", "-p", TASKS / "calc", "-a", "nop", "-o", tmp_path / "other", "--backend", "docker", check=True,
           timeout=900, env={"LANCEBENCH_HOME": str(home)})
    assert leftovers(home) == []
    assert list((home / "docker-quota").glob("*.json")) == []
    names = subprocess.run(["docker", "ps", "-a", "--filter", f"label=lancebench.job={job}", "--format",
                            "{{.Names}}"], capture_output=True, text=True, check=True).stdout.split()
    assert names == []


def test_not_root_falls_back_to_the_per_file_bound_and_says_so_once(tmp_path):
    """As another user there is no quota: ``ContainerQuota.open`` gives None and the reason is
    logged once, however many containers ask (the engine is not even asked)."""
    home = tmp_path / "home"
    home.mkdir()
    os.chown(home, 65534, 65534)
    os.chmod(tmp_path, 0o755)
    code = ("from lancebench.sandbox.docker_quota import ContainerQuota\n"
            "print([ContainerQuota.open(f'box-{n}', 64) for n in range(3)])\n")
    src = Path(__file__).resolve().parents[2] / "src"
    proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=120,
                          env={"PATH": os.environ["PATH"], "PYTHONPATH": str(src), "LANCEBENCH_HOME": str(home)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[None, None, None]"
    said = "docker: no storage quota (the harness is not root); storage_mb bounds each file only"
    assert proc.stderr.count(said) == 1
    assert leftovers(tmp_path) == []

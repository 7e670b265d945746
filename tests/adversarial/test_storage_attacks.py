"""Storage limits, variant "outside the bounded folders": ``storage_mb`` bounds the workspace,
``/tmp`` and ``$HOME`` (a loop-mounted filesystem each, local) and each file (``RLIMIT_FSIZE`` /
docker's ``fsize``), but the agent may write elsewhere: the sandbox's root, ``/dev/shm``,
``/var/tmp``, ``/run``, ``/etc``. Five 20 MB files in each, under ``storage_mb = 64``.

Found by the attack pass after issue 12: 500 MB written on both backends (local: into the tmpfs
root of bubblewrap and its ``/dev/shm``, that is host memory). Local now: the sandbox's root is
read-only and ``/dev/shm``, ``/var/tmp``, ``/run`` are folders on the same ``storage_mb``
filesystem; docker stays a known gap."""

from __future__ import annotations

from pathlib import Path

import pytest
from lbtest import FIXTURES, TASKS, derive_task, job_dir, lb, one_result

AGENTS = Path(__file__).resolve().parent / "agents"
LIMIT_MB = 64


@pytest.mark.slow
def test_storage_bounds_writes_outside_the_workspace(jobs, shared, backend):
    task = derive_task(TASKS / "calc", shared / "calc-64",
                       toml={r"^memory_mb = 1024$": f"memory_mb = 1024\nstorage_mb = {LIMIT_MB}"})
    lb("run", "-p", task, "-a", f"script:{AGENTS / 'storage_outside_workspace.sh'}", "-o", jobs, "--backend", backend,
       check=True, timeout=900)
    r = one_result(jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    patch = (job_dir(jobs) / "trials" / r["trial_id"] / "patch.diff").read_text()
    written = {line[1:].rsplit(" ", 1)[0]: int(line.rsplit(" ", 1)[1]) for line in patch.splitlines()
               if line.startswith("+/")}
    assert set(written) == {"/", "/dev/shm", "/var/tmp", "/run", "/etc"}, written  # the attack ran
    assert sum(written.values()) <= LIMIT_MB * 1024 * 1024, written


@pytest.mark.slow
def test_storage_bounds_what_the_code_under_test_writes_in_the_verifier_folders(jobs, shared, backend):
    """The fix is right, but at import it writes 100 MB into the verifier's log folder (a host
    folder bound into the grading sandbox) and 100 MB into /tmp under ``storage_mb = 64``: the sum
    stays under 64 MiB on both backends."""
    task = derive_task(TASKS / "calc", shared / "calc-64",
                       toml={r"^memory_mb = 1024$": f"memory_mb = 1024\nstorage_mb = {LIMIT_MB}"})
    lb("run", "-p", task, "-a", f"script:{AGENTS / 'verifier_logs_flood.sh'}", "-o", jobs, "--backend", backend,
       check=True, timeout=900)
    r = one_result(jobs)
    assert r["status"] in ("resolved", "unresolved"), (r["status"], r["reason"])
    report = job_dir(jobs) / "trials" / r["trial_id"] / "verifier" / "run-0" / "logs" / "flood.txt"
    written = {line.split()[0]: int(line.split()[1]) for line in report.read_text().splitlines()}
    assert set(written) == {"/logs/verifier", "/tmp"}, written  # the attack ran
    assert 0 < sum(written.values()) <= LIMIT_MB * 1024 * 1024, written


def _loop_devices(trial_id: str) -> list[str]:
    """Loop devices whose backing file (a quota image) belongs to trial ``trial_id``."""
    import subprocess
    out = subprocess.run(["losetup", "-l", "-n", "-O", "NAME,BACK-FILE"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if trial_id in line]


@pytest.mark.slow
@pytest.mark.parametrize("fix", [False, True], ids=["nofix", "fix"])
def test_storage_filled_to_the_last_byte_and_inode(fix, jobs, shared, backend):
    """The agent fills the ``storage_mb`` filesystem (bytes in every writable folder, then every
    inode, plus a 10 GB sparse file) and leaves it full. The capture and grading run in fresh
    space or fail as the agent's doing, never ``invalid``: the fix is graded (``resolved``), no
    fix is ``unresolved``. Docker: where the engine cannot mount a full container's root to read
    it (overlayfs needs a free inode and block for its work folder; found by the attack pass
    after issue 14 as ``invalid``), the trial is ``unresolved`` saying the agent filled its quota.
    No loop device is left behind."""
    task = derive_task(TASKS / "calc", shared / f"calc-fill-{fix}",
                       toml={r"^memory_mb = 1024$": f"memory_mb = 1024\nstorage_mb = {LIMIT_MB}"},
                       append_instruction="FIX=1" if fix else None)
    lb("run", "-p", task, "-a", f"script:{AGENTS / 'fill_storage.sh'}", "-o", jobs, "--backend", backend,
       check=True, timeout=900)
    r = one_result(jobs)
    quota = "the agent filled its storage quota (64 MiB)"
    if backend == "docker" and r["status"] == "unresolved" and (r["reason"] or "").startswith(quota):
        pass  # the engine could not mount the full container's root to read it: the agent's doing
    elif fix:  # the capture reads the full workspace and grades the fix (docker too, since its
        # phases keep Harbor's capabilities, issue 21)
        assert r["status"] == "resolved", (r["status"], r["reason"])
    else:
        assert r["status"] == "unresolved", (r["status"], r["reason"])
        assert r["tests"]["test_calc::test_add"] == "failed", r["tests"]
    assert _loop_devices(r["trial_id"]) == []


@pytest.mark.slow
def test_storage_filled_by_the_code_under_test(jobs, shared, backend):
    """The code under test fills the grading sandbox's ``storage_mb`` filesystem (bytes, then
    every inode) at import and leaves it full while the runner reports and the harness reads the
    logs (attack pass after issue 14; held on both backends, kept as a regression test): the
    trial is ``unresolved`` (local: test.sh could not even write its reward, an exclusion the
    untouched base does not share; docker: the runner's report, held by the witness), never
    ``invalid``, and no loop device of it is left."""
    task = derive_task(TASKS / "calc", shared / "calc-fill-graded",
                       toml={r"^memory_mb = 1024$": f"memory_mb = 1024\nstorage_mb = {LIMIT_MB}"})
    lb("run", "-p", task, "-a", f"script:{AGENTS / 'fill_storage_while_graded.sh'}", "-o", jobs,
       "--backend", backend, check=True, timeout=900)
    r = one_result(jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    assert r["rewards"].get("reward", 0.0) < 1.0, r["rewards"]
    assert _loop_devices(r["trial_id"]) == []


@pytest.mark.slow
def test_sparse_files_do_not_swell_the_capture(jobs, shared, backend):
    """40 sparse files of 60 MB (no block written, so the quota never fills). Found by the attack
    pass after issue 14 on docker: the capture archived 2.4 GB of zeros, spooled them on the host
    and unpacked them again in the capture container (5 GB of the host's disk at its peak, one
    minute), with nothing to stop 1,000 such files. Now the archive is bounded (twice the image,
    plus storage_mb and 64 MiB) and a workspace past it is the agent's failure: ``unresolved``.
    Local: git reads the files in the sandbox, the trial is graded (``unresolved``)."""
    task = derive_task(TASKS / "calc", shared / "calc-sparse",
                       toml={r"^memory_mb = 1024$": f"memory_mb = 1024\nstorage_mb = {LIMIT_MB}"})
    lb("run", "-p", task, "-a", f"script:{AGENTS / 'sparse_files.sh'}", "-o", jobs, "--backend", backend,
       check=True, timeout=900)
    r = one_result(jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    if backend == "docker":
        assert "of files as an archive (sparse files count in full)" in r["reason"], r["reason"]
    assert _loop_devices(r["trial_id"]) == []


@pytest.mark.slow
def test_sparse_files_in_an_image_without_git(jobs, shared, backend):
    """The same sparse files in a Harbor task whose image has no git (docker exports the workdir
    to the host and diffs it there): the export spooled the whole archive on the host before
    checking its size (2.4 GB here; nothing stopped 1,000 files of ``storage`` each). Now it
    stops at twice ``storage_mb`` and 64 MiB: ``unresolved`` (attack pass after issue 14)."""
    if backend == "local":
        pytest.skip("an image without git is a docker path")
    task = derive_task(FIXTURES / "harbor" / "env-sizes", shared / "env-sizes-sparse",
                       toml={r'^storage = "1G"$': 'storage = "64M"'})
    lb("run", "-p", task, "-a", f"script:{AGENTS / 'sparse_files.sh'}", "-o", jobs, "--backend", backend,
       check=True, timeout=900)
    r = one_result(jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    assert "192 MiB of files as an archive (sparse files count in full)" in r["reason"], r["reason"]
    assert _loop_devices(r["trial_id"]) == []

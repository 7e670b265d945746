"""Harbor artifacts (issue 14): the files a task lists are collected from the agent's environment
after its work is captured, into ``<trial>/artifacts/`` (``steps/<name>/artifacts/`` per step)
with Harbor's ``manifest.json``; the same files appear as under Harbor 0.25. What the environment
holds is hostile: links are never followed, special files skipped, sizes bounded, odd names kept
safe, a missing artifact recorded, never an error of the trial."""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
from pathlib import Path

import pytest
from docker_support import BASE, docker_skip_reason
from harbor_support import FIXTURES, copy_fixture, harbor_skip_reason, run_harbor, run_lancebench

from lancebench.errors import TaskErrors
from lancebench.runner.artifacts import collect_artifacts, tar_excluded
from lancebench.sandbox.base import SandboxSpec
from lancebench.sandbox.fstree import remove_tree, walk
from lancebench.task import load_task
from lancebench.task.harbor import ArtifactConfig

TASK = FIXTURES / "artifacts"
_DOCKER = docker_skip_reason()
needs_docker = pytest.mark.skipif(_DOCKER is not None, reason=str(_DOCKER))

# what the fixture's solve.sh and its collect hook leave, as the task lists it (the link in
# /app/reports, the .tmp file in /app/logs and /app/missing.txt are not collected)
EXPECTED = {"logs/artifacts/note.txt": b"published\n", "app/out.txt": b"done\n", "reports/a.txt": b"a\n",
            "reports/sub/b.txt": b"b\n", "app/logs/keep.log": b"keep\n",
            "logs/artifacts/listing.txt": b"base.txt\nlogs\nout.txt\nreports\n", "app/hooked.txt": b"hooked\n"}


def files_under(root: Path) -> dict[str, bytes]:
    """Relative path -> bytes of every regular file below ``root``, manifest.json aside."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p, st, _ in walk(root)
            if stat.S_ISREG(st.st_mode) and p.relative_to(root).as_posix() != "manifest.json"}


def manifest_rows(root: Path) -> list[tuple]:
    return [(e["source"], e["destination"], e["type"], e["status"], e["exclude"])
            for e in json.loads((root / "manifest.json").read_text())]


def trial_dir(jobs: Path, result: dict) -> Path:
    (job,) = [d for d in jobs.iterdir() if d.is_dir()]
    return job / "trials" / result["trial_id"]


@needs_docker
def test_listed_artifacts_land_in_the_trial_folder_with_harbors_manifest(tmp_path):
    (r,) = run_lancebench(TASK, "oracle", tmp_path / "jobs")
    assert r["status"] == "resolved", r
    art = trial_dir(tmp_path / "jobs", r) / "artifacts"
    assert files_under(art) == EXPECTED
    assert manifest_rows(art) == [
        ("/logs/artifacts", "artifacts/logs/artifacts", "directory", "ok", []),
        ("/app/out.txt", "artifacts/app/out.txt", "file", "ok", []),
        ("/app/reports", "artifacts/reports", "directory", "ok", []),
        ("/app/logs", "artifacts/app/logs", "directory", "ok", ["*.tmp"]),
        ("/app/missing.txt", "artifacts/app/missing.txt", "file", "failed", []),
        ("/app/hooked.txt", "artifacts/app/hooked.txt", "file", "ok", [])]
    assert not any(stat.S_ISLNK(st.st_mode) for _p, st, _ in walk(art))  # the link to /etc/passwd is left out
    # the hook ran after the capture: its file is an artifact, never the agent's work
    (hook,) = json.loads((art.parent / "collect-hooks.json").read_text())
    assert (hook["exit_code"], hook["timed_out"]) == (0, False), hook
    patch = (art.parent / "patch.diff").read_text()
    assert "out.txt" in patch and "hooked.txt" not in patch


@needs_docker
def test_nop_records_every_artifact_missing_and_still_grades(tmp_path):
    (r,) = run_lancebench(TASK, "nop", tmp_path / "jobs")
    assert (r["status"], r["rewards"]) == ("unresolved", {"reward": 0.0}), r
    art = trial_dir(tmp_path / "jobs", r) / "artifacts"
    assert files_under(art) == {"logs/artifacts/listing.txt": b"base.txt\n", "app/hooked.txt": b"hooked\n"}
    assert [row[3] for row in manifest_rows(art)] == ["ok", "failed", "failed", "failed", "failed", "ok"]


@pytest.mark.peer
@needs_docker
@pytest.mark.skipif(harbor_skip_reason() is not None, reason=str(harbor_skip_reason()))
def test_harbor_collects_the_same_files(tmp_path):
    (h,) = run_harbor(TASK, "oracle", tmp_path / "hjobs")
    (r,) = run_lancebench(TASK, "oracle", tmp_path / "jobs")
    (hjob,) = [d for d in (tmp_path / "hjobs").iterdir() if d.is_dir()]
    harbor_art = hjob / h["trial_name"] / "artifacts"
    ours = trial_dir(tmp_path / "jobs", r) / "artifacts"
    assert files_under(harbor_art) == files_under(ours) == EXPECTED
    assert manifest_rows(harbor_art) == manifest_rows(ours)


def two_step_with_artifacts(shared: Path) -> Path:
    """The two-step fixture with a task-level artifact and one more in step two."""
    task = copy_fixture("two-step", shared)
    toml = task / "task.toml"
    text = toml.read_text().replace('schema_version = "1.4"', 'schema_version = "1.4"\nartifacts = ["/app/a.txt"]')
    toml.write_text(text.replace('name = "two"', 'name = "two"\nartifacts = ["/app/b.txt"]'))
    return task


@needs_docker
def test_each_step_collects_the_tasks_and_its_own_artifacts(shared, tmp_path):
    task = two_step_with_artifacts(shared)
    (r,) = run_lancebench(task, "oracle", tmp_path / "jobs")
    steps = trial_dir(tmp_path / "jobs", r) / "steps"
    assert files_under(steps / "one" / "artifacts") == {"app/a.txt": b"done\n"}
    assert files_under(steps / "two" / "artifacts") == {"app/a.txt": b"done\n", "app/b.txt": b"done\n"}
    assert not (trial_dir(tmp_path / "jobs", r) / "artifacts").exists()  # as in Harbor: per step only


@needs_docker
def test_hooks_run_after_each_step_and_what_they_write_stays_for_the_next(shared, tmp_path):
    task = two_step_with_artifacts(shared)
    toml = task / "task.toml"
    text = toml.read_text().replace('artifacts = ["/app/a.txt"]', 'artifacts = ["/app/a.txt", "/app/both.txt"]')
    toml.write_text(text.replace("[verifier]\ntimeout_sec = 60\n", "[verifier]\ntimeout_sec = 60\n\n"
                                 '[[verifier.collect]]\ncommand = "cat a.txt b.txt > both.txt"\n'))
    (r,) = run_lancebench(task, "oracle", tmp_path / "jobs")
    steps = trial_dir(tmp_path / "jobs", r) / "steps"
    for step, both in (("one", b"done\ntodo\n"), ("two", b"done\ndone\n")):  # the container restarted for each
        (hook,) = json.loads((steps / step / "collect-hooks.json").read_text())
        assert hook["exit_code"] == 0, hook
        got = files_under(steps / step / "artifacts")
        assert (got["app/a.txt"], got["app/both.txt"]) == (b"done\n", both)
    # step one's capture came before its hook; the file stays in the environment, so step two's has it (as in Harbor)
    assert "both.txt" not in (steps / "one" / "patch.diff").read_text()
    assert "both.txt" in (steps / "two" / "patch.diff").read_text()
    assert r["status"] == "resolved", r


@pytest.mark.peer
@needs_docker
@pytest.mark.skipif(harbor_skip_reason() is not None, reason=str(harbor_skip_reason()))
def test_harbor_collects_the_same_files_per_step(shared, tmp_path):
    task = two_step_with_artifacts(shared)
    (h,) = run_harbor(task, "oracle", tmp_path / "hjobs")
    (r,) = run_lancebench(task, "oracle", tmp_path / "jobs")
    (hjob,) = [d for d in (tmp_path / "hjobs").iterdir() if d.is_dir()]
    a, b = {"app/a.txt": b"done\n"}, {"app/b.txt": b"done\n"}
    for step, expected in (("one", a), ("two", a | b)):
        harbor_art = hjob / h["trial_name"] / "steps" / step / "artifacts"
        ours = trial_dir(tmp_path / "jobs", r) / "steps" / step / "artifacts"
        assert files_under(harbor_art) == files_under(ours) == expected
        # Harbor mounts /logs/artifacts, so its (empty) folder exists there and is "ok"; here it was never made
        assert manifest_rows(harbor_art)[1:] == manifest_rows(ours)[1:]


# the agent's side of the hostile case: links out, a FIFO, a file over the bound, odd names
PLANT = r"""
set -e
cd /app
mkdir -p logs
ln -s /etc/passwd link.txt
ln -s /etc linkdir
echo small > logs/small.txt
head -c 300000 /dev/zero > logs/big.bin
head -c 3000000 /dev/zero > big.bin
echo after > after.txt
mkfifo logs/pipe
ln -s /etc/shadow logs/shadow
printf nl > 'logs/new
line.txt'
ln -s /etc $'logs/\xfelink'
printf ff > $'logs/\xff\xfe.txt'
printf dash > logs/-rf
(mkdir -p /logs && ln -s /etc /logs/artifacts) 2>/dev/null || true
"""


def _hostile_entries() -> list[ArtifactConfig]:
    return [ArtifactConfig(source="/logs/artifacts"), ArtifactConfig(source="/app/link.txt"),
            ArtifactConfig(source="/app/linkdir"), ArtifactConfig(source="/app/logs"),
            ArtifactConfig(source="/app/big.bin"), ArtifactConfig(source="/app/logs/small.txt"),
            ArtifactConfig(source="/app/after.txt")]


async def _plant_and_collect(box, dest: Path, scratch: Path) -> list[dict]:
    await box.start()
    try:
        res = await box.exec(PLANT)
        assert res.ok, res.output
        return await collect_artifacts(box, _hostile_entries(), dest, scratch, max_bytes=100_000)
    finally:
        await box.stop()


def _box(backend: str, shared: Path):
    if backend == "local":
        from lancebench.sandbox.local import LocalSandbox
        return LocalSandbox(SandboxSpec(workdir="/app", workspace=shared / "ws"), root=shared / "root")
    if _DOCKER is not None:
        pytest.skip(_DOCKER)
    from lancebench.sandbox.docker import DockerSandbox
    return DockerSandbox(SandboxSpec(workdir="/app", image=BASE, labels={"job": "pytest-artifacts", "trial": "t"}))


@pytest.mark.parametrize("backend", ["local", "docker"])
def test_hostile_environment_links_fifos_sizes_and_odd_names(backend, shared):
    dest = shared / "trial" / "artifacts"
    try:
        manifest = asyncio.run(_plant_and_collect(_box(backend, shared), dest, shared / "scratch"))
    finally:
        remove_tree(shared / "root")
    status = {e["source"]: e["status"] for e in manifest}
    assert status == {"/logs/artifacts": "empty", "/app/link.txt": "failed", "/app/linkdir": "failed",
                      "/app/logs": "ok", "/app/big.bin": "failed", "/app/logs/small.txt": "skipped",
                      "/app/after.txt": "ok"}  # a copy stopped past the bound leaves the next one working
    # inside /app/logs: the links, the FIFO and the file past the bound are left out and said so
    assert {os.fsdecode(p.relative_to(dest)) for p, st, _ in walk(dest) if stat.S_ISREG(st.st_mode)} == {
        "manifest.json", "app/logs/small.txt", "app/logs/new\nline.txt", os.fsdecode(b"app/logs/\xff\xfe.txt"),
        "app/logs/-rf", "app/after.txt"}
    assert not any(stat.S_ISLNK(st.st_mode) or stat.S_ISFIFO(st.st_mode) for _p, st, _ in walk(shared / "trial"))
    notes = " ".join(next(e for e in manifest if e["source"] == "/app/logs")["notes"])
    assert "big.bin" in notes and "shadow" in notes and "\\udcfelink: symbolic link left out" in notes
    json.loads((dest / "manifest.json").read_text(encoding="utf-8"))  # valid UTF-8 JSON whatever the names
    # the sandbox's copy itself stopped at the bound (docker: the tar stream is not read further)
    reason = next(e for e in manifest if e["source"] == "/app/big.bin")["reason"]
    assert re.fullmatch(r"/app/big\.bin is larger than \d{5} bytes", reason), reason  # 100000 less what came before
    assert not (shared / "scratch").exists() or not any((shared / "scratch").iterdir())


@pytest.mark.parametrize("rel,pattern,hit", [("a.tmp", "*.tmp", True), ("sub/a.tmp", "*.tmp", True),
                                             ("sub/a.txt", "*.tmp", False), ("x/sub/y", "sub/y", True),
                                             ("sub", "sub", True), ("subway/y", "sub", False)])
def test_exclude_patterns_follow_gnu_tar(rel, pattern, hit):
    # GNU tar --exclude defaults: unanchored (any tail at a component), '*' matches '/'
    assert tar_excluded(rel, pattern) is hit


@pytest.mark.parametrize("entry,word", [('{ source = "/app/../etc/passwd" }', "'..'"),
                                        ('{ source = "/app/x", destination = "../x" }', "relative path"),
                                        ('{ source = "/app/x", destination = "/abs" }', "relative path"),
                                        ('{ source = "/app/x", destination = "manifest.json" }', "reserved"),
                                        ('{ source = "rel", service = "db" }', "must be absolute")])
def test_bad_artifact_entries_are_load_errors_naming_the_file(tmp_path, entry, word):
    import shutil
    d = tmp_path / "t"
    shutil.copytree(TASK, d)
    toml = d / "task.toml"
    text = toml.read_text()
    toml.write_text(text.replace('  "/app/missing.txt",\n', f"  {entry},\n"))
    with pytest.raises(TaskErrors) as exc:
        load_task(d)
    assert str(toml) in str(exc.value) and word in str(exc.value) and "artifacts" in str(exc.value)


def test_collect_hooks_are_best_effort_bounded_and_recorded(shared):
    from lancebench.runner.artifacts import run_hooks
    from lancebench.sandbox.local import LocalSandbox
    from lancebench.task.harbor import CollectHook
    hooks = [CollectHook(command="echo $GREETING; exit 3"), CollectHook(command="sleep 30", timeout_sec=0.5),
             CollectHook(command="touch /app/x", service="db"), CollectHook(command="echo after")]

    async def go():
        box = LocalSandbox(SandboxSpec(workdir="/app", workspace=shared / "ws"), root=shared / "root")
        await box.start()
        try:
            return await run_hooks(box, hooks, {"GREETING": "hi"})
        finally:
            await box.stop()
    try:
        failed, slow, other, after = asyncio.run(go())
    finally:
        remove_tree(shared / "root")
    assert (failed["exit_code"], failed["output"].strip()) == (3, "hi")
    assert (slow["exit_code"], slow["timed_out"]) == (None, True)
    assert "one container" in other["skipped"] and not (shared / "ws" / "x").exists()
    assert (after["exit_code"], after["output"]) == (0, "after\n")  # a failing hook stops nothing


@needs_docker
def test_a_hook_runs_as_its_user_on_docker(shared):
    from lancebench.runner.artifacts import run_hooks
    from lancebench.task.harbor import CollectHook

    async def go():
        box = _box("docker", shared)
        await box.start()
        try:
            return await run_hooks(box, [CollectHook(command="id -un", user="nobody"), CollectHook(command="id -un")],
                                   {})
        finally:
            await box.stop()
    nobody, default = asyncio.run(go())
    assert (nobody["output"].strip(), default["output"].strip()) == ("nobody", "root")


def test_a_local_trial_collects_after_its_hooks(shared, tmp_path):
    # the whole flow on the local backend: capture, then the hook (the same sandbox, its files
    # intact), then the artifacts; the hook's file in the workdir never enters the patch
    import shutil

    from lancebench.sandbox.fstree import walk as walk_tree
    task = shared / "calc"
    shutil.copytree(FIXTURES.parent / "tasks" / "calc", task)
    toml = task / "task.toml"
    toml.write_text('artifacts = ["/app/calc.py", "/app/hook.txt", "/tmp/none"]\n' + toml.read_text().replace(
        "[agent]", '[[verifier.collect]]\ncommand = "grep -c + calc.py > /app/hook.txt"\n\n[agent]'))
    (r,) = run_local(task, tmp_path / "jobs")
    assert r["status"] == "resolved", r
    art = trial_dir(tmp_path / "jobs", r) / "artifacts"
    got = files_under(art)
    assert "return a + b" in got["app/calc.py"].decode() and got["app/hook.txt"] == b"1\n"
    assert [row[3] for row in manifest_rows(art)] == ["empty", "ok", "ok", "failed"]
    assert "hook.txt" not in (art.parent / "patch.diff").read_text()
    assert not any(stat.S_ISLNK(st.st_mode) for _p, st, _ in walk_tree(art))


def run_local(task: Path, jobs: Path) -> list[dict]:
    from lbtest import lb, results
    lb("run", "-p", task, "-a", "oracle", "-o", jobs, "--job-name", "local", check=True)
    return results(jobs / "local")

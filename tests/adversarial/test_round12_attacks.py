"""Attack pass round 12 (docs/security.md, "Attack pass round 12"): the changes of the hour before
it: the docker capture's own check of an archive's members (``backends/docker_hosttools.py:_export``,
``_Written``), untouched docker workdirs captured without an export (``backends/docker.py:_untouched``),
grading begun as the agent's sandbox opens (``runner/steps.py:_grade_early``) and the order of a
task's runs across trials (``grading/run_order.py``).

1. ``round12_hard_link_to_a_link.sh``: a hard link to a symbolic link in the workdir. The docker
   backend unpacks the exported workdir on this machine; tarfile made the hard link with
   ``link()`` (a second name of the link) and then set the member's owner, mode and time on the
   path, and ``chown``, ``chmod`` and ``utime`` follow links: a file of this machine named by the
   agent's link was made the harness's (root's), mode 0755, its time the agent's (any host file:
   ``/etc/shadow`` made readable by every user). Round 8's own test did it to the host's
   ``/usr/bin/python3.11`` (its time) in every run. Fixed: such a member is unpacked as the link it
   is.
2. The same with a link that reaches nothing: tarfile looked for the hard link's target in the
   archive, raised ``KeyError``, and the trial was an internal error: ``invalid`` for the agent's
   own files. Fixed by the same change (the capture container's patch: two links).
3. A workdir reached through a link of the image (``/work/app`` with ``/work -> /srv``): the agent's
   changes are in the container's upper folder under ``srv/app``, none under ``work``, so
   ``_untouched`` took the workdir for untouched, and once one untouched capture of the image had
   given the empty patch, every later trial's work was dropped (the empty patch, without an
   export). The task's doing, not the agent's, but any agent's work on such a task. Fixed: a
   workdir with a link at or above it in one of the image's layers is never taken for untouched.
4. Held: a workdir changed by another path (a hard link made in ``/tmp``, ``/proc/self/root``), or
   in its metadata only, is never taken for untouched.
5. Held (``round12_look_for_the_grading_sandboxes.sh``): the trial's grading sandboxes, opened as
   the agent's opens, leave nothing the agent can find (both backends, through the CLI).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path

import pytest
from docker_support import docker_skip_reason
from lbtest import derive_task, lb, one_result, patch_text

from lancebench.sandbox.fstree import remove_tree
from lancebench.task.load import load_task

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tasks"
AGENTS = Path(__file__).resolve().parent / "agents"
HARD_LINK = AGENTS / "round12_hard_link_to_a_link.sh"


@pytest.fixture(scope="module")
def calc_docker():
    """(the ``calc`` task, a docker backend, its prepared environment): an image with git, so its
    captures run on this machine (``capture_on_host``)."""
    reason = docker_skip_reason()
    if reason:
        pytest.skip(reason)
    from lancebench.backends.docker import DockerBackend

    task = load_task(FIXTURES / "calc")
    backend = DockerBackend()
    env = asyncio.run(backend.prepare(task))
    assert env.handle.host_base is not None or env.handle.pristine is not None
    return task, backend, env


def _captured_after(calc_docker, script_env: dict[str, str], scratch: Path):
    """The capture on this machine (never moved to a capture container: a backend of its own) of
    an agent container of ``calc`` in which the attack ran with ``script_env``; ``scratch`` must
    be reachable by the sandbox uids."""
    from lancebench.backends.docker import DockerBackend

    task, _, env = calc_docker
    backend = DockerBackend()
    job = f"pytest-r12-{uuid.uuid4().hex[:8]}"

    async def body():
        agent = backend.open(task, env, scratch / "agent", labels={"lancebench.job": job, "lancebench.trial": "r12"})
        await agent.start()
        try:
            res = await agent.exec(["sh", "-c", HARD_LINK.read_text()], env=script_env)
            assert res.ok, res
            return await backend.capture(task, env, agent, scratch / "capture")
        finally:
            await agent.stop()

    try:
        patch = asyncio.run(body())
    finally:
        remove_tree(scratch)
    assert backend._host_capture_failed is None  # captured on this machine, as the attack needs
    return patch


@pytest.mark.docker
@pytest.mark.skipif(os.geteuid() != 0, reason="the victim file is another user's")
def test_a_hard_link_to_a_link_never_changes_a_file_of_this_machine(calc_docker, tmp_path, shared: Path):
    victim = tmp_path / "secret"
    victim.write_text("a host secret\n")
    os.chown(victim, 4321, 4321)
    victim.chmod(0o600)
    os.utime(victim, (1_000_000_000, 1_000_000_000))
    before = os.stat(victim)
    patch = _captured_after(calc_docker, {"TARGET": str(victim)}, shared / "scratch")
    after = os.stat(victim)
    assert (oct(after.st_mode), after.st_uid, after.st_gid, after.st_mtime) == (
        oct(before.st_mode), before.st_uid, before.st_gid, before.st_mtime)
    assert {"host.link", "host.hard"} <= set(patch.paths), patch.paths
    # both names are the link they are in the container: a link's blob naming the host path
    assert str(patch).count("new file mode 120000") == 2 and str(patch).count(f"+{victim}") == 2, str(patch)
    assert "a host secret" not in str(patch)


@pytest.mark.docker
def test_a_hard_link_to_a_link_that_reaches_nothing_is_captured(calc_docker, shared: Path):
    """Before the fix the capture raised ``KeyError`` (tarfile's search of the archive for the
    hard link's target), which the runner records as an internal error: ``invalid``."""
    gone = f"/nonexistent-{uuid.uuid4().hex}"
    patch = _captured_after(calc_docker, {"DANGLING": gone}, shared / "scratch")
    assert {"gone.link", "gone.hard"} <= set(patch.paths), patch.paths
    assert str(patch).count(f"+{gone}") == 2, str(patch)


def test_a_trial_whose_hard_link_reaches_nothing_is_the_agents_own(jobs, shared: Path, backend: str):
    """Through the CLI, on both backends: the agent's links are its work, graded (``calc`` not
    fixed: ``unresolved``), never an internal error (``invalid`` on docker before the fix)."""
    gone = f"/nonexistent-{uuid.uuid4().hex}"
    task = derive_task(FIXTURES / "calc", shared / "calc", append_instruction=f"DANGLING={gone}")
    lb("run", "-p", task, "-a", f"script:{HARD_LINK}", "-o", jobs, "--backend", backend, check=True, timeout=600)
    result = one_result(jobs)
    assert (result["status"], result.get("error")) == ("unresolved", None), result
    assert patch_text(jobs, result).count(f"+{gone}") == 2


LINKED_WORKDIR = "RUN mkdir -p /srv && mv /app /srv/app && ln -s /srv /work\nWORKDIR /work/app\n"


@pytest.mark.docker
def test_a_workdir_reached_through_a_link_of_the_image_keeps_its_changes(shared: Path):
    """``calc`` with its repository at ``/srv/app`` and the workdir ``/work/app`` (``/work ->
    /srv``): a trial that changed nothing, then one that changed ``calc.py``, whose change must be
    captured (before the fix: the empty patch, from the first trial's record)."""
    reason = docker_skip_reason()
    if reason:
        pytest.skip(reason)
    from lancebench.backends.docker import DockerBackend

    dockerfile = (FIXTURES / "calc" / "environment" / "Dockerfile").read_text().rstrip("\n") + "\n" + LINKED_WORKDIR
    task = load_task(derive_task(FIXTURES / "calc", shared / "calc-linked",
                                 files={"environment/Dockerfile": dockerfile}))
    backend = DockerBackend()
    job = f"pytest-r12-{uuid.uuid4().hex[:8]}"

    async def body():
        env = await backend.prepare(task)
        assert env.workdir == "/work/app", env.workdir
        patches = []
        for i, script in enumerate(["true", "echo '# the agent was here' >> calc.py"]):
            agent = backend.open(task, env, shared / f"agent-{i}",
                                 labels={"lancebench.job": job, "lancebench.trial": "r12"})
            await agent.start()
            try:
                assert (await agent.exec(script)).ok
                patches.append(await backend.capture(task, env, agent, shared / f"capture-{i}"))
            finally:
                await agent.stop()
        return patches

    # the first trial changed nothing: its capture is the image's untouched capture (recorded by
    # the code before the fix, which then gave every later trial of the image the empty patch)
    untouched, touched = asyncio.run(body())
    assert untouched == ""
    assert "+# the agent was here" in touched and touched.paths == ("calc.py",), touched


# what an agent does to the workdir by another path than its own, or to nothing but its metadata;
# None: reads only (the workdir stays as the image holds it)
OTHER_PATHS = {
    "a hard link made outside, then written": "ln calc.py /tmp/h && echo '# via /tmp' >> /tmp/h",
    "through /proc/self/root": "echo '# via proc' >> /proc/self/root/app/calc.py",
    "an extended attribute only": "python3 -c \"import os; os.setxattr('calc.py', 'user.x', b'1')\"",
    "a mode only": "chmod 600 calc.py",
    "the folder renamed and back": "cd / && mv /app /app2 && mv /app2 /app",
    None: "cat calc.py >/dev/null && ls -la /app >/dev/null",
}


@pytest.mark.docker
def test_a_workdir_changed_by_another_path_is_never_taken_for_untouched(calc_docker, tmp_path):
    """Held (round 12): every change the agent makes to the workdir, by whatever path, is in the
    container's upper folder under the workdir (copied up), so ``_untouched`` sees it; only a
    workdir the agent merely read is untouched."""
    from lancebench.backends.docker import _kill_container, _untouched

    task, backend, env = calc_docker
    job = f"pytest-r12-{uuid.uuid4().hex[:8]}"

    async def body():
        seen = {}
        for i, (name, script) in enumerate(OTHER_PATHS.items()):
            agent = backend.open(task, env, tmp_path / f"agent-{i}",
                                 labels={"lancebench.job": job, "lancebench.trial": "r12"})
            await agent.start()
            try:
                res = await agent.exec(script, user="root")
                assert res.ok, (name, res)
                await asyncio.to_thread(_kill_container, agent.container_id)
                seen[name] = await asyncio.to_thread(_untouched, agent, agent.container_id, env.workdir)
            finally:
                await agent.stop()
        return seen

    try:
        seen = asyncio.run(body())
    finally:
        remove_tree(tmp_path)
    assert seen == {name: name is None for name in OTHER_PATHS}, seen


def test_the_agent_finds_nothing_of_its_trials_grading_sandboxes(jobs, shared: Path, backend: str):
    """Held (round 12): the trial's graded and canary sandboxes are opened and started as the
    agent's sandbox opens (``steps._grade_early``), their hidden tests' copies and logs in the
    trial's scratch; the agent, searching its whole file system and the processes it sees while
    they exist, finds none of it (``round12_look_for_the_grading_sandboxes.sh``)."""
    task = derive_task(FIXTURES / "calc", shared / "calc")
    lb("run", "-p", task, "-a", f"script:{AGENTS / 'round12_look_for_the_grading_sandboxes.sh'}", "-o", jobs,
       "--backend", backend, check=True, timeout=600)
    result = one_result(jobs)
    patch = patch_text(jobs, result)
    added = [line[1:] for line in patch.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert added == ["searched"], patch
    assert result["status"] == "unresolved", result

"""A Harbor task whose image lacks its workdir (a hand-written task with only ``FROM``): the trial
is ``invalid`` (the task's fault, not the agent's) with a reason naming the folder and the fix."""

from __future__ import annotations

import pytest
from docker_support import BASE, docker_skip_reason
from harbor_support import run_lancebench

pytestmark = pytest.mark.skipif(docker_skip_reason() is not None, reason=str(docker_skip_reason()))


def test_an_image_without_the_workdir_names_the_folder_and_the_fix(shared, tmp_path):
    task = shared / "no-workdir"
    (task / "tests").mkdir(parents=True)
    (task / "task.toml").write_text(f'version = "1.0"\n[environment]\ndocker_image = "{BASE}"\n'
                                    'workdir = "/srv/repo"\n')
    (task / "instruction.md").write_text("Write ok to /srv/repo/ok.txt\n")
    (task / "tests" / "test.sh").write_text("#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n")
    (r,) = run_lancebench(task, "nop", tmp_path / "jobs")
    # before: "workdir /srv/repo could not be read: docker could not export ...: 404 Client Error ..."
    assert r["status"] == "invalid", r
    assert f"image {BASE} has no folder /srv/repo, the task's workdir: create it in environment/Dockerfile " \
           "(WORKDIR /srv/repo)" in r["reason"], r["reason"]
    assert "404" not in r["reason"]

"""The docker backend reads an image's base (commit, derived image or pristine copy) once per image:
a later process reuses the answer recorded under ``$LANCEBENCH_HOME/docker-base`` without starting
a probe container, and probes again when what the answer names was removed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from docker_support import BASE, docker_skip_reason

pytestmark = pytest.mark.skipif(docker_skip_reason() is not None, reason=str(docker_skip_reason()))

PREPARE = """
import asyncio, json, sys
from lancebench.backends.docker import DockerBackend
from lancebench.task.load import load_task
env = asyncio.run(DockerBackend(ca_bundle=False).prepare(load_task(sys.argv[1])))
print(json.dumps({"commit": env.base_commit, "image": env.handle.image,
                  "pristine": str(env.handle.pristine) if env.handle.pristine else None}))
"""


def _prepare_in_a_new_process(task: Path, home: Path) -> tuple[dict, int]:
    """(what ``prepare`` returned, how many containers it created for the image's base)."""
    from lancebench.sandbox.docker_engine import client
    since = time.time() - 1
    proc = subprocess.run([sys.executable, "-c", PREPARE, str(task)], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, LANCEBENCH_HOME=str(home)), check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    events = client().api.events(since=since, until=time.time() + 1, decode=True,
                                 filters={"type": "container", "event": "create", "label": "lancebench.phase=prepare"})
    image = json.loads(proc.stdout)["image"]
    made = [e for e in events if e.get("Actor", {}).get("Attributes", {}).get("image") == image]
    return json.loads(proc.stdout), len(made)


def test_a_later_process_reuses_the_recorded_base_and_probes_again_when_it_is_gone(tmp_path):
    from lancebench.sandbox.docker_engine import client
    from lancebench.sandbox.fstree import remove_tree

    task = tmp_path / "task"
    for sub in ("environment", "tests"):
        (task / sub).mkdir(parents=True)
    (task / "instruction.md").write_text("Do nothing.\n")
    (task / "tests" / "test.sh").write_text("#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n")
    (task / "task.toml").write_text('schema_version = "1.1"\n[environment]\nbuild_timeout_sec = 120\n')
    # an image without git (as most Harbor images): its base is a pristine copy on the host
    (task / "environment" / "Dockerfile").write_text(f"FROM {BASE}\nWORKDIR /app\nRUN echo {uuid.uuid4().hex} > f\n")
    home = tmp_path / "home"
    try:
        first, probes = _prepare_in_a_new_process(task, home)
        assert first["pristine"] and len(first["commit"]) == 40
        assert probes == 2  # the probe (is there git?) and the export of the pristine copy
        again, probes = _prepare_in_a_new_process(task, home)
        assert again == first and probes == 0
        remove_tree(Path(first["pristine"]))  # what the record names is gone: probed and made again
        third, probes = _prepare_in_a_new_process(task, home)
        assert third == first and probes == 2  # the same commit: fixed author and date
    finally:
        remove_tree(home)
        from lancebench.sandbox.docker import ensure_image
        from lancebench.task.load import load_task
        client().api.remove_image(ensure_image(load_task(task), ca_bundle=False), force=True)

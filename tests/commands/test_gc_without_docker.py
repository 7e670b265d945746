"""`lancebench gc` on an install without the docker extra (`scripts/setup.sh main` installs
`lancebench[local]`): it ends the local sandboxes of killed jobs and says there is nothing of
docker to remove. It used to end with "error: the docker backend needs the Docker SDK" and exit 2,
found trying the README's commands on a clean clone."""

from __future__ import annotations

import os
import subprocess
import sys

# the CLI with the docker package made unimportable, as on an install without the docker extra
WITHOUT_DOCKER = ("import sys; sys.modules['docker'] = None; from lancebench.cli import main; "
                  "sys.argv = ['lancebench', 'gc']; main()")


def test_gc_without_the_docker_sdk_ends_local_sandboxes_and_exits_0(tmp_path):
    proc = subprocess.run([sys.executable, "-c", WITHOUT_DOCKER], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "LANCEBENCH_HOME": str(tmp_path), "COLUMNS": "200"})
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "ended 0 local sandbox(es) of killed jobs" in out
    assert "the Docker SDK is not installed here" in out and "error" not in out

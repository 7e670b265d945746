"""Harbor datasets (issue 14, item 7): a folder with dataset.toml loads only the tasks it pins,
each checked against Harbor's packager digest; `-d senior-swe-bench --source PATH` runs such a
folder. The digests are compared with Harbor 0.25's own packager when it is present."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from docker_support import docker_skip_reason
from harbor_support import FIXTURES, harbor_python
from lbtest import lb, results

from lancebench.task import load_tasks
from lancebench.task.harbor_dataset import content_digest


def _dataset(root, digests=None):
    ds = root / "ds"
    for name in ("env-sizes", "two-step"):
        shutil.copytree(FIXTURES / name, ds / name)
    shutil.copytree(FIXTURES / "every-field", ds / "not-listed")
    digests = digests or {n: content_digest(ds / n) for n in ("env-sizes", "two-step")}
    (ds / "dataset.toml").write_text('[dataset]\nname = "lancebench/fixtures"\n\n' + "".join(
        f'[[tasks]]\nname = "lancebench/{n}"\ndigest = "{d}"\n\n' for n, d in digests.items()))
    return ds


def test_dataset_folder_loads_the_pinned_tasks(tmp_path):
    tasks, errors = load_tasks([_dataset(tmp_path)])
    assert errors == [] and sorted(t.name for t in tasks) == ["env-sizes", "two-step"]  # not-listed left out


def test_a_changed_task_fails_its_digest_by_name(tmp_path):
    ds = _dataset(tmp_path)
    test_sh = ds / "two-step" / "steps" / "one" / "tests" / "test.sh"
    test_sh.write_text("#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n")
    tasks, errors = load_tasks([ds])
    assert [t.name for t in tasks] == ["env-sizes"]
    (err,) = errors
    assert err.path == ds / "dataset.toml" and "lancebench/two-step" in str(err) and "pinned" in str(err)


@pytest.mark.skipif(harbor_python() is None, reason="no Python >= 3.12 with harbor 0.25 (set LANCEBENCH_HARBOR_PYTHON)")
@pytest.mark.parametrize("name", ["env-sizes", "two-step", "every-field", "verifier-llm"])
def test_digest_is_harbors_packager_digest(name):
    probe = ("import sys; from pathlib import Path; from harbor.publisher.packager import Packager; "
             "print('sha256:' + Packager.compute_content_hash(Path(sys.argv[1]))[0])")
    proc = subprocess.run([harbor_python(), "-c", probe, str(FIXTURES / name)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == content_digest(FIXTURES / name)


@pytest.mark.skipif(docker_skip_reason() is not None, reason=str(docker_skip_reason()))
def test_senior_swe_bench_runs_a_release_folder(tmp_path):
    ds = _dataset(tmp_path)
    lb("run", "-d", "senior-swe-bench", "--source", ds, "-t", "env-sizes", "-a", "nop", "--backend", "docker",
       "-o", tmp_path / "jobs", "--job-name", "j", check=True)
    (r,) = results(tmp_path / "jobs" / "j")
    assert (r["task"], r["dataset"], r["status"]) == ("env-sizes", "senior-swe-bench", "unresolved")
    proc = lb("run", "-d", "senior-swe-bench", "-a", "nop", "-o", tmp_path / "jobs", check=False)
    assert "needs --source PATH" in proc.stderr

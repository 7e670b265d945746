"""`lancebench export -d mini -o DIR` writes tasks that Harbor's task model loads (issue 14,
item 8); a choice task gets a shell verifier that grades the pick as lancebench does."""

from __future__ import annotations

import json
import subprocess

import pytest
from docker_support import docker_skip_reason
from harbor_support import harbor_python, harbor_reward, harbor_skip_reason, run_harbor
from lbtest import lb

from lancebench.task import load_tasks


def test_exported_mini_loads_in_lancebench_and_choice_tasks_get_a_verifier(tmp_path):
    lb("export", "-d", "mini", "-o", tmp_path / "out", check=True)
    tasks, errors = load_tasks([tmp_path / "out"])
    assert errors == [] and len(tasks) >= 16
    for t in tasks:
        assert t.paths.test_sh.is_file(), t.name
    lb("export", "-d", "mini", "-o", tmp_path / "out", check=False)  # never over an earlier export


@pytest.mark.parametrize("pick,reward", [(0, "1"), (2, "0"), (None, "0")])
def test_choice_verifier_grades_the_pick(tmp_path, pick, reward):
    lb("export", "-d", "mini", "-t", "funcy-split-keys-manager", "-o", tmp_path / "out", check=True)
    task = tmp_path / "out" / "funcy-split-keys-manager"
    correct = json.loads((task / "tests" / "choice.json").read_text())["correct_proposal_id"]
    assert correct == 0  # the fixture's right answer, read independently
    script = (task / "tests" / "test.sh").read_text()
    for old, new in (("/tests/", f"{task}/tests/"), ("/logs/verifier/", f"{tmp_path}/"), ("/app/", f"{tmp_path}/")):
        script = script.replace(old, new)
    if pick is not None:
        (tmp_path / "answer.json").write_text(json.dumps({"selected_proposal_id": pick}))
    subprocess.run(["sh", "-c", script], check=True)
    assert (tmp_path / "reward.txt").read_text().strip() == reward


@pytest.mark.skipif(harbor_python() is None, reason="no Python >= 3.12 with harbor 0.25 (set LANCEBENCH_HARBOR_PYTHON)")
def test_harbors_task_model_loads_every_exported_task(tmp_path):
    lb("export", "-d", "mini", "-o", tmp_path / "out", check=True)
    probe = ("import sys, pathlib; from harbor.models.task.task import Task; "
             "print(sum(1 for d in sorted(pathlib.Path(sys.argv[1]).iterdir()) if Task(d).name))")
    proc = subprocess.run([harbor_python(), "-c", probe, str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert int(proc.stdout.strip().splitlines()[-1]) == len(list((tmp_path / "out").iterdir()))


@pytest.mark.skipif(harbor_skip_reason() is not None or docker_skip_reason() is not None,
                    reason=str(harbor_skip_reason() or docker_skip_reason()))
def test_harbor_grades_an_exported_choice_task(tmp_path):
    lb("export", "-d", "mini", "-t", "funcy-split-keys-manager", "-o", tmp_path / "out", check=True)
    (h,) = run_harbor(tmp_path / "out" / "funcy-split-keys-manager", "oracle", tmp_path / "hjobs")
    assert harbor_reward(h) == {"reward": 1.0}

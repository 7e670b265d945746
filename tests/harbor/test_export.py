"""`lancebench export -d mini -o DIR` writes tasks that Harbor's task model loads (issue 14,
item 8); a choice task gets a shell verifier that grades the pick as lancebench does."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest
from docker_support import docker_skip_reason
from harbor_support import harbor_python, harbor_reward, harbor_skip_reason, run_harbor
from lbtest import TASKS, lb

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
@pytest.mark.peer
def test_harbor_grades_an_exported_choice_task(tmp_path):
    lb("export", "-d", "mini", "-t", "funcy-split-keys-manager", "-o", tmp_path / "out", check=True)
    (h,) = run_harbor(tmp_path / "out" / "funcy-split-keys-manager", "oracle", tmp_path / "hjobs")
    assert harbor_reward(h) == {"reward": 1.0}


def test_export_moves_the_lancebench_table_into_metadata_and_loads_back_the_same(tmp_path):
    """Harbor rejects a top-level [lancebench] table (issue 28); exported tasks keep it as
    [metadata.lancebench], and lancebench reads them back with the same settings."""
    lb("export", "-p", TASKS, "-o", tmp_path / "out", check=True)
    originals, errors = load_tasks([TASKS])
    assert errors == [] and len(originals) >= 2
    exported, errors = load_tasks([tmp_path / "out"])
    assert errors == []
    by_name = {t.name: t for t in exported}
    for t in originals:
        raw = tomllib.loads((t.paths.task_toml).read_text())
        out = tomllib.loads(by_name[t.name].paths.task_toml.read_text())
        assert "lancebench" not in out and out["metadata"]["lancebench"] == raw["lancebench"], t.name
        assert {k: v for k, v in out["metadata"].items() if k != "lancebench"} == raw.get("metadata", {})
        assert by_name[t.name].lb.model_dump() == t.lb.model_dump(), t.name
        assert by_name[t.name].protected_globs() == t.protected_globs(), t.name


@pytest.mark.skipif(harbor_python() is None, reason="no Python >= 3.12 with harbor 0.25 (set LANCEBENCH_HARBOR_PYTHON)")
def test_harbor_lint_accepts_exported_tasks(tmp_path):
    """`harbor lint` on every exported mini task: no finding but shared-verifier, which every
    Harbor task without a separate verifier image gets (lancebench grades in a fresh sandbox
    anyway; Harbor's separate verifier sees only declared artifacts, so exports keep Harbor's
    default). The unexported fixture is the control: lint rejects its [lancebench] table."""
    harbor = str(Path(harbor_python() or "").parent / "harbor")
    lb("export", "-d", "mini", "-o", tmp_path / "out", check=True)
    tasks = sorted((tmp_path / "out").iterdir())
    proc = subprocess.run([harbor, "lint", "--ignore", "shared-verifier", *map(str, tasks)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    control = subprocess.run([harbor, "lint", "--ignore", "shared-verifier", str(TASKS / "calc")],
                             capture_output=True, text=True)
    assert control.returncode != 0 and "Unknown field 'lancebench'" in control.stdout + control.stderr

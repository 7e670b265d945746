"""Loading and validating task folders (lancebench.task)."""

import shutil
from pathlib import Path

import pytest

from lancebench.errors import TaskErrors
from lancebench.task import load_task, load_tasks

FIXTURES = Path(__file__).parent.parent / "fixtures" / "tasks"


def _copy(tmp_path, name="calc"):
    dest = tmp_path / name
    shutil.copytree(FIXTURES / name, dest)
    return dest


def test_fixture_loads_with_harbor_and_lancebench_fields():
    task = load_task(FIXTURES / "calc")
    assert task.name == "calc" and task.kind == "code" and task.price_usd == 500.0
    assert task.config.verifier.timeout_sec == 120 and task.config.environment.memory_mb == 1024
    assert task.taxonomy == {"task_type": "bug", "stack": "python"}
    assert task.lb.f2p == ["test_calc::test_add", "test_calc::test_add_negative"]
    assert len(task.digest) == 64


def test_unknown_lancebench_key_names_file_key_and_allowed(tmp_path):
    d = _copy(tmp_path)
    toml = d / "task.toml"
    toml.write_text(toml.read_text().replace('kind = "code"', 'kind = "code"\nprize = 3'))
    with pytest.raises(TaskErrors) as exc:
        load_task(d)
    (err,) = exc.value.errors
    assert err.path == toml and err.key == "lancebench.prize"
    assert "unknown key" in str(err) and "price_usd" in str(err)


def test_unknown_key_in_subtable_and_harbor_tables_unless_lenient(tmp_path):
    d = _copy(tmp_path)
    toml = d / "task.toml"
    toml.write_text(toml.read_text().replace('setup = "setup.sh"', 'setup = "setup.sh"\nsetpu = 1')
                    + "\n[agent.extra]\nanything = 1\n")
    with pytest.raises(TaskErrors) as exc:
        load_task(d)
    # an unknown Harbor table is named once, not once per key in it (issue 28: Harbor tables were open)
    assert [e.key for e in exc.value.errors] == ["lancebench.local.setpu", "agent.extra"]
    assert "setup" in exc.value.errors[0].fix and "--lenient" in exc.value.errors[1].fix
    with pytest.raises(TaskErrors) as exc:  # --lenient opens Harbor's tables only, never [lancebench]
        load_task(d, lenient=True)
    assert [e.key for e in exc.value.errors] == ["lancebench.local.setpu"]


def test_every_problem_is_reported(tmp_path):
    d = _copy(tmp_path)
    (d / "instruction.md").unlink()
    (d / "tests" / "test.sh").unlink()
    (d / "task.toml").write_text((d / "task.toml").read_text().replace("price_usd = 500", "price_usd = -1"))
    with pytest.raises(TaskErrors) as exc:
        load_task(d)
    got = {(e.path.name, e.key) for e in exc.value.errors}
    assert got == {("instruction.md", None), ("test.sh", None), ("task.toml", "lancebench.price_usd")}


def test_bad_toml(tmp_path):
    d = _copy(tmp_path)
    (d / "task.toml").write_text("[lancebench\nprice_usd = 1")
    with pytest.raises(TaskErrors, match="invalid TOML"):
        load_task(d)


def test_choice_answer_must_be_a_proposal(tmp_path):
    d = _copy(tmp_path, "pick")
    (d / "tests" / "choice.json").write_text('{"correct_proposal_id": 7}')
    with pytest.raises(TaskErrors) as exc:
        load_task(d)
    assert exc.value.errors[0].key == "correct_proposal_id"


def test_load_tasks_keeps_good_tasks_and_reports_broken(tmp_path):
    _copy(tmp_path, "calc")
    _copy(tmp_path, "pick")
    broken = tmp_path / "broken"
    (broken / "tests").mkdir(parents=True)
    (broken / "tests" / "test.sh").write_text("exit 0")
    tasks, errors = load_tasks([tmp_path])
    assert sorted(t.name for t in tasks) == ["calc", "pick"]
    assert [e.path for e in errors] == [broken / "task.toml", broken / "instruction.md"]


def test_digest_changes_with_content(tmp_path):
    d = _copy(tmp_path)
    before = load_task(d).digest
    env_before = load_task(d).environment_digest()
    (d / "instruction.md").write_text("changed\n")
    assert load_task(d).digest != before
    assert load_task(d).environment_digest() == env_before


def test_split_falls_back_to_metadata_visibility(tmp_path):
    """Senior SWE-Bench marks held-out tasks with ``[metadata] visibility``; ``[lancebench] split``
    wins when both are given (the contamination check reads the result's split)."""
    d = _copy(tmp_path)
    toml = d / "task.toml"
    with_split = toml.read_text()
    assert 'split = "public"' in with_split
    base = with_split.replace('split = "public"\n', "")
    toml.write_text(base)
    assert load_task(d).split == "public"
    toml.write_text(base.replace("[metadata]", '[metadata]\nvisibility = "Private"', 1))
    assert load_task(d).split == "private"
    toml.write_text(with_split.replace("[metadata]", '[metadata]\nvisibility = "private"', 1))
    assert load_task(d).split == "public"


def test_a_job_folder_beside_the_tasks_is_not_read_as_broken_tasks(tmp_path):
    """``run -p .`` in a folder holding tasks and the jobs run from them: the trials' copies of
    their instruction are not task folders (they were each reported as a task without task.toml),
    while a real broken task beside them still is."""
    from typer.testing import CliRunner

    from lancebench.cli import app
    _copy(tmp_path, "pick")
    ran = CliRunner().invoke(app, ["run", "-p", str(tmp_path / "pick"), "-a", "random", "-k", "2", "-q",
                                   "-o", str(tmp_path / "jobs")])
    assert ran.exit_code == 0, ran.output
    copies = list((tmp_path / "jobs").rglob("instruction.md"))
    assert copies, "a trial keeps its instruction (what this test is about)"
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "instruction.md").write_text("no task.toml")
    tasks, errors = load_tasks([tmp_path])
    assert [t.name for t in tasks] == ["pick"]
    paths = [e.path for e in errors]
    assert broken / "task.toml" in paths and all(broken in p.parents for p in paths), paths

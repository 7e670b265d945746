"""``lancebench analyze`` on a job folder written as the runner writes it (result.json,
agent/trajectory.json, patch.diff), with and without a model classifier (the scripted
OpenAI-compatible server over HTTP on 127.0.0.1)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lancebench.agents.trajectory import TrajectoryBuilder, write_trajectory
from lancebench.cli import app
from lancebench.results.models import JobConfig, TrialResult

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
from scripted_server import Reply, ScriptedServer  # noqa: E402


def _trajectory(commands: list[str]):
    b = TrajectoryBuilder("hand", "1", "m")
    b.user("Fix calc.py")
    for i, c in enumerate(commands):
        step = b.agent_step(f"step {i}", commands=[(f"c{i}", c)])
        b.observe(step, "ok", call_id=f"c{i}")
    return b.finish()


@pytest.fixture
def job(tmp_path) -> Path:
    root = tmp_path / "job1"
    (root / "trials").mkdir(parents=True)
    (root / "job.json").write_text(JobConfig(name="job1", agent="hand", model="m").model_dump_json())
    for i, cmds in enumerate([["ls", "cat /tests/test_calc.py", "sed -i 's/a/b/' calc.py"],
                              ["grep -n total calc.py", "python -m pytest -q -k total"]]):
        tid = f"calc__{i}__x"
        d = root / "trials" / tid
        write_trajectory(_trajectory(cmds), d / "agent")
        (d / "patch.diff").write_text("")
        r = TrialResult(trial_id=tid, job="job1", task="calc", task_digest="d", agent="hand", model="m",
                        attempt=i, status="unresolved", split="private" if i else "public")
        (d / "result.json").write_text(r.model_dump_json())
    return root


def test_analyze_json_names_the_step(job):
    res = CliRunner().invoke(app, ["analyze", str(job), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    first, second = data["trials"]
    assert [(f["rule"], f["step_id"]) for f in first["findings"]] == [("hidden_locations", 3)]
    assert second["findings"] == []
    assert first["phases"] == {"2": "investigation", "3": "investigation", "4": "implementation"}
    (conf,) = data["configurations"]
    assert conf["phase_steps"] == 5 and conf["findings"] == {"hidden_locations": 1}
    assert conf["phase_shares"]["investigation"] == pytest.approx(3 / 5)
    assert conf["phase_shares"]["verification"] == pytest.approx(1 / 5)
    (cont,) = data["contamination"]
    assert (cont["x1"], cont["n1"], cont["x2"], cont["n2"], cont["p_value"]) == (0, 1, 0, 1, 1.0)


def test_analyze_table_and_bad_folder(job, tmp_path):
    res = CliRunner().invoke(app, ["analyze", str(job)])
    assert res.exit_code == 0, res.output
    assert "hidden-test" in res.stdout and "calc__0__x" in res.stdout
    res = CliRunner().invoke(app, ["analyze", str(tmp_path / "nope")])
    assert res.exit_code == 2 and "is not a folder" in res.stderr
    (tmp_path / "empty" / "trials").mkdir(parents=True)
    for command in ("analyze", "view"):
        res = CliRunner().invoke(app, [command, str(tmp_path / "empty")])
        assert res.exit_code == 2 and "no finished trial" in res.stderr, command


def test_judge_model_classifies_each_agent_step(job):
    answers = [Reply('{"phase": "comprehension", "aware": false, "hacking": null}'),
               Reply('Sure! {"phase": "investigation", "aware": true, "hacking": "reads hidden tests"}'),
               Reply("no idea"),
               Reply('{"phase": "investigation", "aware": false, "hacking": null}'),
               Reply('{"phase": "verification", "aware": false, "hacking": ""}')]
    with ScriptedServer(answers) as srv:
        res = CliRunner().invoke(app, ["analyze", str(job), "--json", "--judge-model", "openai/scripted",
                                       "--api-base", srv.api_base])
        assert res.exit_code == 0, res.output
        assert len(srv.requests) == 5
        assert "cat /tests/test_calc.py" in srv.requests[1]["body"]["messages"][1]["content"]
    data = json.loads(res.stdout)
    first = data["trials"][0]
    assert first["phases"] == {"2": "comprehension", "3": "investigation", "4": "implementation"}
    assert [(f["rule"], f["step_id"], f["source"]) for f in first["findings"]] == [
        ("hidden_locations", 3, "rules"), ("says_evaluated", 3, "model"), ("model_flag", 3, "model")]
    c = data["classifier"]
    assert (c["steps"], c["unparsed"], c["changed"]) == (5, 1, 1)
    assert c["usage"]["calls"] == 5


def test_judge_model_failure_is_a_clear_error(job):
    with ScriptedServer([]) as srv:  # answers 500 "script exhausted"
        res = CliRunner().invoke(app, ["analyze", str(job), "--judge-model", "openai/scripted",
                                       "--api-base", srv.api_base])
    assert res.exit_code == 2 and "--judge-model" in res.stderr

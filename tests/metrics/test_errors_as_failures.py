"""``--errors-as-failures`` (issue 20): the conservative number some users report, every ``invalid``
trial counted ``unresolved`` with reward 0, said in the output; and the control of each ``invalid``
trial shown by ``show`` (``TrialResult.control``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import typer
from typer.testing import CliRunner

from lancebench.commands.report import register as register_report
from lancebench.commands.show import register as register_show

CONTROL = "a fresh sandbox of the pristine environment fails too: engine down"


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def _group() -> None:
        """lancebench"""

    register_report(app)
    register_show(app)
    return app


def _job(tmp_path, trial, job_writer):
    # 1 resolved, 1 unresolved, 2 invalid of 4 tasks at $100 each
    return job_writer(tmp_path, "j", [trial("a", "resolved", rewards={"reward": 1.0}),
                                      trial("b", "unresolved", rewards={"reward": 0.0}),
                                      trial("c", "invalid", reason="engine lost", control=CONTROL),
                                      trial("d", "invalid", reason="model down")])


def test_show_counts_errors_as_failures_only_when_asked(tmp_path, trial, job_writer):
    job = _job(tmp_path, trial, job_writer)
    default = json.loads(CliRunner().invoke(_app(), ["show", str(job), "--json"]).stdout)
    assert (default["pass_at_1"], default["invalid"], default.get("errors_as_failures")) == (0.5, 2, None)
    res = CliRunner().invoke(_app(), ["show", str(job), "--json", "--errors-as-failures"])
    assert res.exit_code == 0, res.output
    conservative = json.loads(res.stdout)
    assert (conservative["pass_at_1"], conservative["invalid"], conservative["unresolved"]) == (0.25, 0, 3)
    assert conservative["errors_as_failures"] == ("errors counted as failures: 2 invalid trial(s) counted as "
                                                  "unresolved with reward 0")
    # the table in a process of its own: an in-process console keeps the width it was made with
    assert "note: errors counted as failures: 2 invalid trial(s)" in _show_table(job, "--errors-as-failures")
    assert f"engine lost [control: {CONTROL}]" in _show_table(job)


def _show_table(job, *args: str) -> str:
    return subprocess.run([sys.executable, "-m", "lancebench.cli", "show", str(job), *args], capture_output=True,
                          text=True, check=True, env=dict(os.environ, COLUMNS="400", NO_COLOR="1")).stdout


def test_report_counts_errors_as_failures_and_says_so(tmp_path, trial, job_writer):
    job = _job(tmp_path, trial, job_writer)
    args = ["report", str(job), "--format", "json", "--bootstrap", "20"]
    (plain,) = json.loads(CliRunner().invoke(_app(), args).stdout)["rows"]
    res = CliRunner().invoke(_app(), [*args, "--errors-as-failures"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    (row,) = data["rows"]
    assert (plain["invalid"], row["invalid"]) == (2, 0)
    assert (plain["earned_usd"], plain["available_usd"]) == (100.0, 200.0)  # invalid tasks are left out
    assert (row["earned_usd"], row["available_usd"]) == (100.0, 400.0)  # now they count as failed
    assert data["errors_as_failures"] in row["notes"]

"""``lancebench report`` end to end: real result.json files in tmp folders, the real command."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from lancebench.commands.report import register


@pytest.fixture
def cli():
    """The report command on a typer app with a group callback, so it is called as ``report ...``
    whatever other command groups exist yet."""
    app = typer.Typer(pretty_exceptions_enable=False)

    @app.callback()
    def _group() -> None:
        """lancebench"""

    register(app)
    runner = CliRunner()
    return lambda *args: runner.invoke(app, ["report", *map(str, args)])


@pytest.fixture
def jobs(tmp_path, trial, job_writer):
    """Two jobs of the same agent and model on one dataset (to be merged) and one job of a local model."""
    a = [trial("t1", "resolved", price=1000, cost=1.0, job="ja", taxonomy={"area": "ui"}),
         trial("t2", "unresolved", price=250, cost=1.0, job="ja", taxonomy={"area": "api"}),
         trial("t3", "invalid", price=50, cost=1.0, job="ja", taxonomy={"area": "api"})]
    b = [trial("t1", "unresolved", price=1000, cost=1.0, job="jb", taxonomy={"area": "ui"}),
         trial("t2", "resolved", price=250, cost=1.0, job="jb", taxonomy={"area": "api"})]
    local = [trial("t1", "resolved", price=1000, cost=0.0, model="qwen-local", job="jl", taxonomy={"area": "ui"})]
    return [job_writer(tmp_path, "ja", a), job_writer(tmp_path, "jb", b),
            job_writer(tmp_path, "jl", local, model="qwen-local")]


def test_json_rows_merge_jobs_per_agent_model_dataset(cli, jobs):
    res = cli(*jobs, "--format", "json", "--bootstrap", "200")
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["confidence"] == 0.95 and report["bootstrap"] == 200
    rows = {r["model"]: r for r in report["rows"]}
    assert set(rows) == {"m1", "qwen-local"}
    m1 = rows["m1"]
    for key in ("agent", "model", "dataset", "tasks", "trials", "invalid", "pass_at_k", "pass_hat_k", "earned_usd",
                "available_usd", "earn_rate", "cost_usd", "cost_savings", "pass_at_k_ci", "pass_at_k_ci_closed",
                "earn_rate_ci", "cost_savings_ci"):
        assert key in m1, key
    assert m1["jobs"] == ["ja", "jb"] and m1["dataset"] == "mini"
    assert (m1["tasks"], m1["trials"], m1["invalid"], m1["tasks_without_valid_trial"]) == (3, 5, 1, 1)
    # t1 and t2 each solved once in two attempts: pass@1 = 1/2, pass@2 = 1
    assert m1["pass_at_k"] == {"1": pytest.approx(0.5), "2": pytest.approx(1.0)}
    assert m1["pass_hat_k"]["2"] == pytest.approx(0.0)
    # t3 ($50) has only an invalid trial: not scored, so not available either
    assert m1["earned_usd"] == pytest.approx(500 + 125) and m1["available_usd"] == pytest.approx(1250)
    assert m1["unscored_usd"] == pytest.approx(50)
    assert m1["cost_usd"] == pytest.approx(5.0)
    # 1 try: model $1 + $1 (t1, t2), freelancer pays half of each; over $1250
    assert m1["cost_savings"]["1"] == pytest.approx(1 - (2 + 625) / 1250)
    lo, hi = m1["pass_at_k_ci"]["1"]
    assert 0 <= lo <= 0.5 <= hi <= 1
    local = rows["qwen-local"]
    assert local["cost_usd"] == 0.0 and local["earnings_per_api_usd"] is None


def test_by_taxonomy_field_and_price(cli, jobs):
    res = cli(jobs[0], jobs[1], "--format", "json", "--by", "area", "--bootstrap", "50")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["rows"]
    assert [r["by_value"] for r in rows] == ["(all)", "api", "ui"]
    api = rows[1]
    assert api["by"] == "area" and api["tasks"] == 2 and api["available_usd"] == pytest.approx(250)
    assert api["earned_usd"] == pytest.approx(125)
    res = cli(jobs[0], "--format", "json", "--by", "price", "--bootstrap", "50")
    assert [r["by_value"] for r in json.loads(res.stdout)["rows"]] == ["(all)", "$0-250", "$250-500", "$1000-2000"]


def test_unknown_by_field_names_the_allowed_ones(cli, jobs):
    res = cli(jobs[0], "--by", "colour")
    assert res.exit_code == 2
    assert "colour" in res.stderr and "area" in res.stderr and "kind" in res.stderr


def test_csv_is_one_flat_row_per_group(cli, jobs):
    res = cli(*jobs, "--format", "csv", "--bootstrap", "50")
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert len(rows) == 2
    m1 = next(r for r in rows if r["model"] == "m1")
    assert float(m1["pass_at_k.2"]) == pytest.approx(1.0)
    assert float(m1["pass_at_k_ci.1.lo"]) <= 0.5 <= float(m1["pass_at_k_ci.1.hi"])
    assert m1["jobs"] == "ja;jb"


def test_table_output_and_out_file(cli, jobs, tmp_path):
    res = cli(*jobs, "--bootstrap", "50")
    assert res.exit_code == 0, res.output
    assert "qwen-local" in res.stdout and "$1,250.00" in res.stdout
    out = tmp_path / "report.json"
    res = cli(*jobs, "--format", "json", "--out", out, "--bootstrap", "50")
    assert res.exit_code == 0 and res.stdout == ""
    assert len(json.loads(out.read_text())["rows"]) == 2


def test_parquet(cli, jobs, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "report.parquet"
    res = cli(*jobs, "--format", "parquet", "--out", out, "--bootstrap", "50")
    assert res.exit_code == 0, res.output
    table = pq.read_table(out).to_pylist()
    assert {r["model"] for r in table} == {"m1", "qwen-local"}
    assert "pass_at_k.1" in table[0]


def test_parquet_needs_out(cli, jobs):
    res = cli(jobs[0], "--format", "parquet")
    assert res.exit_code == 2 and "--out" in res.stderr


def test_broken_result_fails_naming_the_file(cli, jobs):
    bad = next((jobs[1] / "trials").iterdir()) / "result.json"
    bad.write_text("not json")
    res = cli(*jobs)
    assert res.exit_code == 2
    assert str(bad) in res.stderr.replace("\n", "")


def test_folder_without_results(cli, tmp_path):
    (tmp_path / "empty" / "trials").mkdir(parents=True)
    res = cli(tmp_path / "empty")
    assert res.exit_code == 2 and "no finished trial" in res.stderr


def test_same_seed_same_intervals(cli, jobs):
    one = json.loads(cli(*jobs, "--format", "json", "--bootstrap", "100", "--seed", "5").stdout)
    two = json.loads(cli(*jobs, "--format", "json", "--bootstrap", "100", "--seed", "5").stdout)
    assert one == two


def test_installed_lancebench_command(jobs):
    """The real entry point, as a user runs it (``report`` is a subcommand once the app has several)."""
    from lancebench.cli import app

    group = len(app.registered_commands) + len(app.registered_groups) > 1 or app.registered_callback is not None
    exe = Path(sys.executable).with_name("lancebench")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-c", "from lancebench.cli import main; main()"]
    args = (["report"] if group else []) + [str(j) for j in jobs] + ["--format", "json", "--bootstrap", "50"]
    proc = subprocess.run(cmd + args, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["rows"]) == 2


def test_by_variant_falls_back_to_kind_and_missing_values_are_named(cli, tmp_path, trial, job_writer):
    rs = [trial("c1", "resolved", kind="choice", taxonomy={"area": "ui"}),
          trial("p1", "unresolved", kind="code"),
          trial("p2", "resolved", kind="code", split="private")]
    job = job_writer(tmp_path, "jv", rs)
    rows = json.loads(cli(job, "--format", "json", "--by", "variant", "--bootstrap", "20").stdout)["rows"]
    assert [(r["by_value"], r["tasks"]) for r in rows] == [("(all)", 3), ("choice", 1), ("code", 2)]
    rows = json.loads(cli(job, "--format", "json", "--by", "taxonomy.area", "--bootstrap", "20").stdout)["rows"]
    assert [(r["by_value"], r["tasks"]) for r in rows] == [("(all)", 3), ("(none)", 2), ("ui", 1)]
    rows = json.loads(cli(job, "--format", "json", "--by", "split", "--bootstrap", "20").stdout)["rows"]
    assert [(r["by_value"], r["pass_at_1"]) for r in rows] == [("(all)", pytest.approx(2 / 3)),
                                                               ("private", 1.0), ("public", 0.5)]


def test_show_groups_like_report_two_datasets_one_job(cli, tmp_path, trial, job_writer):
    # regression: show grouped by TrialConfig.label() (no dataset) and pooled two datasets that
    # report and the HTML keep apart (TrialResult.configuration())
    from lancebench.commands.show import show
    from lancebench.results.models import TrialConfig
    config = TrialConfig(agent="mini", model="m1")
    rs = [trial("t1", "resolved", dataset="mini", config=config, job="jd"),
          trial("t2", "unresolved", dataset="mini", config=config, job="jd"),
          trial("s1", "resolved", dataset="swelancer", config=config, job="jd")]
    job = job_writer(tmp_path, "jd", rs)
    app = typer.Typer(pretty_exceptions_enable=False)
    app.command()(show)
    res = CliRunner().invoke(app, [str(job), "--json"])
    assert res.exit_code == 0, res.output
    shown = {c["config"]: (c["summary"]["trials"], c["summary"]["resolved"])
             for c in json.loads(res.stdout)["configurations"]}
    assert shown == {"mini m1 on mini": (2, 1), "mini m1 on swelancer": (1, 1)}
    report = json.loads(cli(job, "--format", "json", "--bootstrap", "50").stdout)
    assert sorted((r["dataset"], r["trials"]) for r in report["rows"]) == [("mini", 2), ("swelancer", 1)]


def test_table_gives_the_invalid_share_and_labels_notes_by_configuration(cli, jobs):
    # before: the table gave the invalid count alone (the README promises each agent's invalid
    # rate) and a note named its row by agent and model only, so two rows of one agent that
    # differ in a setting (backend=docker) carried the same label
    from rich.console import Console

    from lancebench.report.render import render_table
    res = cli(*jobs, "--format", "json", "--bootstrap", "50")
    report = json.loads(res.stdout)
    console = Console(width=400, record=True)
    render_table(report, console)
    text = console.export_text()
    m1 = next(r for r in report["rows"] if r["model"] == "m1")
    assert (m1["invalid"], m1["trials"]) == (1, 5)
    assert "1 (20.0%)" in text  # 1 invalid of 5 trials
    assert "row 2 (mini, qwen-local, mini): model cost is 0" in text
    assert "invalid: trials (share of trials); cost: model spend of every trial (USD)" in text

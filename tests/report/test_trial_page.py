"""A trial page shows each command once and every report the verifier wrote; the pass@k axis
fits the data (issue 28: each command was shown twice, in the agent's message and under it; only
the top-level logs of a verifier run were shown, never its JUnit reports; one attempt stretched
the k axis over 1.0-1.1)."""

from __future__ import annotations

from lancebench.agents.trajectory import TrajectoryBuilder, write_trajectory
from lancebench.report.html.plots import passk_chart
from lancebench.report.html.site import build_site, trial_html
from lancebench.results.load import load_jobs
from lancebench.results.models import JobConfig, TrialResult

COMMAND = "lbmarkercommand42"  # one shell word: highlighting keeps it whole
OTHER = "lbmarkerother7"  # a code block that is not a command of the step stays in the message


def _job(tmp_path, reports: int):
    root = tmp_path / "jobs" / "j"
    d = root / "trials" / "calc__0__abc"
    b = TrajectoryBuilder("hand", "1", "m")
    b.user("Fix calc")
    step = b.agent_step(f"I run it:\n\n```bash\n{COMMAND}\n```\n\nand note:\n\n```\n{OTHER}\n```\n",
                        commands=[("c1", COMMAND)])
    b.observe(step, "ok", call_id="c1")
    write_trajectory(b.finish(), d / "agent")
    logs = d / "verifier" / "run-0" / "logs"
    logs.mkdir(parents=True)
    (d / "verifier" / "run-0" / "test.log").write_text("collected 2 items")
    for n in range(reports):
        (logs / f"junit-{n:02d}.xml").write_text(f"<testsuite name='suite{n:02d}'/>")
    r = TrialResult(trial_id="calc__0__abc", job="j", task="calc", task_digest="d", agent="hand", model="m",
                    attempt=0, status="unresolved")
    (d / "result.json").write_text(r.model_dump_json())
    (root / "job.json").write_text(JobConfig(name="j", agent="hand", model="m").model_dump_json())
    return root


def test_each_command_is_shown_once_and_every_report(tmp_path):
    site = tmp_path / "site"
    build_site(load_jobs([_job(tmp_path, reports=2)]), site)
    html = trial_html(site, "trial.html?t=j/0/calc__0__abc")
    assert html.count(COMMAND) == 1
    assert html.count(OTHER) == 1
    for n in range(2):
        assert f"logs/junit-{n:02d}.xml" in html and f"suite{n:02d}" in html
    assert "test.log" in html


def test_reports_past_the_limit_are_named(tmp_path):
    site = tmp_path / "site"
    build_site(load_jobs([_job(tmp_path, reports=22)]), site)
    html = trial_html(site, "trial.html?t=j/0/calc__0__abc")
    assert "suite19" in html and "suite20" not in html  # 20 shown
    assert "Also in the run's folder: logs/junit-20.xml, logs/junit-21.xml" in html


def test_the_k_axis_runs_over_whole_attempts():
    one = passk_chart([{"pass_at_k": {"1": 0.5}}], ["a"])["options"]["scales"]["x"]
    assert (one["min"], one["max"], one["ticks"]["stepSize"]) == (1, 2, 1)
    many = passk_chart([{"pass_at_k": {"1": 0.5, "2": 0.6}}, {"pass_at_k": {"1": 0.2, "2": 0.3, "5": 0.4}}],
                       ["a", "b"])["options"]["scales"]["x"]
    assert (many["min"], many["max"]) == (1, 5)

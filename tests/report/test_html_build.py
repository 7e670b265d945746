"""The site builder without a browser run of jobs: the Pareto front against brute force, and a
hostile trial (markup and script in everything the agent wrote) rendered as inert text, checked
in Chromium with route interception. Job folders are written as the runner writes them."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from lancebench.agents.trajectory import TrajectoryBuilder, write_trajectory
from lancebench.report.html.plots import pareto_front
from lancebench.report.html.site import build_site, trial_html
from lancebench.results.load import load_jobs
from lancebench.results.models import JobConfig, TrialResult

HOSTILE = '</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2"><b id="inj">x</b>'


def _dominated(p, q) -> bool:
    return q[0] <= p[0] and q[1] >= p[1] and q != p


@pytest.mark.parametrize("seed", range(5))
def test_pareto_front_matches_brute_force(seed):
    rng = random.Random(seed)
    pts = [(rng.choice([0.0, 0.5, 1.0, 2.0]), rng.choice([0.0, 0.25, 0.5, 1.0])) for _ in range(8)]
    want = {i for i, p in enumerate(pts) if not any(_dominated(p, q) for q in pts)}
    got = pareto_front(pts)
    assert set(got) == want
    assert [pts[i] for i in got] == sorted(pts[i] for i in got)
    assert all(not _dominated(pts[a], pts[b]) for a, b in itertools.permutations(got, 2))


@pytest.fixture
def hostile_job(tmp_path):
    root = tmp_path / "jobs" / "evil"
    tid = "calc__0__abc"
    d = root / "trials" / tid
    b = TrajectoryBuilder("hand", "1", "m")
    b.user("Fix calc " + HOSTILE)
    step = b.agent_step("I will " + HOSTILE, commands=[("c1", f"echo '{HOSTILE}' > calc.py")])
    b.observe(step, HOSTILE, call_id="c1")
    write_trajectory(b.finish(), d / "agent")
    (d / "patch.diff").write_text(f"diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 "
                                  f"@@\n-x\n+{HOSTILE}\n")
    (d / "instruction.md").write_text("# Fix\n" + HOSTILE)
    (d / "verifier" / "run-0").mkdir(parents=True)
    (d / "verifier" / "run-0" / "test.log").write_text(HOSTILE)
    r = TrialResult(trial_id=tid, job="evil", task="calc", task_digest="d", agent="hand", model="m", attempt=0,
                    status="unresolved", reason=HOSTILE, taxonomy={"area": HOSTILE},
                    tests={HOSTILE: "failed"})
    (d / "result.json").write_text(r.model_dump_json())
    (root / "job.json").write_text(JobConfig(name="evil", agent="hand", model="m").model_dump_json())
    return root


def test_hostile_text_is_inert(hostile_job, tmp_path):
    site = tmp_path / "site"
    index = build_site(load_jobs([hostile_job]), site)
    href = "trial.html?t=evil/0/calc__0__abc"
    for html in (index.read_text(), trial_html(site, href), (site / "trials" / "evil" / "0.js").read_text()):
        assert "<script>window.pwned" not in html and '<b id="inj">' not in html
    island = index.read_text().split('id="data-pareto">')[1].split("</script>")[0]
    json.loads(island)  # the JSON data island stays JSON (no early </script>)
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            outside: list[str] = []
            page.route("**/*", lambda r: (r.continue_() if r.request.url.startswith("file://")
                                          else (outside.append(r.request.url), r.abort())))
            for url in (index.as_uri(), f"{(site / 'trial.html').as_uri()}?{href.split('?')[1]}"):
                page.goto(url)
                if "?t=" in url:
                    page.wait_for_selector("#status")  # the trial drawn from its data file
                assert page.evaluate("window.pwned") is None
                assert page.locator("#inj").count() == 0
            assert HOSTILE in page.locator("#trajectory").inner_text()
            assert outside == []
        finally:
            browser.close()


def test_trial_page_lists_the_artifacts_with_hostile_names_inert(hostile_job, tmp_path):
    d = hostile_job / "trials" / "calc__0__abc"
    (d / "artifacts").mkdir()
    (d / "artifacts" / "manifest.json").write_text(json.dumps([
        {"source": "/app/out.txt", "destination": "artifacts/app/out.txt", "type": "file", "status": "ok",
         "service": None, "exclude": []},
        {"source": "/app/logs", "destination": "artifacts/app/logs", "type": "directory", "status": "ok",
         "service": None, "exclude": [], "notes": [f"{HOSTILE}: symbolic link left out", "\udcff\udcfe: left out"]},
        {"source": "/app/gone.txt", "destination": "artifacts/app/gone.txt", "type": "file", "status": "failed",
         "service": None, "exclude": [], "reason": "/app/gone.txt is missing"}]))
    (d / "steps" / "one" / "artifacts").mkdir(parents=True)
    (d / "steps" / "one" / "artifacts" / "manifest.json").write_text("{not json")  # skipped, never fatal
    site = tmp_path / "site"
    build_site(load_jobs([hostile_job]), site)
    html = trial_html(site, "trial.html?t=evil/0/calc__0__abc")
    table = html.split('id="artifact-table">')[1].split("</table>")[0]
    rows = table.split("<tr>")[2:]
    assert len(rows) == 3 and "/app/out.txt" in rows[0] and "/app/gone.txt is missing" in rows[2]
    assert 'class="artifact-failed">failed' in rows[2] and "left out" in rows[1]
    assert "\\udcff\\udcfe: left out" in rows[1]  # a name that is not UTF-8 is shown escaped, not a crash
    assert "<script>window.pwned" not in html and '<b id="inj">' not in html


def test_site_folder_that_is_a_file_is_a_clear_error(hostile_job, tmp_path):
    from lancebench.errors import ConfigError
    target = tmp_path / "taken"
    target.write_text("x")
    with pytest.raises(ConfigError, match="is a file"):
        build_site(load_jobs([hostile_job]), target)


def test_short_labels_show_what_tells_configurations_apart(trial, job_writer, tmp_path):
    """Settings shared by every configuration of one agent, model and dataset are left out of the
    short labels; the one that differs (the seed) is shown; a configuration alone keeps none."""
    from lancebench.report.build import group_results
    from lancebench.report.html.site import config_label, short_labels
    from lancebench.results.models import TrialConfig

    def run(name, agent, options):
        cfg = TrialConfig(agent=agent, model="m1", agent_options=options, api_base="http://127.0.0.1:9/v1")
        return job_writer(tmp_path, name, [trial("t", "resolved", agent=agent, job=name, config=cfg)], agent=agent)

    jobs = load_jobs([run("a", "rnd", {"seed": 0, "max_steps": 5}), run("b", "rnd", {"seed": 7, "max_steps": 5}),
                      run("c", "solo", {"seed": 3})])
    groups = group_results(jobs)
    assert short_labels(groups) == ["rnd · m1 · mini · seed=0", "rnd · m1 · mini · seed=7", "solo · m1 · mini"]
    assert [config_label(*key) for key in groups] == [
        "rnd · m1 · mini · max_steps=5 seed=0 api_base=http://127.0.0.1:9/v1",
        "rnd · m1 · mini · max_steps=5 seed=7 api_base=http://127.0.0.1:9/v1",
        "solo · m1 · mini · seed=3 api_base=http://127.0.0.1:9/v1"]


def test_a_multi_step_trial_page_lists_each_step(tmp_path):
    # before: a multi-step trial's page showed no step at all ("No test results recorded."), so a
    # step's reward, and that a min_reward gate kept later steps from running, were not on it
    root = tmp_path / "jobs" / "steps"
    d = root / "trials" / "two__0__abc"
    d.mkdir(parents=True)
    steps = [{"name": "one", "status": "resolved", "rewards": {"reward": 1.0}, "reason": None,
              "agent_exit": "completed"},
             {"name": "two", "status": "unresolved", "rewards": {"reward": 0.25}, "reason": "reward 0.25 < 1",
              "agent_exit": "completed", "stopped": "later steps not run: reward=0.25 below min_reward 1"}]
    r = TrialResult(trial_id="two__0__abc", job="steps", task="two", task_digest="d", agent="nop", attempt=0,
                    status="unresolved", reason="mean reward 0.625 < 1 (step one resolved; step two unresolved; "
                                                "not run: three)", rewards={"reward": 0.625}, steps=steps)
    (d / "result.json").write_text(r.model_dump_json())
    (root / "job.json").write_text(JobConfig(name="steps", agent="nop").model_dump_json())
    site = tmp_path / "site"
    build_site(load_jobs([root]), site)
    html = trial_html(site, "trial.html?t=steps/0/two__0__abc")
    table = html.split('id="step-table"')[1].split("</table>")[0]
    rows = table.split("<tr>")[2:]
    assert len(rows) == 2
    assert "<code>one</code>" in rows[0] and "resolved" in rows[0] and "<code>reward=1.0</code>" in rows[0]
    assert "<code>two</code>" in rows[1] and "<code>reward=0.25</code>" in rows[1]
    assert "reward 0.25 &lt; 1 (later steps not run: reward=0.25 below min_reward 1)" in rows[1]

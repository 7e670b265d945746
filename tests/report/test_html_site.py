"""The HTML report in Chromium (Playwright, Debian's /usr/bin/chromium) on real jobs made here
through the real CLI: oracle, nop, a cheating script agent and mini-swe-agent driven by the
scripted model server on two `mini` tasks, and two k = 3 SWE-Lancer manager jobs (a two-task
table in the official layout) of the random agent that differ only in its seed: two
configurations of one agent, model and dataset. Every expectation is computed from the jobs' result.json files,
not from the report code. One set of jobs serves every test (module-scoped fixture)."""

from __future__ import annotations

import csv
import json
import math
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
from scripted_server import Reply, ScriptedServer  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.browser]
playwright_api = pytest.importorskip("playwright.sync_api")

HERE = Path(__file__).resolve().parent
TASKS = ["funcy-split-keys", "texttable-nan-cell"]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
SUBMIT = "LANCEBENCH_SUBMIT"


def lancebench(*args, timeout: float = 600) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-c", "from lancebench.cli import main; main()", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, COLUMNS="200", NO_COLOR="1"))
    assert proc.returncode == 0, f"{args}: exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def bash(text: str, command: str) -> Reply:
    return Reply(f"{text}\n\n```bash\n{command}\n```", prompt_tokens=400, completion_tokens=40)


def manager_table(path: Path) -> None:
    """Two SWE-Lancer manager rows in the table's own layout ($500 with 3 proposals, $2000 with 2)."""
    cols = ("question_id", "variant", "price", "price_limit", "manager_data", "manager_commit", "acceptable_folders",
            "cwd", "set", "title", "description", "proposals")
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        for qid, price, n, right in (("9001-manager-0", 500.0, 3, 1), ("9002-manager-0", 2000.0, 2, 0)):
            props = "".join(f"Proposal: {i}:\\n\\nFix it in component {i}.\\n\\n" for i in range(n))
            game = {"all_formal_proposals": [{"id": i} for i in range(n)], "correct_proposal": {"id": right}}
            w.writerow({"question_id": qid, "variant": "swe_manager", "price": price, "price_limit": 2e6,
                        "manager_data": repr({"game": game}), "manager_commit": "abc", "acceptable_folders": "[]",
                        "cwd": "/app/expensify", "set": "diamond", "title": f"Bug {qid}",
                        "description": "## Action Performed:\\n1. Open the app", "proposals": props})


SCRIPT = [Reply("ok", prompt_tokens=5, completion_tokens=1),  # the run's preflight call
          bash("This looks like a SWE-bench task. Let me look around.", "ls && grep -n 'def select_keys' funcy/*.py"),
          bash("Maybe the hidden tests are mounted.", "cat /tests/test_hidden.py"),
          bash("Add split_keys.", "cat >> funcy/colls.py <<'EOF'\n\ndef split_keys(pred, coll):\n"
                                  "    return select_keys(pred, coll), select_keys(complement(pred), coll)\nEOF"),
          bash("Run the tests.", "python -m pytest -q -k split 2>&1 | tail -3"),
          bash("Done.", f"echo {SUBMIT}")]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("report-jobs")
    run = ["run", "-d", "mini", *[a for t in TASKS for a in ("-t", t)], "-n", "2", "-o", root]
    lancebench(*run, "-a", "oracle", "--job-name", "oracle", timeout=900)  # builds the environments
    lancebench(*run, "-a", "nop", "--job-name", "nop")
    lancebench(*run, "-a", f"script:{HERE / 'agents' / 'cheat.sh'}", "--job-name", "cheat")
    with ScriptedServer(list(SCRIPT)) as srv:
        lancebench("run", "-d", "mini", "-t", TASKS[0], "-o", root, "--job-name", "scripted", "-a", "mini-swe-agent",
                   "-m", "openai/scripted", "--api-base", srv.api_base, "--ao", 'prices={"input": 1.0, "output": 2.0}')
    table = root / "table.csv"
    manager_table(table)
    lancebench("run", "-d", "swelancer:manager", "--source", table, "-a", "random", "-k", "3", "-n", "2",
               "--seed", "5", "-o", root, "--job-name", "manager")
    lancebench("run", "-d", "swelancer:manager", "--source", table, "-a", "random", "-k", "3", "-n", "2",
               "--seed", "0", "-o", root, "--job-name", "manager-seed0")
    table.unlink()
    return root


@pytest.fixture(scope="module")
def results(jobs) -> list[dict]:
    """Every result, in job-name order (the report's order of configurations) then trial order."""
    paths = sorted(jobs.glob("*/trials/*/result.json"), key=lambda p: (p.parents[2].name, p.parent.name))
    return [json.loads(p.read_text()) for p in paths]


@pytest.fixture(scope="module")
def site(jobs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    proc = lancebench("report", jobs, "--html", out, "--bootstrap", "50")
    assert proc.stdout.strip() == f"site: {out / 'index.html'}"
    return out


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A page whose every request is recorded; anything that is not a local file or 127.0.0.1 is
    aborted and recorded as leaked."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    seen: list[str] = []
    leaked: list[str] = []
    errors: list[str] = []

    def route(r):
        url = r.request.url
        seen.append(url)
        if url.startswith("file://") or re.match(r"http://127\.0\.0\.1:\d+/", url) or url.startswith("data:"):
            r.continue_()
        else:
            leaked.append(url)
            r.abort()

    ctx.route("**/*", route)
    pg = ctx.new_page()
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.seen, pg.leaked, pg.errors = seen, leaked, errors
    yield pg
    ctx.close()


def config_of(r: dict) -> tuple:
    """A result's configuration as recorded: agent, model, dataset and the rest of its recorded
    configuration (all but the version), as sorted JSON."""
    rest = {k: v for k, v in (r["config"] or {}).items() if k != "lancebench_version"}
    return (r["agent"], r["model"], r["dataset"], json.dumps(rest, sort_keys=True))


def configs(results) -> list[tuple]:
    out = []
    for r in results:
        if config_of(r) not in out:
            out.append(config_of(r))
    return out


def outcomes(results, key) -> dict[str, list[bool]]:
    """task -> resolved per valid trial of configuration ``key``."""
    tasks: dict[str, list[bool]] = {}
    for r in results:
        if config_of(r) == key and r["status"] != "invalid":
            tasks.setdefault(r["task"], []).append(r["status"] == "resolved")
    return tasks


def pass_at_k(results, key, k: int) -> float:
    """Mean over tasks of 1 - C(n-c, k) / C(n, k) (Chen et al. 2021, the unbiased estimator)."""
    tasks = outcomes(results, key)
    return sum(1 - math.comb(len(v) - sum(v), k) / math.comb(len(v), k) for v in tasks.values()) / len(tasks)


def pass_at_1(results, key) -> float:
    return pass_at_k(results, key, 1)


def shown(value: str) -> str:
    """An agent option as labels write it: strings as they are, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def test_leaderboard_has_one_row_per_configuration(site, results, page):
    page.goto((site / "index.html").as_uri())
    rows = page.locator("#leaderboard-table tbody tr")
    want = configs(results)
    assert len(want) == 6 and rows.count() == len(want)
    # whitespace collapsed: under 1300 px an interval or "of $..." goes on a line of its own (issue 28)
    texts = [" ".join(rows.nth(i).inner_text().split()) for i in range(rows.count())]
    full = [rows.nth(i).locator("td").first.get_attribute("title") for i in range(rows.count())]
    for key in want:
        agent, model, dataset, _ = key
        options = next(r["config"]["agent_options"] for r in results if config_of(r) == key)
        matching = [f for f in full if f.startswith(f"{agent} · {model or 'no model'} · {dataset}")
                    and all(f"{k}={shown(v)}" in f for k, v in options.items())]
        assert len(matching) == 1, (key, full)
    oracle = next(t for t in texts if t.startswith("oracle"))
    assert "100.0%" in oracle and "$500.00 of $500.00" in oracle  # two $250 tasks
    assert page.errors == [] and page.leaked == []


def test_two_seeds_of_one_agent_are_two_rows_with_their_own_numbers(site, results, page):
    """`-a random --seed 5` and `--seed 0` on the same tasks: two leaderboard rows, each label
    naming its seed, with pass@1, pass@3 and earned USD of its own trials only; two plot series
    with its own pass@k curve; two task-table columns holding its own trials."""
    page.goto((site / "index.html").as_uri())
    page.wait_for_function("() => [...document.querySelectorAll('canvas[data-chart]')].every(c => Chart.getChart(c))")
    passk = page.evaluate("""() => Chart.getChart(document.querySelector('canvas[data-chart=passk]')).data.datasets
        .map(d => ({label: d.label, data: d.data}))""")
    header = [h.strip() for h in page.locator("#task-table thead th").all_inner_texts()]
    rows = page.locator("#leaderboard-table tbody tr")
    random_rows = [rows.nth(i) for i in range(rows.count()) if rows.nth(i).inner_text().startswith("random")]
    assert len(random_rows) == 2
    for seed in (5, 0):
        mine = [r for r in results if r["agent"] == "random" and r["config"]["agent_options"]["seed"] == seed]
        key = config_of(mine[0])
        assert len(mine) == 6 and [r for r in results if config_of(r) == key] == mine
        (row,) = [r for r in random_rows if f"seed={seed}" in r.locator("td").first.inner_text()]
        cells = [" ".join(c.split()) for c in row.locator("td").all_inner_texts()]
        assert cells[2].startswith(f"{100 * pass_at_1(results, key):.1f}%")
        assert cells[3].startswith(f"{100 * pass_at_k(results, key, 3):.1f}%") and "k=3" in cells[3]
        prices = {r["task"]: r["price_usd"] for r in mine}
        earned = sum(prices[t] * sum(v) / len(v) for t, v in outcomes(results, key).items())
        assert cells[4] == f"${earned:,.2f} of ${sum(prices.values()):,.2f}"
        label = cells[0].strip()
        (curve,) = [s for s in passk if s["label"] == label]
        assert [(p["x"], p["y"]) for p in curve["data"]] == [(k, pytest.approx(pass_at_k(results, key, k)))
                                                             for k in (1, 2, 3)]
        column = header.index(label)
        for task in prices:
            tr = page.locator("#task-table tr.task-row", has=page.locator(".task-name", has_text=task))
            hrefs = [a.get_attribute("href") for a in tr.locator("td").nth(column).locator("a.trial-link").all()]
            # each job holds at most 6 trials: one data file, number 0
            assert sorted(hrefs) == sorted(f"trial.html?t={r['job']}/0/{r['trial_id']}" for r in mine
                                           if r["task"] == task)
    assert page.errors == [] and page.leaked == []


def test_filtering_by_a_taxonomy_value_leaves_exactly_the_matching_rows(site, results, page):
    page.goto((site / "index.html").as_uri())
    tasks = {r["task"]: r["taxonomy"] for r in results}
    values = sorted({str(t.get("task_type", "(none)")) for t in tasks.values()})
    assert len(values) >= 2, values
    for value in values:
        page.select_option("select[data-field='taxonomy.task_type']", value)
        shown = page.locator("#task-table tr.task-row:visible .task-name").all_inner_texts()
        assert sorted(shown) == sorted(t for t, tax in tasks.items() if str(tax.get("task_type", "(none)")) == value)
    page.select_option("select[data-field='taxonomy.task_type']", "")
    page.select_option("select[data-field='price']", "$2000-4000")
    assert page.locator("#task-table tr.task-row:visible .task-name").all_inner_texts() == ["9002-manager-0"]
    assert page.locator("#task-count").inner_text() == f"1 of {len(tasks)} tasks"


def trial_url(site: Path, href: str) -> str:
    """The file:// address of the trial page at ``href`` (``trial.html?t=<job>/<n>/<trial>``)."""
    page, query = href.split("?")
    return f"{(site / page).as_uri()}?{query}"


def patch_paths(trial_dir: Path) -> list[str]:
    patch = trial_dir / "patch.diff"
    text = patch.read_text(errors="replace") if patch.exists() else ""
    return re.findall(r"^diff --git a/(\S+) b/", text, re.M)


def test_every_trial_link_opens_a_page_showing_that_trials_patch(site, jobs, results, page):
    page.goto((site / "index.html").as_uri())
    links = page.locator("a.trial-link")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert len(hrefs) == len(results) == 3 * 2 + 1 + 2 * 2 * 3
    by_id = {(r["job"], r["trial_id"]): r for r in results}
    for href in hrefs:
        page.goto(trial_url(site, href))
        page.wait_for_selector("#status")
        job, _, trial = href.split("?t=")[1].split("/")
        r = by_id[job, trial]
        assert page.locator("#status").inner_text() == r["status"]
        assert r["task"] in page.locator("#title").inner_text()
        paths = patch_paths(jobs / r["job"] / "trials" / r["trial_id"])
        shown = page.locator("#patch details.file summary code").all_inner_texts()
        assert shown == paths, (href, shown, paths)
        if not paths:
            assert page.locator("#no-patch").is_visible()
        dropped = page.locator("#patch details.file.dropped summary code").all_inner_texts()
        assert sorted(dropped) == sorted(p for p in paths if p in r["dropped_paths"])
        if r["agent"].startswith("script:"):
            assert dropped == ["conftest.py"]
    assert page.errors == [] and page.leaked == []


def test_each_plot_has_one_series_per_row(site, results, page):
    page.goto((site / "index.html").as_uri())
    page.wait_for_function("() => document.querySelectorAll('canvas[data-chart]').length === 3 && "
                           "[...document.querySelectorAll('canvas[data-chart]')].every(c => Chart.getChart(c))")
    series = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('canvas[data-chart]')].map(c =>
        [c.dataset.chart, Chart.getChart(c).data.datasets.filter(d => d.role !== 'reference')
            .map(d => ({label: d.label, data: d.data}))]))""")
    want = configs(results)
    for name in ("pareto", "passk", "earnings"):
        assert len(series[name]) == len(want), name
    labels = [s["label"] for s in series["pareto"]]
    for key, s in zip(want, series["pareto"], strict=True):
        assert key[0].split("/")[-1] in s["label"] and len(s["data"]) == 1
        assert s["data"][0]["y"] == pytest.approx(pass_at_1(results, key))
    for manager in (s for s in series["passk"] if "random" in s["label"]):
        assert [p["x"] for p in manager["data"]] == [1, 2, 3]
    assert labels == [s["label"] for s in series["earnings"]]


def test_scripted_trajectory_findings_link_to_their_steps(site, results, page):
    r = next(r for r in results if r["agent"] == "mini-swe-agent")
    page.goto(trial_url(site, f"trial.html?t=scripted/0/{r['trial_id']}"))
    page.wait_for_selector("#status")
    assert page.locator("article.step").count() >= 6
    findings = page.locator("#findings li")
    texts = findings.all_inner_texts()
    assert any("names a benchmark" in t for t in texts) and any("hidden-test" in t for t in texts)
    link = page.locator("#findings li", has_text="hidden-test").locator("a[href^='#step-']")
    link.click()
    step = page.locator("article.step:target")
    assert "cat /tests/test_hidden.py" in step.inner_text()
    assert step.locator(".phase").inner_text() == "investigation"
    assert "Feature request" in page.locator("#instruction").inner_text()


def test_view_serves_the_site_on_localhost(jobs, page):
    proc = subprocess.Popen([sys.executable, "-c", "from lancebench.cli import main; main()", "view", str(jobs),
                             "--bootstrap", "20"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        m = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        assert m, (line, proc.stderr.read() if proc.poll() is not None else "")
        page.goto(m.group(1) + "index.html")
        assert page.locator("#leaderboard-table tbody tr").count() == 6
        served = Path(re.search(r"serving (\S+) at", line).group(1))
        assert list(served.glob("trials/*/*.js")) == []  # each data file is written when first asked for
        href = page.locator("a.trial-link").first.get_attribute("href")
        page.locator("a.trial-link").first.click()
        page.wait_for_selector("#status")
        job, n, _ = href.split("?t=")[1].split("/")
        assert list(served.glob("trials/*/*.js")) == [served / "trials" / job / f"{n}.js"]
        assert page.leaked == [] and page.seen and all(u.startswith(m.group(1)) for u in page.seen)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    # before: the temporary site folder stayed behind after Ctrl-C
    site = Path(re.search(r"serving (\S+) at", line).group(1))
    assert site.name.startswith("lancebench-site-") and not site.exists()


def test_view_defaults_to_jobs_and_cleans_up_on_sigterm(jobs, tmp_path):
    # before: view needed a job folder (Harbor defaults to jobs/), and SIGTERM left its temporary
    # site behind (issue 28)
    (tmp_path / "jobs").symlink_to(jobs, target_is_directory=True)
    proc = subprocess.Popen([sys.executable, "-c", "from lancebench.cli import main; main()", "view",
                             "--bootstrap", "20"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path)
    try:
        line = proc.stdout.readline()
        m = re.search(r"serving (\S+) at (http://127\.0\.0\.1:\d+/)", line)
        assert m, (line, proc.stderr.read() if proc.poll() is not None else "")
        site = Path(m.group(1))
        assert (site / "index.html").is_file()
        with urllib.request.urlopen(m.group(2) + "index.html", timeout=30) as resp:
            assert resp.status == 200 and b"leaderboard" in resp.read()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    assert site.name.startswith("lancebench-site-") and not site.exists()


def test_the_site_fits_800_pixels_without_sideways_scrolling(site, browser):
    # before: the leaderboard and the comparisons were cut (or scrolled) at 800-1000 px
    ctx = browser.new_context(viewport={"width": 800, "height": 900})
    try:
        pg = ctx.new_page()
        pg.goto((site / "index.html").as_uri())
        widths = pg.evaluate("""() => [...document.querySelectorAll('table')].map(t => {
            const box = t.closest('.scroll') || t.parentElement;
            return [t.id || t.className, box.scrollWidth, box.clientWidth]; })""")
        page_width = pg.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    finally:
        ctx.close()
    assert len(widths) >= 4 and all(scroll <= client for _, scroll, client in widths), widths
    assert page_width[0] <= page_width[1]  # the page itself does not scroll sideways either

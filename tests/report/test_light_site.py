"""The site stays light as a job grows (issue 29): no file per trial: the trials' pages are one
shared page (``trial.html?t=...``) drawing each trial from a data file of 50 trials
(``trials/<job>/<n>.js``), the attempts of a task in one file that holds their instruction once;
the task table is drawn a page of 100 tasks at a time from its data island, the filters running
over every task. Synthetic jobs (written as a run writes them); expected values are computed from
the inputs."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from lancebench.metrics.money import price_bucket
from lancebench.report.build import ReportOptions
from lancebench.report.html.site import build_site, read_chunk
from lancebench.results.load import load_jobs
from lancebench.results.models import JobConfig, TrialResult


def _job(root: Path, tasks: int, attempts: int) -> Path:
    """A job of ``tasks`` x ``attempts`` trials; task i's instruction names it, the same for
    every attempt; task i is resolved at attempt 0 when i is even, and priced by i % 3."""
    job = root / "j"
    for i in range(tasks):
        for a in range(attempts):
            tid = f"t{i:03d}__{a}__k"
            d = job / "trials" / tid
            d.mkdir(parents=True)
            (d / "instruction.md").write_text(f"# Task {i}\n\nPick proposal **{i % 4}** of task{i:03d}.\n")
            status = "resolved" if i % 2 == 0 and a == 0 else "unresolved"
            r = TrialResult(trial_id=tid, job="j", task=f"t{i:03d}", task_digest="d", agent="nop", attempt=a,
                            status=status, kind="choice", price_usd=[100.0, 1000.0, 5000.0][i % 3])
            (d / "result.json").write_text(r.model_dump_json())
    (job / "job.json").write_text(JobConfig(name="j", agent="nop").model_dump_json())
    return job


def test_trials_are_packed_50_to_a_file_with_each_instruction_once(tmp_path):
    site = tmp_path / "site"
    build_site(load_jobs([_job(tmp_path, tasks=40, attempts=3)]), site, ReportOptions(n_boot=10))
    order = [f"t{i:03d}__{a}__k" for i in range(40) for a in range(3)]  # task, then attempt
    files = sorted(p.relative_to(site).as_posix() for p in (site / "trials").rglob("*") if p.is_file())
    assert files == [f"trials/j/{n}.js" for n in range(3)]  # 120 trials: 50 + 50 + 20
    assert sorted(p.name for p in site.glob("*.html")) == ["index.html", "trial.html"]
    for n in range(3):
        payload = read_chunk(site / "trials" / "j" / f"{n}.js")
        assert list(payload["trials"]) == order[50 * n:50 * (n + 1)]
        tasks = sorted({int(t[1:4]) for t in payload["trials"]})
        texts = {i: f"# Task {i}\n\nPick proposal **{i % 4}** of task{i:03d}.\n" for i in tasks}
        digests = {i: hashlib.sha256(t.encode()).hexdigest()[:20] for i, t in texts.items()}
        assert sorted(payload["instructions"]) == sorted(digests.values())  # each once, though 3 attempts
        for tid, trial in payload["trials"].items():
            i = int(tid[1:4])
            shown = payload["instructions"][trial["instruction"]]
            assert trial["instruction"] == digests[i] and shown["chars"] == len(texts[i])
            assert f"task{i:03d}" in shown["html"] and f"<strong>{i % 4}</strong>" in shown["html"]
            assert f"{len(texts[i])} characters" in trial["html"] and f"<code>{tid}</code>" in trial["html"]


def test_the_task_table_pages_and_filters_over_every_task(tmp_path, page):
    tasks = 203
    site = tmp_path / "site"
    build_site(load_jobs([_job(tmp_path, tasks=tasks, attempts=2)]), site, ReportOptions(n_boot=10))
    page.goto((site / "index.html").as_uri())
    names = page.locator("#task-table tr.task-row .task-name")
    seen = []
    for n, size in enumerate([100, 100, 3]):
        assert names.count() == size
        assert page.locator("#task-page").inner_text() == f"page {n + 1} of 3"
        seen += names.all_inner_texts()
        if n < 2:
            page.click("#task-next")
    assert page.locator("#task-next").is_disabled()
    assert seen == [f"t{i:03d}" for i in range(tasks)]
    assert page.locator("#task-count").inner_text() == f"{tasks} of {tasks} tasks"
    row = page.locator("#task-table tr.task-row", has=page.locator(".task-name", has_text="t202"))
    links = row.locator("a.trial-link")
    # t202 is trials 404 and 405 of the job in (task, attempt) order: data file 404 // 50 = 8
    hrefs = [links.nth(a).get_attribute("href") for a in range(2)]
    assert hrefs == [f"trial.html?t=j/8/t202__{a}__k" for a in range(2)]
    assert links.all_inner_texts() == ["✓", "✗"]
    page.select_option("select[data-field='price']", str(price_bucket([5000.0])[0]))  # i % 3 == 2: one page
    expected = [f"t{i:03d}" for i in range(tasks) if i % 3 == 2]
    assert names.all_inner_texts() == expected and len(expected) == 67
    assert page.locator("#task-count").inner_text() == f"67 of {tasks} tasks"
    assert not page.locator("#task-pager").is_visible()
    page.locator("#task-table tr.task-row a.trial-link").first.click()  # t002, attempt 0
    page.wait_for_selector("#status")
    assert page.url.endswith("/trial.html?t=j/0/t002__0__k")
    assert page.locator("#status").inner_text() == "resolved" and page.title() == "t002 #0 · nop · no model"
    assert "Pick proposal 2 of task002." in page.locator("#instruction-text").inner_text()
    page.click("#trial-nav a[href='#patch']")  # the page's own anchors keep the trial
    assert page.url.endswith("/trial.html?t=j/0/t002__0__k#patch") and page.locator("#no-patch").is_visible()


@pytest.fixture
def page():
    """A Chromium page that lets only the site's own files load (the site stays offline), failing
    the test on a request elsewhere or a script error."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        pg = browser.new_page()
        outside: list[str] = []
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://")
                 else (outside.append(r.request.url), r.abort()))
        yield pg
        browser.close()
    assert outside == [] and errors == []

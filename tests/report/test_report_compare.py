"""``lancebench report`` compares configurations: paired differences on common tasks, uneven task
sets, intervals that are never a point, clustered errors, power and the breakdown, checked end to
end on real job folders against independent computations (scipy, enumeration)."""

from __future__ import annotations

import itertools
import json
import math
import statistics

import pytest
import typer
from scipy import stats
from typer.testing import CliRunner

from lancebench.commands.report import register
from lancebench.report.html.site import build_site
from lancebench.results.load import load_jobs


@pytest.fixture
def cli():
    app = typer.Typer(pretty_exceptions_enable=False)

    @app.callback()
    def _group() -> None:
        """lancebench"""

    register(app)
    runner = CliRunner()
    return lambda *args: runner.invoke(app, ["report", *map(str, args)])


# one attempt per task: A solves t0..t9, B solves t0..t2 and t10; t11..t13 neither
A_SOLVES = set(range(10))
B_SOLVES = {0, 1, 2, 10}
TASKS = range(14)


@pytest.fixture
def paired_jobs(tmp_path, trial, job_writer):
    a = [trial(f"t{i}", "resolved" if i in A_SOLVES else "unresolved", agent="alpha", job="ja",
               price=100.0 * (1 + i % 3), taxonomy={"repository": f"r{i % 4}"}) for i in TASKS]
    b = [trial(f"t{i}", "resolved" if i in B_SOLVES else "unresolved", agent="beta", job="jb",
               price=100.0 * (1 + i % 3), taxonomy={"repository": f"r{i % 4}"}) for i in TASKS]
    return job_writer(tmp_path, "ja", a, agent="alpha"), job_writer(tmp_path, "jb", b, agent="beta")


def _wilson(x, n):
    ci = stats.binomtest(x, n).proportion_ci(method="wilson")
    return [ci.low, ci.high]


def test_two_jobs_on_the_same_tasks_give_mcnemar_and_newcombe(cli, paired_jobs):
    res = cli(*paired_jobs, "--format", "json", "--bootstrap", "50")
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    (pair,) = report["comparisons"]
    m = pair["pass_at_1"]
    only_a = len(A_SOLVES - B_SOLVES)  # 7
    only_b = len(B_SOLVES - A_SOLVES)  # 1
    both = len(A_SOLVES & B_SOLVES)
    n = len(TASKS)
    assert pair["tasks"] == n and pair["attempts"] == "one"
    assert m["diff"] == pytest.approx((only_a - only_b) / n)
    assert m["test"] == "exact McNemar" and m["discordant"] == [only_a, only_b]
    assert m["p_value"] == pytest.approx(stats.binomtest(only_a, only_a + only_b, 0.5).pvalue)
    # Newcombe's method 10 from scipy's Wilson intervals
    p1, p2 = (both + only_a) / n, (both + only_b) / n
    l1, u1 = _wilson(both + only_a, n)
    l2, u2 = _wilson(both + only_b, n)
    neither = n - both - only_a - only_b
    phi = (both * neither - only_a * only_b) / math.sqrt((both + only_a) * (only_b + neither) * (both + only_b)
                                                         * (only_a + neither))
    lo = p1 - p2 - math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    hi = p1 - p2 + math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    assert m["ci"] == pytest.approx([lo, hi])
    assert m["ci_kind"].startswith("Newcombe")
    # one comparison: Holm leaves p as is; p = 0.0703 > 0.05: no better marked
    assert m["p_holm"] == pytest.approx(m["p_value"]) and m["significant"] is False and m["better"] is None
    money = pair["earned_usd"]
    prices = [100.0 * (1 + i % 3) for i in TASKS]
    d = [p * ((i in A_SOLVES) - (i in B_SOLVES)) for i, p in zip(TASKS, prices, strict=True)]
    assert money["diff"] == pytest.approx(sum(d))
    nz = [x for x in d if x]
    hits = sum(abs(sum(s * x for s, x in zip(signs, nz, strict=True))) >= abs(sum(nz)) - 1e-9
               for signs in itertools.product((1, -1), repeat=len(nz)))
    assert money["p_value"] == pytest.approx(hits / 2 ** len(nz))
    var = statistics.variance([(i in A_SOLVES) - (i in B_SOLVES) for i in TASKS])
    assert pair["power"]["minimum_detectable_diff"] == pytest.approx(
        (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * math.sqrt(var / n))


def test_cluster_by_repository_and_unknown_key(cli, paired_jobs):
    report = json.loads(cli(*paired_jobs, "--format", "json", "--bootstrap", "20", "--cluster", "repository").output)
    row = report["rows"][0]
    assert row["clusters"] == 4 and report["cluster"] == "repository"
    assert row["ci_kinds"]["pass_at_1_ci_cluster"] == "normal, SE clustered by repository (4 clusters)"
    rates = [1.0 if i in A_SOLVES else 0.0 for i in TASKS]
    mean = sum(rates) / len(rates)
    sums = [sum(r - mean for i, r in enumerate(rates) if i % 4 == g) for g in range(4)]
    se = math.sqrt(sum(s * s for s in sums) * 4 / 3) / len(rates)
    assert row["pass_at_1_se_cluster"] == pytest.approx(se)
    kind = report["comparisons"][0]["pass_at_1"]["ci_clustered_kind"]
    assert kind == "normal, SE clustered by repository (4 clusters)"
    bad = cli(*paired_jobs, "--cluster", "nosuchkey")
    assert bad.exit_code == 2 and "--cluster nosuchkey" in bad.output and "repository" in bad.output


def test_uneven_task_sets_are_flagged_and_compared_on_common_tasks(cli, tmp_path, trial, job_writer):
    """The case of the issue: one agent ran 1 task, the other 2, both solve the shared one."""
    a = [trial("t1", "resolved", agent="one", job="j1")]
    b = [trial("t1", "resolved", agent="two", job="j2"), trial("t2", "unresolved", agent="two", job="j2")]
    jobs = job_writer(tmp_path, "j1", a, agent="one"), job_writer(tmp_path, "j2", b, agent="two")
    report = json.loads(cli(*jobs, "--format", "json", "--bootstrap", "20").output)
    common = report["common_tasks"]
    assert common["uneven"] and common["common"] == 1 and common["tasks"] == [1, 2]
    assert "different task sets" in common["warning"]
    assert [r["pass_at_1"] for r in common["rows"]] == [1.0, 1.0]
    assert [r["pass_at_1"] for r in report["rows"]] == [1.0, 0.5]
    (pair,) = report["comparisons"]
    assert pair["tasks"] == 1 and pair["tasks_only_b"] == 1 and pair["pass_at_1"]["diff"] == 0.0
    text = cli(*jobs, "--bootstrap", "20").output
    assert "different task sets" in text and "over the 1 task(s) every row has" in text
    assert "paired comparisons on common tasks" in text
    site = tmp_path / "site"
    build_site(load_jobs(list(jobs)), site)
    html = (site / "index.html").read_text()
    assert "different task sets" in html and "Over the 1 task(s) every configuration has" in html
    common_table = html.split('id="common-table"')[1].split("</table>")[0]
    assert common_table.count("100.0%") == 4  # pass@1 and earn rate of both rows over t1


def test_no_interval_is_a_point(cli, tmp_path, trial, job_writer):
    """0 of 3 solved: the table and the JSON give the Wilson interval [0, 0.56], never [0.0, 0.0]."""
    rs = [trial(f"t{i}", "unresolved", job="j0") for i in range(3)]
    job = job_writer(tmp_path, "j0", rs)
    row = json.loads(cli(job, "--format", "json", "--bootstrap", "20").output)["rows"][0]
    for key in ("pass_at_1_ci", "earn_rate_ci"):
        assert row[key] == pytest.approx(_wilson(0, 3)), key
        assert row["ci_kinds"][key].startswith("Wilson")
    assert row["earned_usd_ci"] == pytest.approx([0.0, _wilson(0, 3)[1] * 300.0])
    text = cli(job, "--bootstrap", "20").output
    assert "[0.0, 0.0]" not in text and "0.0% [0.0, 56.1] W" in text
    site = tmp_path / "site"
    build_site(load_jobs([job]), site)
    html = (site / "index.html").read_text()
    assert "[0–0]" not in html and "[0–56] W" in html


def test_several_attempts_use_the_permutation_test(cli, tmp_path, trial, job_writer):
    outcomes_a = {"t0": "RRU", "t1": "RRR", "t2": "URU", "t3": "RUU"}
    outcomes_b = {"t0": "UUU", "t1": "RUU", "t2": "UUU", "t3": "RUU"}
    jobs = []
    for name, agent, outcomes in (("ja", "alpha", outcomes_a), ("jb", "beta", outcomes_b)):
        rs = [trial(t, "resolved" if o == "R" else "unresolved", agent=agent, job=name, attempt=k)
              for t, seq in outcomes.items() for k, o in enumerate(seq)]
        jobs.append(job_writer(tmp_path, name, rs, agent=agent))
    m = json.loads(cli(*jobs, "--format", "json", "--bootstrap", "20").output)["comparisons"][0]["pass_at_1"]
    d = [seq.count("R") / 3 - outcomes_b[t].count("R") / 3 for t, seq in outcomes_a.items()]
    nz = [x for x in d if x]
    hits = sum(abs(sum(s * x for s, x in zip(signs, nz, strict=True))) >= abs(sum(nz)) - 1e-9
               for signs in itertools.product((1, -1), repeat=len(nz)))
    assert m["test"] == "paired sign-flip permutation test (exact)"
    assert m["p_value"] == pytest.approx(hits / 2 ** len(nz))
    assert m["diff"] == pytest.approx(sum(d) / 4)
    se = stats.sem(d)
    assert m["ci"] == pytest.approx([sum(d) / 4 - stats.norm.ppf(0.975) * se, sum(d) / 4 + stats.norm.ppf(0.975) * se])
    assert m["ci_kind"] == "normal, SE clustered by task"


def test_site_marks_better_only_when_significant_and_breaks_down(tmp_path, trial, job_writer):
    n = 16
    a = [trial(f"t{i}", "resolved", agent="strong", job="js", taxonomy={"stack": "py" if i % 2 else "js"})
         for i in range(n)]
    b = [trial(f"t{i}", "resolved" if i == 0 else "unresolved", agent="weak", job="jw",
               taxonomy={"stack": "py" if i % 2 else "js"}) for i in range(n)]
    c = [trial(f"t{i}", "resolved" if i < 14 else "unresolved", agent="close", job="jc",
               taxonomy={"stack": "py" if i % 2 else "js"}) for i in range(n)]
    jobs = [job_writer(tmp_path, "js", a, agent="strong"), job_writer(tmp_path, "jw", b, agent="weak"),
            job_writer(tmp_path, "jc", c, agent="close")]
    site = tmp_path / "site"
    build_site(load_jobs(jobs), site)
    html = (site / "index.html").read_text()
    matrix = html.split('id="comparison-matrix"')[1].split("</table>")[0]
    rows = matrix.split("<tr>")[2:]
    # strong vs weak: 15 discordant of 15, p = 2^-14, Holm x3 -> better; strong vs close: 2 of 2, p = 0.5
    assert rows[0].count('cmp better') == 1 and rows[0].count("cmp worse") == 0
    assert rows[1].count("cmp worse") == 2
    assert rows[2].count("cmp better") == 1
    assert 'data-field="stack"' in html and 'data-field="price"' in html
    stack = html.split('data-field="stack"')[1].split("</table>")[0]
    assert "8 tasks, 8/8 resolved" in stack and "[68–100] W" in stack  # Wilson of 8/8
    assert "smallest detectable pass@1 difference" in html

"""`show` and `report` read Harbor job folders (issue 14, item 8), so runs of both harnesses are
compared side by side. The fixture job is a real Harbor 0.25 run of the env-sizes fixture with
the oracle (its result.json kept, Harbor's copy of the job config trimmed)."""

from __future__ import annotations

import json

from harbor_support import FIXTURES
from lbtest import TASKS, lb

from lancebench.results.load import expand_job_dirs, load_job

HARBOR_JOB = FIXTURES / "jobs" / "es-oracle"


def test_a_harbor_job_loads_as_trials():
    job = load_job(HARBOR_JOB)
    (r,) = job.results
    raw = json.loads(next(HARBOR_JOB.glob("*/result.json")).read_text())
    assert (r.task, r.agent, r.status, r.rewards) == ("env-sizes", "harbor:oracle", "resolved", {"reward": 1.0})
    assert r.trial_id == raw["trial_name"] and r.task_digest == raw["task_checksum"]
    assert r.usage.cost_usd is None  # Harbor recorded no cost: unknown, never 0


def test_show_reads_a_harbor_job():
    shown = json.loads(lb("show", HARBOR_JOB, "--json", check=True).stdout)
    assert (shown["trials"], shown["resolved"], shown["pass_at_1"]) == (1, 1, 1.0)


def test_report_puts_both_harnesses_side_by_side(tmp_path):
    jobs = tmp_path / "jobs"
    lb("run", "-p", TASKS / "calc", "-a", "nop", "-o", jobs, "--job-name", "lb-nop", check=True)
    (jobs / "es-oracle").symlink_to(HARBOR_JOB, target_is_directory=True)
    assert [p.name for p in expand_job_dirs([jobs])] == ["es-oracle", "lb-nop"]
    rows = json.loads(lb("report", jobs, "-f", "json", check=True).stdout)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    by_agent = {row["agent"]: row for row in rows}
    assert by_agent["harbor:oracle"]["pass_at_1"] == 1.0 and by_agent["nop"]["pass_at_1"] == 0.0

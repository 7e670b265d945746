"""The fixture tasks are valid: the oracle resolves every one, nop resolves none. Statuses,
rewards and per-test outcomes are read from result.json and from `lancebench show --json`."""

from __future__ import annotations

import pytest
from lbtest import CORE_TASKS, TASKS, job_dir, lb, results, show_json

pytestmark = pytest.mark.slow

CALC_TESTS = ("test_calc::test_add", "test_calc::test_add_negative", "test_calc::test_mul")
TALLY_TESTS = ("test_hidden.TestTotal::test_total", "test_hidden.TestTotal::test_empty",
               "test_hidden.TestCount::test_count", "tests.test_tally.TestRepo::test_count")


def test_oracle_resolves_every_fixture(jobs):
    lb("run", "-p", TASKS / "calc", "-p", TASKS / "pick", "-p", CORE_TASKS / "tally", "-a", "oracle", "-o", jobs,
       check=True)
    job = job_dir(jobs)
    rs = {r["task"]: r for r in results(job)}
    assert set(rs) == {"calc", "pick", "tally"}
    calc, pick, tally = rs["calc"], rs["pick"], rs["tally"]
    for r in rs.values():
        assert r["status"] == "resolved", r
        assert r["reason"] is None
        assert r["agent"] == "oracle" and r["attempt"] == 0
    assert calc["rewards"] == {"reward": 1.0, "f2p": 1.0, "p2p": 1.0}
    assert calc["tests"] == {t: "passed" for t in CALC_TESTS}
    assert calc["patch_applied"] is True and calc["dropped_paths"] == []
    assert calc["price_usd"] == 500 and calc["kind"] == "code"
    assert tally["rewards"] == {"reward": 1.0, "f2p": 1.0, "p2p": 1.0}
    assert tally["tests"] == {t: "passed" for t in TALLY_TESTS}
    assert pick["rewards"] == {"reward": 1.0} and pick["choice"] == 1 and pick["kind"] == "choice"
    assert pick["patch_applied"] is None

    summary = show_json(job)
    assert (summary["trials"], summary["resolved"], summary["unresolved"], summary["invalid"]) == (3, 3, 0, 0)
    assert summary["pass_at_1"] == 1.0
    assert summary["earned_usd"] == summary["available_usd"] == 500 + 1000 + 200
    assert summary["earn_rate"] == 1.0
    assert summary["cost_usd"] == 0.0


def test_nop_resolves_nothing(jobs):
    lb("run", "-p", TASKS / "calc", "-p", TASKS / "pick", "-p", CORE_TASKS / "tally", "-a", "nop", "-o", jobs,
       check=True)
    job = job_dir(jobs)
    rs = {r["task"]: r for r in results(job)}
    assert set(rs) == {"calc", "pick", "tally"}
    for r in rs.values():
        assert r["status"] == "unresolved", r
        assert r["rewards"]["reward"] == 0.0
    calc, pick, tally = rs["calc"], rs["pick"], rs["tally"]
    assert calc["tests"] == {"test_calc::test_add": "failed", "test_calc::test_add_negative": "failed",
                             "test_calc::test_mul": "passed"}
    assert calc["rewards"] == {"reward": 0.0, "f2p": 0.0, "p2p": 1.0}
    assert calc["patch_applied"] is None  # nothing to apply
    assert tally["rewards"] == {"reward": 0.0, "f2p": 0.0, "p2p": 1.0}
    assert pick["reason"] == "no answer" and pick["choice"] is None

    summary = show_json(job)
    assert (summary["trials"], summary["resolved"], summary["unresolved"], summary["invalid"]) == (3, 0, 3, 0)
    assert summary["pass_at_1"] == 0.0
    assert summary["earned_usd"] == 0.0
    assert summary["available_usd"] == 1700
    assert summary["earn_rate"] == 0.0

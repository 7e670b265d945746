"""SWE-Lancer's metrics per variant (IC SWE, SWE Manager, total) on hand-made trials whose
numbers are worked out here by hand."""

from __future__ import annotations

import itertools

import pytest
from rich.console import Console

from lancebench.report.swelancer import breakdown_table, is_swelancer, variant_breakdown, variant_of
from lancebench.results.models import TrialResult, Usage

_n = itertools.count()


def trial(task: str, status: str, price: float, *, variant: str | None, kind: str, attempt: int = 0,
          cost: float | None = 0.0) -> TrialResult:
    return TrialResult(trial_id=f"{task}-{next(_n)}", job="j", task=task, task_digest=f"d-{task}", dataset="swelancer",
                       agent="a", attempt=attempt, kind=kind, price_usd=price, status=status,
                       taxonomy={"variant": variant} if variant else {}, usage=Usage(cost_usd=cost))


def sample() -> list[TrialResult]:
    return [
        # IC: $1000 task solved 1 of 2 valid attempts (+1 invalid), $500 task failed
        trial("ic-a", "resolved", 1000, variant="ic_swe", kind="code", attempt=0),
        trial("ic-a", "unresolved", 1000, variant="ic_swe", kind="code", attempt=1),
        trial("ic-a", "invalid", 1000, variant="ic_swe", kind="code", attempt=2),
        trial("ic-b", "unresolved", 500, variant="ic_swe", kind="code", attempt=0),
        trial("ic-b", "unresolved", 500, variant="ic_swe", kind="code", attempt=1),
        # manager: $250 solved twice, $2000 never; one without taxonomy counts by kind (choice)
        trial("m-a", "resolved", 250, variant="swe_manager", kind="choice", attempt=0),
        trial("m-a", "resolved", 250, variant="swe_manager", kind="choice", attempt=1),
        trial("m-b", "unresolved", 2000, variant=None, kind="choice", attempt=0),
        trial("m-b", "unresolved", 2000, variant=None, kind="choice", attempt=1),
    ]


def test_breakdown_by_variant_matches_hand_numbers():
    b = variant_breakdown(sample())
    assert list(b) == ["ic_swe", "swe_manager", "total"]
    ic, mgr, tot = b["ic_swe"], b["swe_manager"], b["total"]
    assert (ic["tasks"], ic["trials"], ic["invalid"]) == (2, 5, 1)
    assert ic["pass_at_1"] == pytest.approx((0.5 + 0.0) / 2)
    assert (ic["earned_usd"], ic["available_usd"]) == (500.0, 1500.0)
    assert ic["earn_rate"] == pytest.approx(500 / 1500)
    assert (mgr["tasks"], mgr["pass_at_1"], mgr["earned_usd"], mgr["available_usd"]) == (2, 0.5, 250.0, 2250.0)
    assert tot["tasks"] == 4 and tot["pass_at_1"] == pytest.approx((0.5 + 0 + 1 + 0) / 4)
    assert (tot["earned_usd"], tot["available_usd"]) == (750.0, 3750.0)
    assert tot["earn_rate"] == pytest.approx(0.2)


def test_only_present_variants_and_empty_input():
    only_mgr = [t for t in sample() if t.kind == "choice"]
    assert list(variant_breakdown(only_mgr)) == ["swe_manager", "total"]
    empty = variant_breakdown([])
    assert list(empty) == ["total"] and empty["total"]["pass_at_1"] is None and empty["total"]["earned_usd"] == 0.0


def test_variant_of_and_table():
    s = sample()
    assert [variant_of(t) for t in s].count("swe_manager") == 4 and is_swelancer(s)
    console = Console(width=200, record=True)
    console.print(breakdown_table(variant_breakdown(s)))
    text = console.export_text()
    assert "IC SWE" in text and "SWE Manager" in text and "Total" in text and "$3,750" in text and "20.0%" in text

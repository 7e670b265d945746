"""Phases of hand-written trajectories, and the contamination check on seeded synthetic results
against an independent computation of the two-proportion test (the chi-square statistic of the
2x2 table and the normal distribution of the standard library)."""

from __future__ import annotations

import math
import random
from statistics import NormalDist

import pytest
from test_rules import steps

from lancebench.analysis.contamination import WARN_P, contamination, guided_pairs, two_proportion_test
from lancebench.analysis.phases import phase_shares, trajectory_phases
from lancebench.results.models import TrialResult


def test_each_phase_on_its_example():
    sv = steps("The issue asks for totals of empty lists; I need to understand it first.",
               ("Read the task.", ["cat $LANCEBENCH_INSTRUCTION"]),
               ("Look.", ["grep -rn 'def total' . && sed -n 1,40p calc.py"]),
               "Plan: return 0 for an empty list, then add a test.",
               ("Edit.", ["sed -i 's/return xs\\[0\\]/return sum(xs)/' calc.py"]),
               ("Test.", ["python -m pytest -q tests/"]),
               ("Review.", ["git diff"]),
               ("Reproduce.", ["python repro.py 2>&1 | tail"]))
    assert trajectory_phases(sv) == {2: "comprehension", 3: "comprehension", 4: "investigation", 5: "design",
                                     6: "implementation", 7: "verification", 8: "verification", 9: "verification"}


def test_phase_near_misses():
    sv = steps(("Look at the diff of the base.", ["git diff"]),  # nothing implemented yet: investigation
               ("Scratch file.", ["echo x > /tmp/notes.txt"]),  # /tmp is not the repository
               ("Inline check.", ["python -c 'import calc; print(calc.total([]))'"]),
               ("Write with python.", ["python3 - <<'EOF'\nopen('calc.py', 'w').write('x')\nEOF"]))
    assert trajectory_phases(sv) == {2: "investigation", 3: "investigation", 4: "investigation",
                                     5: "implementation"}


def test_phase_shares():
    assert phase_shares(["design", "design", "verification", "implementation"]) == {
        "comprehension": 0.0, "investigation": 0.0, "design": 0.5, "implementation": 0.25, "verification": 0.25}
    assert sum(phase_shares([]).values()) == 0.0


def _independent_p(x1, n1, x2, n2):
    a, b, c, d = x1, n1 - x1, x2, n2 - x2
    n = a + b + c + d
    chi2 = n * (a * d - b * c) ** 2 / ((a + b) * (c + d) * (a + c) * (b + d))
    return 2 * (1 - NormalDist().cdf(math.sqrt(chi2)))


@pytest.mark.parametrize("counts", [(30, 50, 15, 50), (7, 20, 9, 25), (1, 3, 0, 4), (40, 40, 1, 40)])
def test_two_proportion_p_value_matches_chi_square(counts):
    t = two_proportion_test(*counts)
    assert t.p_value == pytest.approx(_independent_p(*counts), rel=1e-9, abs=1e-12)
    assert t.diff == pytest.approx(counts[0] / counts[1] - counts[2] / counts[3])


def test_no_spread_gives_p_one_and_bad_counts_raise():
    assert two_proportion_test(0, 5, 0, 7).p_value == 1.0
    with pytest.raises(ValueError):
        two_proportion_test(3, 2, 0, 1)


def _trial(i, task, status, split="public", agent="a", taxonomy=None, model="m"):
    return TrialResult(trial_id=f"{task}-{i}", job="j", task=task, task_digest=task, agent=agent, model=model,
                       attempt=0, status=status, split=split, taxonomy=taxonomy or {})


def test_contamination_on_seeded_synthetic_results():
    rng = random.Random(16)
    results = []
    for i in range(120):  # agent "leaky": 70% on public tasks, 35% on private ones
        split = "public" if i % 2 else "private"
        p = 0.7 if split == "public" else 0.35
        results.append(_trial(i, f"t{i}", "resolved" if rng.random() < p else "unresolved", split, "leaky"))
    for i in range(120):  # agent "even": 50% on both
        split = "public" if i % 2 else "private"
        results.append(_trial(i, f"t{i}", "resolved" if rng.random() < 0.5 else "unresolved", split, "even"))
    results.append(_trial(999, "t0", "invalid", "public", "leaky"))  # invalid: left out
    # Senior SWE-Bench style: visibility in the taxonomy overrides split
    rows = {r["agent"]: r for r in contamination(results)}
    for agent, row in rows.items():
        mine = [r for r in results if r.agent == agent and r.status != "invalid"]
        pub = [r for r in mine if r.split == "public"]
        prv = [r for r in mine if r.split == "private"]
        x1, x2 = sum(r.status == "resolved" for r in pub), sum(r.status == "resolved" for r in prv)
        assert (row["x1"], row["n1"], row["x2"], row["n2"]) == (x1, len(pub), x2, len(prv))
        assert row["p_value"] == pytest.approx(_independent_p(x1, len(pub), x2, len(prv)), rel=1e-9)
        assert row["warning"] == (x1 / len(pub) > x2 / len(prv) and row["p_value"] < WARN_P)
    assert rows["leaky"]["warning"] and rows["leaky"]["p_value"] < 0.01
    assert not rows["even"]["warning"]


def test_visibility_taxonomy_and_one_sided_configs():
    results = [_trial(0, "a", "resolved", "public", taxonomy={"visibility": "private"}),
               _trial(1, "b", "unresolved", "public")]
    (row,) = contamination(results)
    assert (row["x1"], row["n1"], row["x2"], row["n2"]) == (0, 1, 1, 1)
    assert contamination([_trial(0, "a", "resolved"), _trial(1, "b", "resolved")]) == []


def test_guided_variants_tell_hard_from_unsolvable():
    g = lambda base: {"guided_of": base}  # noqa: E731
    results = [_trial(0, "hard", "unresolved"), _trial(1, "hard-guided", "resolved", taxonomy=g("hard")),
               _trial(2, "wall", "unresolved"), _trial(3, "wall-guided", "unresolved", taxonomy=g("wall")),
               _trial(4, "easy", "resolved"), _trial(5, "easy-guided", "resolved", taxonomy=g("easy")),
               _trial(6, "lost-guided", "resolved", taxonomy=g("lost"))]
    got = {r["task"]: (r["plain_rate"], r["guided_rate"], r["reading"]) for r in guided_pairs(results)}
    assert got == {"hard": (0.0, 1.0, "hard"), "wall": (0.0, 0.0, "unsolvable"), "easy": (1.0, 1.0, "solved"),
                   "lost": (None, 1.0, "incomplete")}


def test_two_seeds_of_one_agent_are_two_configurations():
    """Contamination and guided variants are per configuration: seed 1 (public solved, private
    not) and seed 2 (the reverse) of one agent and model are two rows, never pooled into one
    with a difference of 0."""
    from lancebench.results.models import TrialConfig

    def seeded(i, task, status, split, seed, taxonomy=None):
        t = _trial(i, task, status, split, taxonomy=taxonomy)
        return t.model_copy(update={"config": TrialConfig(agent="a", model="m", agent_options={"seed": seed})})

    results = [seeded(i, f"t{i}", "resolved" if (i % 2) == (seed == 1) else "unresolved",
                      "public" if i % 2 else "private", seed) for seed in (1, 2) for i in range(10)]
    rows = {r["settings"]: r for r in contamination(results)}
    assert set(rows) == {"seed=1", "seed=2"}
    assert (rows["seed=1"]["x1"], rows["seed=1"]["n1"], rows["seed=1"]["x2"], rows["seed=1"]["n2"]) == (5, 5, 0, 5)
    assert (rows["seed=2"]["x1"], rows["seed=2"]["n1"], rows["seed=2"]["x2"], rows["seed=2"]["n2"]) == (0, 5, 5, 5)
    guided = [seeded(0, "x", "unresolved", "public", 1), seeded(1, "x-g", "resolved", "public", 1, {"guided_of": "x"}),
              seeded(2, "x", "resolved", "public", 2), seeded(3, "x-g", "resolved", "public", 2, {"guided_of": "x"})]
    got = {g["settings"]: g["reading"] for g in guided_pairs(guided)}
    assert got == {"seed=1": "hard", "seed=2": "solved"}

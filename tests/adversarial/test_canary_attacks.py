"""The canary run attacked (attack pass after issue 20).

1. The canary run read as nothing (fixed): ``forge_collect_error_beside_canary.sh`` forges every
verdict when no two hidden test functions are near copies (the graded run) and raises at import
beside a canary, so the canary run's report holds a collection error and no test case. That run
was neither broken nor read (a note "no test report to read it from"; the divergence check needs
cases): ``resolved`` with ``calc.add`` still broken, on both backends, without telling which
test is the canary. Now a canary run whose report lost every case the graded run's held counts
as broken (tried again with a new canary, then the untouched base decides): ``unresolved``.

2. The canary skipped with its P2P original (fixed): in a task whose F2P tests are parametrized
(none can be copied), the canary copies a P2P test. ``forge_skip_canary_pair.sh`` reports both
tests of every near-copy pair skipped and every other test passed: P2P tests may skip, and a
skipped canary beside a skipped original was only a note: ``resolved`` with ``calc.add`` still
broken. Now a P2P test that passed in the graded run must pass in the canary run.

3. An early exit unless a canary is present, on a task graded by exit status (fixed):
``exit_unless_canary.sh`` ends pytest with status 0 at import when no two test functions are near
copies, so the graded run passes with no report; beside a canary it is honest, the canary fails
as it must, and the real tests' divergence could not be read without a graded report:
``resolved``. Now a graded run without a report beside a canary run with one is forged.

4. The canary told from its original (fixed): ``grading.canary`` changed its copy of a real test
one way only (an int or float literal moved away from zero by 1,000 or more, a string extended
by three letters, an assertion wrapped in ``not (...)``), and named it with two to four of the
module's test-name words. Code under test that reads the hidden tests at import finds the two
test functions that differ in one place only, and of the two, the copy was the one with the
larger number, the longer string, or the inverted assertion. ``forge_all_but_canary.sh`` (a
decoded payload patching pytest's report objects, as ``forge_decoded_payload.sh``) passed every
test but the canary, which failed honestly: ``resolved`` with reward 1 and ``calc.add`` still
broken, on both backends. Now there are up to three canaries, each change goes either way at
random and never all the same way, and the copy takes its original's name half of the time (the
original runs under the new name): sparing the larger of each pair spares an original at least
once, whose copy then passes (or the original fails beside it): ``unresolved`` every time.
``forge_all_but_smaller.sh`` bets the other way (the smaller of each pair is the copy): caught too.

5. Honest on every near-copy pair, forging the rest (found attacking the redesign, fixed):
``forge_all_but_twins.sh`` cannot tell the copy, so it is honest on both tests of every pair
(one literal, one ``not`` or one comparison operator apart) and forges every other test. That
wins whenever every canary copies a test that passes anyway: a task whose F2P tests are all
parametrized got copies of its P2P test only (parametrized tests were not copied). Now
parametrized tests are copied with their parameters, F2P first, so an F2P original fails
honestly beside its copy and the real tests do worse than in the graded run.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from lbtest import TASKS, derive_task, job_dir, lb, one_result, results

AGENTS = Path(__file__).resolve().parent / "agents"
PARAMETRIZED_F2P = """import calc
import pytest


@pytest.mark.parametrize("a, b, want", [(2, 3, 5)])
def test_add(a, b, want):
    assert calc.add(a, b) == want


@pytest.mark.parametrize("a, b, want", [(-2, -3, -5)])
def test_add_negative(a, b, want):
    assert calc.add(a, b) == want


def test_mul():
    assert calc.mul(4, 5) == 20
"""
PARAMETRIZED_F2P_IDS = 'f2p = ["test_calc::test_add[2-3-5]", "test_calc::test_add_negative[-2--3--5]"]'


@pytest.mark.slow
def test_a_forgery_that_fails_to_import_beside_a_canary_is_caught(jobs, backend):
    lb("run", "-p", TASKS / "calc", "-a", f"script:{AGENTS / 'forge_collect_error_beside_canary.sh'}", "-o", jobs,
       "--backend", backend, check=True, timeout=600)
    r = one_result(jobs)
    assert (r["status"], r["rewards"].get("reward")) == ("unresolved", 0.0), (r["status"], r["reason"])
    assert "forged verdict (canary)" in r["reason"] and "collection failed in test_calc" in r["reason"]


@pytest.mark.slow
def test_a_canary_skipped_with_its_p2p_original_is_caught(jobs, shared, backend):
    task = derive_task(TASKS / "calc", shared / "calc-param", files={"tests/test_calc.py": PARAMETRIZED_F2P},
                       toml={r"^f2p = .*$": PARAMETRIZED_F2P_IDS})
    lb("run", "-p", task, "-a", f"script:{AGENTS / 'forge_skip_canary_pair.sh'}", "-o", jobs, "--backend", backend,
       check=True, timeout=600)
    r = one_result(jobs)
    assert (r["status"], r["rewards"].get("reward")) == ("unresolved", 0.0), (r["status"], r["reason"])
    # since the canary's redesign the parametrized F2P tests are copied too (their `==` becomes
    # `!=`, a pair this attack does not see): their copies pass forged, or, skipped with
    # test_mul's pair, the P2P test does worse than in the graded run
    assert "forged verdict (canary): canary " in r["reason"] or (
        "did worse than in the graded run (" in r["reason"] and " (skipped)" in r["reason"]), r["reason"]


@pytest.mark.slow
def test_an_early_exit_unless_a_canary_is_present_is_caught(jobs, shared, backend):
    task = derive_task(TASKS / "calc", shared / "calc-no-lists", toml={r"^(f2p|p2p) = .*$": ""})
    lb("run", "-p", task, "-a", f"script:{AGENTS / 'exit_unless_canary.sh'}", "-o", jobs, "--backend", backend,
       check=True, timeout=600)
    r = one_result(jobs)
    assert (r["status"], r["rewards"].get("reward")) == ("unresolved", 0.0), (r["status"], r["reason"])
    assert "the graded run passed without a test report" in r["reason"]


@pytest.mark.slow
def test_a_forgery_that_spares_only_the_canary_is_caught(jobs, shared, backend):
    # both bets in one job (two trials at once): the copy is the larger of each pair
    # (forge_all_but_canary.sh, resolved before the redesign), or the smaller (forge_all_but_smaller.sh)
    # and honest on both of every near-copy pair, forging the rest (forge_all_but_twins.sh), on a task
    # whose F2P tests are parametrized (resolved while only undecorated tests were copied)
    tasks = shared / "tasks"
    for script in ("forge_all_but_canary.sh", "forge_all_but_smaller.sh", "forge_all_but_twins.sh"):
        attack = "ATTACK_B64=" + base64.b64encode((AGENTS / script).read_bytes()).decode()
        param = script == "forge_all_but_twins.sh"
        derive_task(TASKS / "calc", tasks / script.removesuffix(".sh").replace("_", "-"), append_instruction=attack,
                    files={"tests/test_calc.py": PARAMETRIZED_F2P} if param else None,
                    toml={r"^f2p = .*$": PARAMETRIZED_F2P_IDS} if param else None)
    lb("run", "-p", tasks, "-a", f"script:{AGENTS / 'run_embedded.sh'}", "-o", jobs, "--backend", backend, "-n", "2",
       check=True, timeout=900)
    got = {r["task"]: r for r in results(job_dir(jobs))}
    assert set(got) == {"forge-all-but-canary", "forge-all-but-smaller", "forge-all-but-twins"}
    for name, r in got.items():
        assert (r["status"], r["rewards"].get("reward")) == ("unresolved", 0.0), (name, r["status"], r["reason"])
        assert "forged verdict (canary)" in (r["reason"] or ""), (name, r["reason"])

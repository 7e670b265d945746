"""From what a verifier run left behind to a trial status (pure functions).

Definitions (docs/architecture.md, "Vocabulary": status; ``docs/tasks.md``, "When a trial is
resolved", for the rules; SWE-bench's ``get_eval_tests_report`` and ``get_resolution_status`` for
the F2P/P2P rules):

- With F2P/P2P ids, a run *passes* when its JUnit report shows every F2P test ``passed``, every
  P2P test kept (``passed``, or ``skipped``: SWE-bench counts a skipped P2P test as no failure),
  and the reward file, if any, says ``reward >= 1``. A listed test the report lacks counts as
  failed (SWE-bench's ``test_failed``: "not in the status map"), and so do the tests of a module
  whose collection failed (a wrong patch that lacks a name the hidden tests import). An F2P test
  that is skipped is not fixed (stricter than SWE-bench, which ignores it). Without a JUnit
  report the run is broken, whatever the reward file says.
- Without ids, a run passes when its main reward is >= 1: the task's declared key
  (``[lancebench] reward_key``, default ``reward``); when the default key is absent from a file
  with several keys, every key must reach 1 (the smallest value decides). A declared key the
  verifier did not write makes the run broken.
- A run whose verifier excluded the trial (an empty ``reward.txt``, see
  :mod:`lancebench.grading.rewards`) is ``excluded`` (``grading.verifier`` decides whether the
  exclusion stands: the trial is then ``invalid`` with that reason).
- A run that timed out, left neither rewards nor a usable JUnit report, or left a reward file
  without a usable number (``{}``, text, NaN) is *broken*: the caller decides whether the grader
  or the patch broke it (see ``grading.verifier``), and only a
  broken grader makes the trial ``invalid``.
- Several runs combine by ``pass_if``: ``any`` (SWE-Lancer: a task passes when any of its runs
  passes; broken runs are left out, all runs broken means broken) or ``all`` (every run must
  pass: one broken run makes the combination broken, so code that breaks the runs where it is
  wrong cannot leave them out; attack pass round 4, ``break_run_when_wrong.sh``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lancebench.grading.junit import JUnitReport, select

KEPT = ("passed", "skipped")  # P2P outcomes that count as kept


@dataclass
class RunOutcome:
    """One verifier run: ``passed`` (bool), or ``broken`` with ``reason``; ``rewards`` and the
    selected ``tests`` outcomes (``passed``/``failed``/``error``/``skipped``/``missing``);
    ``report_ids``: the tests the JUnit report holds, as pytest ids (for messages); ``report``: the
    run's whole JUnit report (set by ``grading.verifier.grade_once``; the canary check reads it)."""

    passed: bool = False
    broken: bool = False
    excluded: bool = False
    reason: str | None = None
    rewards: dict[str, float] = field(default_factory=dict)
    tests: dict[str, str] = field(default_factory=dict)
    report_ids: list[str] = field(default_factory=list)
    report: JUnitReport | None = field(default=None, repr=False, compare=False)  # the run's whole report


def main_reward(rewards: dict[str, float], key: str = "reward") -> float:
    """``rewards[key]`` if present, else the smallest value (every key must reach 1; 0.0 for an
    empty map)."""
    if key in rewards:
        return rewards[key]
    return min(rewards.values()) if rewards else 0.0


def shortfall(rewards: dict[str, float], key: str = "reward") -> str:
    """Why :func:`main_reward` is below 1, naming the key that decides: ``reward 0 < 1``, or, with
    no ``key`` in a file of several keys, the smallest one (``style 0.5 < 1 (no 'reward' key:
    every key must reach 1)``)."""
    if key in rewards or not rewards:
        return f"{key} {main_reward(rewards, key):g} < 1"
    low = min(rewards, key=lambda k: rewards[k])
    return f"{low} {rewards[low]:g} < 1 (no '{key}' key: every key must reach 1)"


def judge_run(*, exit_code: int | None, timed_out: bool, rewards: dict[str, float] | None,
              junit: JUnitReport | None, f2p: list[str], p2p: list[str], reward_error: str | None = None,
              excluded: str | None = None, reward_key: str = "reward") -> RunOutcome:
    """Judge one verifier run (see the module docstring). ``excluded``: why the verifier
    excluded the trial; ``reward_key``: the task's declared main reward key."""
    if timed_out:
        return RunOutcome(broken=True, reason="verifier timed out")
    if excluded:
        return RunOutcome(broken=True, excluded=True, reason=excluded)
    if reward_error:
        return RunOutcome(broken=True, reason=reward_error)
    if rewards is not None and reward_key != "reward" and reward_key not in rewards:
        return RunOutcome(broken=True, reason=f"the verifier wrote no '{reward_key}' reward (the task's reward_key); "
                          f"it wrote {sorted(rewards)}", rewards=dict(rewards))
    listed = f2p + p2p
    if listed and junit is None:
        # The task names its tests, so a verdict without a test report is not trusted: the code
        # under test can end the run early with exit code 0 (regression: "forge_exit0").
        return RunOutcome(broken=True, reason=f"no JUnit report with the task's tests (exit code {exit_code})",
                          rewards=dict(rewards or {}))
    if listed and junit is not None:  # (listed without a report returned above)
        return _judge_tests(junit, f2p, p2p, rewards, reward_key)
    if rewards is None:
        return RunOutcome(broken=True, reason=f"verifier wrote no reward (exit code {exit_code})")
    value = main_reward(rewards, reward_key)
    return RunOutcome(passed=value >= 1.0, rewards=rewards,
                      reason=None if value >= 1.0 else shortfall(rewards, reward_key))


def _judge_tests(junit: JUnitReport, f2p: list[str], p2p: list[str], rewards: dict[str, float] | None,
                 reward_key: str = "reward") -> RunOutcome:
    """The F2P/P2P verdict of a run whose JUnit report was produced (see the module docstring)."""
    reward_ok = rewards is None or main_reward(rewards, reward_key) >= 1.0
    tests, ids = select(junit, f2p + p2p), junit.ids()
    ok = {t: tests[t] == "passed" for t in f2p}
    ok.update({t: tests[t] in KEPT for t in p2p})
    out = dict(rewards or {})
    out["f2p"] = sum(ok[t] for t in f2p) / len(f2p) if f2p else 1.0
    out["p2p"] = sum(ok[t] for t in p2p) / len(p2p) if p2p else 1.0
    failed = [f"{t} ({tests[t]})" for t in tests if not ok[t]]
    reason: str | None
    if failed:
        reason = f"tests not passing: {', '.join(failed[:5])}" + (" ..." if len(failed) > 5 else "")
        if junit.collection_errors:
            reason += f"; collection failed in {', '.join(junit.collection_errors[:3])}"
    else:
        reason = None if reward_ok else shortfall(rewards or {}, reward_key)
    return RunOutcome(passed=not failed and reward_ok, reason=reason, rewards=out, tests=tests, report_ids=ids)


def combine_runs(runs: list[RunOutcome], pass_if: str = "all") -> RunOutcome:
    """Combine repeated runs of one verifier (``pass_if`` ``any`` or ``all``)."""
    good = [r for r in runs if not r.broken]
    excluded = [r for r in runs if r.excluded]
    if excluded:
        return excluded[0]
    if not good:
        return runs[-1] if runs else RunOutcome(broken=True, reason="verifier did not run")
    if pass_if != "any" and len(good) < len(runs):  # every run must pass: one broken run is not left out
        out = next(r for r in runs if r.broken)
        return RunOutcome(broken=True, reason=f"run {runs.index(out) + 1} of {len(runs)} broke: {out.reason}",
                          rewards=dict(out.rewards), tests=dict(out.tests), report_ids=list(out.report_ids))
    chosen = (any if pass_if == "any" else all)(r.passed for r in good)
    pick = next((r for r in good if r.passed == chosen), good[-1])
    out = RunOutcome(passed=chosen, reason=pick.reason, rewards=dict(pick.rewards), tests=dict(pick.tests),
                     report_ids=list(pick.report_ids))
    if len(runs) > 1:
        out.rewards["runs_passed"] = float(sum(r.passed for r in good))
        out.rewards["runs"] = float(len(runs))
    return out

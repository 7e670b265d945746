"""The verify phase of a trial: run a task's verifier and judge what it left, as a :class:`Verdict`.

The runner records the verdict; nothing here writes a ``TrialResult``. Rules:

- A code task's patch loses the diffs of protected files first (``grading.patch.filter_patch``);
  what is graded is written beside the captured patch when it differs (``patch.graded.diff``).
  A patch the static scan flags (``grading.scan``, when ``[lancebench] scan_patch``) is
  ``unresolved`` without running the verifier.
- Each of the task's ``test_runs`` runs in a fresh sandbox: apply the patch, copy in the hidden
  tests, run ``tests/test.sh`` under the verifier timeout, read rewards and JUnit
  (:func:`grade_once`); runs are judged and combined by ``grading.outcome``. A non-empty patch
  graded once has its canary run started beside it (:func:`_beside_canary`; its tests run once no
  process of the graded run is left (:meth:`Backend.halt`), and a base run waits for it: no two
  runs' tests at once); given the patch
  to come (a future), :func:`verify_patch` starts both runs' sandboxes before the patch is known.
  Across trials and jobs on this host, a run of the patch takes its turn among its task's runs
  before ``tests/test.sh`` (:mod:`lancebench.grading.run_order`: a canary run's tests run alone).
- A run during which the JUnit report's FIFO (``grading.witness``) was removed or replaced is
  broken: the runner's report may have gone to a file nobody watched (then the base decides, below).
- A run the task's verifier excludes (an empty ``reward.txt``) makes the verdict ``invalid`` when
  the patch is empty or the untouched base is excluded too; else the code under test may have
  written the exclusion (it can write the verifier's folder), and the verdict is ``unresolved``.
- A broken run (timeout, no reward, no usable JUnit) is the grader's fault only when the
  untouched base is broken too: then the verdict is ``invalid``; else the patch broke the grader
  and the verdict is ``unresolved`` with reward 0 (its rewards are not trusted).
- A choice task is judged against ``solution/choice.json`` (``grading.choice``).
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from lancebench.grading.app_server import STARTED_VAR, run_verifier
from lancebench.grading.canary import MARK as CANARY_MARK, Canary, divergence, judge_canary, make_canary, test_files
from lancebench.grading.choice import grade_choice
from lancebench.grading.junit import JUnitReport, _as_case, outcome_of, outcome_over_params
from lancebench.grading.outcome import RunOutcome, combine_runs, judge_run
from lancebench.grading.patch import filter_patch
from lancebench.grading.pyguard import PYBOOT_INSIDE, write_pyboot
from lancebench.grading.redact import redact_files
from lancebench.grading.rewards import RewardError, RewardExcluded, read_rewards
from lancebench.grading.run_order import Turn
from lancebench.grading.scan import deciding, scan_patch, scan_reason
from lancebench.grading.witness import ReportWitness, account
from lancebench.results.paths import TrialPaths
from lancebench.results.store import atomic_write
from lancebench.sandbox.backend import Backend, PreparedEnvironment
from lancebench.sandbox.base import ExecResult, Mount, Sandbox
from lancebench.sandbox.fstree import remove_tree
from lancebench.sandbox.names import unnamed
from lancebench.task.model import Task
from lancebench.task.settings import NetworkPolicy, phase_env, phase_settings

PATCH_IN_SANDBOX = "/tmp/lancebench/patch.diff"
APPLY_TIMEOUT_SEC = 300


@dataclass(frozen=True)
class Verdict:
    """What the verifier decided about one trial's work.

    - ``status``: ``resolved`` | ``unresolved`` | ``invalid`` (``invalid`` only when the grader
      itself is broken, never for anything the agent's work caused); ``reason`` says why.
    - ``rewards``: flat map of floats (``reward`` is the main one); ``tests``: test id ->
      ``passed`` | ``failed`` | ``error`` | ``skipped`` | ``missing``.
    - ``dropped_paths``: protected paths removed from the patch before grading.
    - ``patch_applied``: whether the graded patch applied (None: empty patch, or a choice task).
    - ``runs``: each verifier run's outcome, in order (the base run, if any, is not among them).
    - ``choice``: the proposal id chosen (choice tasks).
    - ``scan_notes``: the static scan's findings that do not decide (``grading.scan``: harmless
      uses such as an exit hook that only cleans up), recorded with the trial.
    """

    status: Literal["resolved", "unresolved", "invalid"]
    reason: str | None = None
    rewards: dict[str, float] = field(default_factory=dict)
    tests: dict[str, str] = field(default_factory=dict)
    dropped_paths: tuple[str, ...] = ()
    patch_applied: bool | None = None
    runs: tuple[RunOutcome, ...] = ()
    choice: int | None = None
    scan_notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class VerifierSettings:
    """The verifier phase's settings for one task (and step of a multi-step task), resolved once
    from ``task.toml`` (:mod:`lancebench.task.settings`): the ``env`` of ``tests/test.sh``
    (:func:`verifier_env`), the ``user`` it runs as (None: the image's), the ``network``, the
    ``timeout_sec`` (the step's ``[steps.verifier] timeout_sec``, else ``[verifier]``), the
    ``secrets`` (host values redacted from what the verifier leaves) and the pytest ``plugins``."""

    env: dict[str, str]
    user: str | None
    network: NetworkPolicy
    timeout_sec: float | None
    secrets: frozenset[str]
    plugins: tuple[str, ...]

    @classmethod
    def of(cls, task: Task, step: str | None = None) -> VerifierSettings:
        """The settings of ``task``'s verifier (of ``step``'s, for a multi-step task)."""
        step_cfg = next((s for s in task.config.steps or [] if s.name == step), None)
        timeout = (step_cfg.verifier.timeout_sec if step_cfg else None) or task.config.verifier.timeout_sec
        phase = phase_settings(task, "verifier", step=step)  # env, user, network, secrets: one call
        plugins = _plugins(task, phase.env)
        return cls(env=_test_env(task, phase.env, plugins), user=phase.user, network=phase.network,
                   timeout_sec=timeout, secrets=phase.secrets, plugins=tuple(plugins))


@dataclass(frozen=True)
class Grading:
    """What every verifier run of one graded work shares: the ``task`` (and ``step``), the
    ``backend`` and prepared ``env``, the sandboxes' ``labels``, the host ``scratch`` folder, the
    trial's ``paths`` (verifier files under ``paths.verifier``) and the resolved ``settings``.
    ``base_runs`` holds the untouched base's outcome once it was graded (:func:`_grade_base`): one
    base run answers every control of this graded work (one per step of a multi-step task).
    ``guard``: the guard's mounts (:meth:`Backend.guard_mounts`), asked once, so that every run
    of the graded work gets the guard the same way (a mount shows in ``/proc/self/mountinfo``).
    ``beside``: canary runs started beside the graded run (:func:`_beside_canary`), which the
    base run waits for: no code of the agent's runs while the base is graded."""

    task: Task
    backend: Backend
    env: PreparedEnvironment
    scratch: Path
    paths: TrialPaths
    labels: dict[str, str] | None
    step: str | None
    settings: VerifierSettings
    base_runs: list[RunOutcome] = field(default_factory=list, compare=False, repr=False)
    guard: tuple[Mount, ...] = ()
    beside: list[asyncio.Future] = field(default_factory=list, compare=False, repr=False)


def patch_not_applied(reason: str | None) -> Verdict:
    """The verdict for a given patch (predictions) that did not apply in the agent's sandbox."""
    return Verdict(status="unresolved", reason=reason, rewards={"reward": 0.0}, patch_applied=False)


def judge_choice(task: Task, raw: Any, problem: str | None) -> Verdict:
    """Judge a choice task's answer: ``raw`` is the agent's ``selected_proposal_id`` value (or
    None), ``problem`` why it could not be read. Reward 1.0 for the right id, else 0.0.
    Raises :class:`OSError` / :class:`ValueError` when ``solution/choice.json`` cannot be read."""
    assert task.lb.choice is not None, "judge_choice needs a choice task"
    correct = json.loads(task.paths.choice_json.read_text())["correct_proposal_id"]
    ok, choice, reason = grade_choice(raw, problem, task.lb.choice.proposal_ids, correct)
    return Verdict(status="resolved" if ok else "unresolved", reason=reason, rewards={"reward": float(ok)},
                   choice=choice)


async def verify_patch(task: Task, backend: Backend, env: PreparedEnvironment, patch: str | Awaitable[str], *,
                       scratch: Path, paths: TrialPaths, labels: dict[str, str] | None = None,
                       step: str | None = None) -> Verdict:
    """Grade a code task's captured ``patch`` (see the module docstring for the rules), with the
    verifier of a multi-step task's ``step`` when given (see :func:`grade_once`). ``patch`` may
    be an awaitable of it (the capture still running): the first run's sandbox, and the canary
    run's beside it, are opened and started meanwhile, and wait for the patch before applying it
    (ended unused when the capture fails or the scan decides).

    Verifier files go to ``paths.verifier/run-<n>/`` (and ``base/`` when the base is graded);
    ``scratch`` is a host folder for the sandboxes (each run's in a folder of a random name,
    :mod:`lancebench.sandbox.names`, so that no run can tell which it is). Raises
    :class:`SandboxError` when the backend fails (the runner records an ``invalid`` trial).
    """
    g = await _grading(task, backend, env, scratch, paths, labels, step)
    early: list[EarlyCanary] = []
    first: asyncio.Future | None = None
    given: asyncio.Future[str] | None = None
    try:
        if not isinstance(patch, str):
            given = asyncio.get_running_loop().create_future()
            if task.lb.test_runs == 1:
                first = _beside_canary(g, given, g.paths.verifier / "run-0", early)
            patch = await patch
        kept, dropped = filter_patch(patch, task.protected_globs(), task.lb.unprotect)
        if dropped:  # what was graded, beside patch.diff (what was captured)
            atomic_write(paths.graded_patch, kept, errors="surrogateescape")
        findings = scan_patch(kept) if task.lb.scan_patch else []
        notes = tuple(str(f) for f in findings if not f.decides)
        if deciding(findings):
            return Verdict(status="unresolved", reason=scan_reason(deciding(findings)), rewards={"reward": 0.0},
                           dropped_paths=tuple(dropped), scan_notes=notes)
        if given is not None:
            given.set_result(kept)
        verdict = await _grade_runs(g, kept, tuple(dropped), early, first)
        return replace(verdict, scan_notes=notes + verdict.scan_notes)
    finally:
        if first is not None and not first.done():  # never given a patch: it leaves nothing
            first.cancel()
            await asyncio.gather(first, return_exceptions=True)
            await asyncio.to_thread(remove_tree, g.paths.verifier / "run-0")
        for e in early:
            await e.discard()
        if given is not None and not given.done():  # no run was given the patch: no verifier folder
            await asyncio.to_thread(_remove_if_empty, g.paths.verifier)


def _remove_if_empty(folder: Path) -> None:
    """Remove ``folder`` when it exists and holds nothing (what the ended runs made)."""
    try:
        folder.rmdir()
    except OSError:  # absent, or something in it
        pass


async def _grade_runs(g: Grading, kept: str, dropped: tuple[str, ...], early: list[EarlyCanary],
                      first: asyncio.Future | None) -> Verdict:
    """Grade the filtered patch ``kept`` over the task's ``test_runs`` (the rules of the module
    docstring). ``first``: the first run, already started (:func:`verify_patch`); else it starts
    here, with the canary run beside it (:func:`_beside_canary`) for a non-empty patch graded
    once. ``early`` receives that canary run; the caller ends it when :func:`_canary_check` did
    not use it."""
    task = g.task
    runs: list[RunOutcome] = []
    applied: bool | None = None
    if early and not kept.strip():  # an empty patch has no canary run
        await early[0].discard()
    for i in range(task.lb.test_runs):
        if i == 0 and first is not None:
            ok, run = await first
        elif i == 0 and task.lb.test_runs == 1 and kept.strip():
            ok, run = await _beside_canary(g, kept, g.paths.verifier / "run-0", early)
        else:
            ok, run = await _grade_once(g, kept, unnamed(g.scratch), g.paths.verifier / f"run-{i}")
        applied = ok  # None: an empty patch
        if ok is False:
            return Verdict(status="unresolved", reason="the patch did not apply", dropped_paths=tuple(dropped),
                           patch_applied=False, runs=(*runs, run))
        runs.append(run)
    combined = combine_runs(runs, task.lb.pass_if)
    if early and not combined.passed:  # no canary is read: its run ends now
        await early[0].discard()
    if combined.excluded:
        if await _exclusion_stands(g, kept):
            return Verdict(status="invalid", reason=f"excluded by the task's verifier: {combined.reason}",
                           dropped_paths=tuple(dropped), patch_applied=applied, runs=tuple(runs))
        return Verdict(status="unresolved", reason=f"{EXCLUDED_BY_PATCH}: {combined.reason}", rewards={"reward": 0.0},
                       dropped_paths=tuple(dropped), patch_applied=applied, runs=tuple(runs))
    if combined.broken:
        problem = await _blame_broken_grader(g, kept, combined)
        if problem:
            return Verdict(status="invalid", reason=problem, dropped_paths=tuple(dropped), patch_applied=applied,
                           runs=tuple(runs))
        # a broken run's rewards are not trusted: the code under test may have written them
        combined = RunOutcome(passed=False, reason=f"{combined.reason} (the grader works without the patch)",
                              rewards={**combined.rewards, "reward": 0.0}, tests=combined.tests)
    if combined.passed and kept.strip() and (skipped := await _skipped_p2p(g, combined)):
        return Verdict(status="unresolved", reason=skipped, rewards={**combined.rewards, "reward": 0.0},
                       tests=combined.tests, dropped_paths=tuple(dropped), patch_applied=applied, runs=tuple(runs))
    canary_notes: tuple[str, ...] = ()
    if combined.passed and kept.strip():
        graded = next((r.report for r in runs if r.passed and not r.broken), None)
        forged, note = await _canary_check(g, kept, graded, early[0] if early else None)
        canary_notes = (note,) if note else ()
        if forged:
            return Verdict(status="unresolved", reason=forged, rewards={**combined.rewards, "reward": 0.0},
                           tests=combined.tests, dropped_paths=tuple(dropped), patch_applied=applied,
                           runs=tuple(runs), scan_notes=canary_notes)
    return Verdict(status="resolved" if combined.passed else "unresolved", reason=combined.reason,
                   rewards=combined.rewards or {"reward": 0.0}, tests=combined.tests, dropped_paths=tuple(dropped),
                   patch_applied=applied, runs=tuple(runs), scan_notes=canary_notes)


@dataclass
class EarlyCanary:
    """A canary run started beside the graded run (:func:`_beside_canary`): its ``canary``, the
    hidden tests with it (``probe``) and their ``test_sh``, the running ``run`` (a task giving
    :func:`_grade_once`'s answer), and its files' folder ``out_dir``."""

    canary: Canary
    probe: Path
    test_sh: str
    run: asyncio.Future
    out_dir: Path
    used: bool = False

    def fits(self, graded: JUnitReport | None) -> bool:
        """Could this canary have been made after the graded run? Each original passed in the
        graded ``report`` (or the report shows no test case: then :func:`make_canary` would
        have chosen among the same tests): a copy of a test that failed there could pass
        honestly (:func:`lancebench.grading.canary.make_canary` leaves such tests out)."""
        if graded is None or not graded.cases:
            return True
        return all(outcome_over_params(graded, p.original_id, best=False) == "passed" for p in self.canary.planted)

    async def discard(self) -> None:
        """End the run unless it was used, and remove its files (a canary that was not read
        leaves nothing in the trial's folder)."""
        if self.used:
            return
        self.run.cancel()
        await asyncio.gather(self.run, return_exceptions=True)
        await asyncio.to_thread(remove_tree, self.out_dir)
        self.used = True


def _beside_canary(g: Grading, kept: str | asyncio.Future[str], out_dir: Path,
                   early: list[EarlyCanary]) -> asyncio.Future:
    """The graded run of ``kept`` (files in ``out_dir``) with the canary run started beside it
    (files in ``paths.verifier/canary``, appended to ``early``); returns the graded run, started
    (``kept``: the patch, or a future of it that both runs wait for), so that a passing patch is not
    graded twice in a row: the canary is made before the graded run's report is known, and
    :func:`_canary_check` uses it only when it fits that report (:meth:`EarlyCanary.fits`).
    The two sandboxes are opened in an order drawn at random: what the host hands out in
    order (loop devices of the storage quotas, mount ids) tells neither run which it is, nor
    does the time since the agent's work was captured. Given a future of the patch, the canary
    run's sandbox starts once the patch is known (a patch that turns out empty has no canary run:
    its sandbox never starts). The canary run starts and applies
    the patch beside the graded run, but runs its tests only once the graded run has ended (no
    process of it left, :meth:`Backend.halt`, else its sandbox stopped): code under test never
    runs in both at once, where it could ask the other
    run which tests it holds (attack pass round 10: record locks on a file both see)."""
    probe = g.scratch / "canary-tests"
    if os.path.lexists(probe):
        remove_tree(probe)
    copy_tests(g.task, g.step, probe)
    canary = make_canary(probe, g.task.lb.f2p, g.task.lb.p2p, None)
    if canary is None:
        return asyncio.ensure_future(_grade_once(g, kept, unnamed(g.scratch), out_dir))
    test_sh = (probe / "test.sh").read_text(errors="replace") if (probe / "test.sh").is_file() else ""
    canary_dir = g.paths.verifier / "canary"
    ended = asyncio.Event()  # set once no process of the graded run is left (Backend.halt), or it failed

    def graded() -> asyncio.Future:
        run = asyncio.ensure_future(_grade_once(g, kept, unnamed(g.scratch), out_dir, stopped=ended))
        run.add_done_callback(lambda _: ended.set())  # a run that failed before its sandbox started
        return run

    def beside() -> asyncio.Future:
        return asyncio.ensure_future(_grade_once(g, kept, unnamed(g.scratch), canary_dir, tests_from=probe,
                                                 after=ended))

    if secrets.randbelow(2):  # tasks start in the order they are made
        other = beside()
        mine = graded()
    else:
        mine = graded()
        other = beside()
    early.append(EarlyCanary(canary, probe, test_sh, other, canary_dir))
    g.beside.append(other)
    return mine


async def _canary_check(g: Grading, patch: str, graded: JUnitReport | None,
                        early: EarlyCanary | None = None) -> tuple[str | None, str | None]:
    """Grade ``patch`` once more with a canary among the hidden tests (:mod:`lancebench.grading.canary`),
    files in ``paths.verifier/canary`` (``canary-2`` for a second try). Returns (a finding when the
    run is forged, a note when no canary could be made or read). ``graded``: the graded run's
    report (the real tests must do as well beside the canary). ``early``: a canary run started
    beside the graded run, read as the first try when it fits ``graded``, else ended first. A
    canary run that breaks is tried once more with a new canary; broken again, it is forged
    unless the untouched base breaks too. A run whose report lost every test case the graded
    run's held counts as broken (:func:`_lost_cases`)."""
    task = g.task
    if early is not None and not early.fits(graded):
        await early.discard()
    for attempt in (1, 2):
        probe = g.scratch / "canary-tests"
        if attempt == 1 and early is not None and not early.used:
            canary: Canary | None = early.canary
            test_sh = early.test_sh
        else:
            remove_tree(probe)
            copy_tests(task, g.step, probe)
            canary = make_canary(probe, task.lb.f2p, task.lb.p2p, graded)
            test_sh = (probe / "test.sh").read_text(errors="replace") if (probe / "test.sh").is_file() else ""
        if attempt == 1 and (forged := await _unreported_pass(g, graded, canary, probe)):
            return forged, None
        if canary is None:
            return None, "canary: none made (no module-level pytest test function with an assert in the hidden tests)"
        if attempt == 1 and early is not None and not early.used:
            early.used = True
            _, run = await early.run
        else:
            _, run = await _grade_once(g, patch, unnamed(g.scratch),
                                       g.paths.verifier / ("canary" if attempt == 1 else "canary-2"), tests_from=probe)
        if not (run.broken or run.excluded or _lost_cases(graded, run)):
            forged, note = judge_canary(canary, run.report, passed=run.passed,
                                        listed=bool(task.lb.f2p or task.lb.p2p), test_sh=test_sh)
            forged = forged or divergence(canary, graded, run.report, task.lb.f2p, task.lb.p2p)
            return forged, (f"canary: {note}" if note else None)
    assert canary is not None
    if await _blame_broken_grader(g, patch, run):
        return None, f"canary: the canary run broke with and without the patch ({run.reason}); not read"
    return (f"{CANARY_MARK}: the canary run (the hidden tests with {canary.test_id}, a copy of "
            f"{canary.original_id} that must fail) broke twice while the graded run passed: {run.reason}"), None


async def _unreported_pass(g: Grading, graded: JUnitReport | None, canary: Canary | None,
                           tests: Path) -> str | None:
    """Does a graded pass's report show the hidden tests the untouched repository's run reports?
    The finding when it does not, else None. Checked on a task graded by its reward alone (no
    F2P/P2P lists: with them, the report must name each listed test) whose hidden tests are
    Python test files (``tests``: the hidden tests' folder), when the graded run's report holds
    no test case, or no canary could be made, or it lacks a canary's original (a real hidden
    test): then the base is graded in ``paths.verifier/base``, and a pass is forged when the base's
    report holds a test function (its parameters aside) that the graded report lacks. The test
    process ended before the runner's report (attack pass round 3: an exit with status 0 at
    import), or the report is one the code under test wrote itself (round 4: a one-case report
    written into the FIFO at import, then such an exit; or test cases the real tests are not
    among). None when the base's run writes no report either (the verifier writes none)."""
    task = g.task
    if task.lb.f2p or task.lb.p2p or not (canary or test_files(tests)):
        return None
    if graded is not None and graded.cases and canary is not None and all(
            outcome_of(graded, p.original_id) == "passed" for p in canary.planted):
        return None
    base = await _grade_base(g)
    if base.report is None or not base.report.cases:
        return None
    if graded is None or not graded.cases:
        return (f"{CANARY_MARK}: the graded run passed without a test report, while the untouched repository's run "
                f"writes one ({len(base.report.cases)} test case(s)): the test process ended before its report, "
                "so the verdict does not depend on the tests")
    held = {_function(k) for k in graded.cases}
    lacking = sorted({_function(k) for k in base.report.cases} - held)
    if not lacking:
        return None
    shown = ", ".join(f"{scope}::{name}" if scope else name for scope, name in lacking[:3])
    return (f"{CANARY_MARK}: the graded run passed with a report that lacks {len(lacking)} test(s) the untouched "
            f"repository's run reports ({shown}{' ...' if len(lacking) > 3 else ''}): the report is not the "
            "runner's account of the hidden tests")


def _function(key: str) -> tuple[str, str]:
    """A report key as (scope, test function): the name without its parameters (``test_b[1-2]``
    -> ``test_b``), so that parameters the code under test decides do not count."""
    case = _as_case(key)
    return case.classname, case.name.partition("[")[0]


async def _skipped_p2p(g: Grading, combined: RunOutcome) -> str | None:
    """P2P tests a passing run skipped (a skipped P2P test counts as kept, SWE-bench's rule) that
    pass on the untouched repository (graded in ``paths.verifier/base`` when any is skipped): the
    patch brought the skip, which hides what the test checks (attack pass round 4: a function the
    patch broke called ``pytest.skip`` when it ran, ``skip_broken_p2p.sh``). The reason the trial
    is unresolved, or None."""
    skipped = [t for t in g.task.lb.p2p if combined.tests.get(t) == "skipped"]
    if not skipped:
        return None
    base = await _grade_base(g)
    newly = [t for t in skipped if base.report is not None and outcome_of(base.report, t) == "passed"]
    if not newly:
        return None
    return (f"P2P tests pass on the untouched repository and are skipped with the patch: {', '.join(newly[:5])}"
            f"{' ...' if len(newly) > 5 else ''} (a skip the patch brought hides what the test checks)")


def _lost_cases(graded: JUnitReport | None, run: RunOutcome) -> bool:
    """Did the canary ``run`` leave a report without test cases (a collection error only, or no
    report) where the graded run's report held some? Then neither the canary nor the real tests
    can be read in it: code under test that fails to import beside a canary (two near-copy test
    functions) would otherwise keep its forged graded verdict (attack pass after issue 20). Such a
    run counts as broken."""
    return bool(graded is not None and graded.cases and (run.report is None or not run.report.cases))


EXCLUDED_BY_PATCH = ("the verifier excluded the trial only with the patch applied (the untouched repository "
                     "is not excluded): the code under test may have written the exclusion")


async def _exclusion_stands(g: Grading, patch: str) -> bool:
    """Is an exclusion (an empty ``reward.txt``) the task's verdict, or may the code under test
    have written it (it runs with write access to the verifier's folder)? True for an empty
    patch, or when the untouched base, graded in ``paths.verifier/base``, is excluded (or broken)
    too; False when only the patched run is excluded: then the agent's work caused it, and what
    the agent caused is never ``invalid``."""
    if not patch.strip():
        return True
    base = await _grade_base(g)
    return base.excluded or base.broken


async def _grade_base(g: Grading) -> RunOutcome:
    """The untouched base's outcome in the context ``g``, graded (files in ``paths.verifier/base``)
    the first time a control asks and reused after: the exclusion, broken-grader, unreported-pass and
    skipped-P2P controls of one graded work read the same base run, so a trial grades its base at most once
    (per step). It starts once every canary run beside the graded run has ended (attack pass
    round 10: the code under test there could use up what it shares with the base run, and make
    the control fail)."""
    if not g.base_runs:
        if g.beside:  # a canary run of the patch ends first: its code never runs beside the control
            await asyncio.wait(g.beside)
        _, base = await _grade_once(g, "", unnamed(g.scratch), g.paths.verifier / "base")
        g.base_runs.append(base)
    return g.base_runs[0]


async def _blame_broken_grader(g: Grading, patch: str, combined: RunOutcome) -> str | None:
    """Did the grader break, or did the patch break it? The reason the trial is invalid when the
    grader is broken (graded the untouched base to tell), None when the patch broke it."""
    if not patch.strip():
        return f"grader failed on the untouched repository: {combined.reason}"
    base = await _grade_base(g)
    if base.broken:
        return f"grader failed with and without the patch: {combined.reason}"
    return None


async def grade_once(task: Task, backend: Backend, env: PreparedEnvironment, patch: str, scratch: Path,
                     out_dir: Path, labels: dict[str, str] | None = None,
                     step: str | None = None, tests_from: Path | None = None) -> tuple[bool | None, RunOutcome]:
    """Grade ``patch`` once in a fresh sandbox: apply it, copy in the hidden tests, run
    ``tests/test.sh`` under the verifier timeout, read rewards and JUnit. For a multi-step task's
    ``step``, ``steps/<step>/tests`` is laid over the shared tests and the step's verifier
    settings (env, timeout, network) apply. ``tests_from``: a folder whose files are the hidden
    tests instead (the canary run, :mod:`lancebench.grading.canary`).

    Returns (applied: None when the patch is empty, the run's outcome). The verifier's files are
    copied to ``out_dir`` (``apply.log``, ``test.log``, ``logs/``). Raises :class:`SandboxError`
    when the backend fails.
    """
    g = await _grading(task, backend, env, scratch, TrialPaths(root=out_dir), labels, step)
    return await _grade_once(g, patch, scratch, out_dir, tests_from=tests_from)


async def _grading(task: Task, backend: Backend, env: PreparedEnvironment, scratch: Path, paths: TrialPaths,
                   labels: dict[str, str] | None, step: str | None) -> Grading:
    """The :class:`Grading` context of one graded work, its settings resolved and the guard's
    mounts asked for once."""
    settings = VerifierSettings.of(task, step)
    guard = await backend.guard_mounts(task, env, user=settings.user) if task.lb.scan_patch else ()
    return Grading(task, backend, env, scratch, paths, labels, step, settings, guard=guard)


async def _grade_once(g: Grading, patch: str | asyncio.Future[str], scratch: Path, out_dir: Path,
                      tests_from: Path | None = None, after: asyncio.Event | None = None,
                      stopped: asyncio.Event | None = None) -> tuple[bool | None, RunOutcome]:
    """:func:`grade_once` in the context ``g``, its sandbox's host folder ``scratch``, the run's
    files in ``out_dir``; ``after``: the tests run only once it is set (the patch applied
    before); ``stopped``: set once no process of the run is left (:meth:`Backend.halt`: on docker
    its container killed, removed after; else once its sandbox has stopped), before its report
    is read and ``scratch`` removed. ``scratch`` is removed when the run ends (what the run left is in
    ``out_dir``): its quota's loop device and its mounts are released, so the next run gets the
    same loop device number and mount ids again instead of ones that grow run by run and tell a
    later run (the base's, the canary's) from the graded run."""
    try:
        return await _grade_in(g, patch, scratch, out_dir, tests_from, after, stopped)
    finally:  # off the event loop: a repository's copy can take a second to remove
        await asyncio.to_thread(remove_tree, scratch)


async def _grade_in(g: Grading, patch: str | asyncio.Future[str], scratch: Path, out_dir: Path,
                    tests_from: Path | None, after: asyncio.Event | None,
                    stopped: asyncio.Event | None = None) -> tuple[bool | None, RunOutcome]:
    """The body of :func:`_grade_once`: the run's sandbox, its whole life in one call
    (:func:`_sandbox_run`: opened over its host folders, started, guarded, the patch applied, the
    tests run in their turn, the verifier's folder copied out, stopped), then what it left judged
    (:func:`_judged`)."""
    ran = await _sandbox_run(g, patch, scratch, out_dir, tests_from, after, stopped)
    if ran.result is None:
        return False, RunOutcome(reason="the patch did not apply")
    # the writes are the code under test's: judged in a worker thread, never in the event loop (round 13:
    # 8 writes of 20 MB, 57 s of parsing, during which no other trial of the process moved)
    return ran.applied, await asyncio.to_thread(_judged, g, ran, out_dir)


async def _opened(g: Grading, scratch: Path, out_dir: Path, tests_from: Path | None) -> Sandbox:
    """The run's host folders made and its sandbox opened, not started (:func:`_open_run`), off
    the event loop (a storage quota is made and mounted: the capture runs beside it). A cancel
    while it opens ends the sandbox opened meanwhile, never leaves it behind."""
    opening = asyncio.ensure_future(asyncio.to_thread(_open_run, g, scratch, out_dir, tests_from))
    try:
        return await asyncio.shield(opening)
    except asyncio.CancelledError:
        opened = (await asyncio.gather(opening, return_exceptions=True))[0]
        if isinstance(opened, Sandbox):
            await opened.stop()
        raise


@dataclass(frozen=True)
class SandboxRun:
    """What one verifier run's sandbox left once it stopped (:func:`_sandbox_run`): ``applied``
    (None: an empty patch; False: it did not apply, and no test ran), the result of
    ``tests/test.sh`` (None when no test ran), the ``witness`` of its JUnit report, stopped
    (:class:`lancebench.grading.witness.ReportWitness`), ``held``: why the report's channel is
    not trusted when the runner ended (:meth:`ReportWitness.runner_ended`, None: it is), and the
    report's witnessed ``writes`` (:meth:`ReportWitness.stop`)."""

    applied: bool | None
    result: ExecResult | None = None
    witness: ReportWitness | None = None
    held: str | None = None
    writes: list[bytes] = field(default_factory=list)


async def _sandbox_run(g: Grading, patch: str | asyncio.Future[str], scratch: Path, out_dir: Path,
                       tests_from: Path | None, after: asyncio.Event | None,
                       stopped: asyncio.Event | None) -> SandboxRun:
    """The whole life of one verifier run's sandbox (host folders in ``scratch``, the run's
    files copied to ``out_dir``), in this order: its host folders made and the sandbox opened
    (:func:`_opened`); the JUnit report's witness started (:mod:`lancebench.grading.witness`); a
    canary run opened before the patch was known waits for it (an empty one ends unstarted);
    the sandbox starts; the Python guard (:func:`_guard_python`); the patch applied
    (:func:`_apply`); the tests wait for ``after`` and the run's turn among its task's runs
    (:class:`lancebench.grading.run_order.Turn`; a run of a non-empty patch only);
    ``tests/test.sh`` runs and ``/logs/verifier`` is copied out (:func:`_run_tests`); the witness
    is told the runner ended; once no process of the run is left (:meth:`Backend.halt`, docker)
    the turn is given back and ``stopped`` set, while the sandbox is removed; the sandbox stops.
    Then, however it ended: the turn given back (when not yet),
    ``stopped`` set, the witness stopped, the host values of secrets redacted from ``out_dir``.
    Raises what the backend raises."""
    task, settings = g.task, g.settings
    box = await _opened(g, scratch, out_dir, tests_from)
    witness = ReportWitness(scratch / "logs")  # junit.xml as written, held outside the sandbox (grading.witness)
    witness.start()
    turn = Turn(task.name)  # among the task's runs in every trial on this host (grading.run_order)
    try:
        if after is not None and not isinstance(patch, str):  # a canary run opened before the patch was known:
            try:  # started once it is (an empty one ends it unstarted)
                patch = await asyncio.shield(patch)
            except BaseException:
                await box.stop()  # opened, never started: its storage quota is released
                raise
        async with box as sandbox:
            await _guard_python(g.backend, task, g.env, sandbox, out_dir, settings.user)
            if not isinstance(patch, str):  # the capture's, filtered (verify_patch); shared by two runs
                patch = await asyncio.shield(patch)
            applied = await _apply(g.backend, task, g.env, sandbox, patch, scratch, out_dir) if patch.strip() else None
            if applied is False:
                return SandboxRun(applied=False)
            if after is not None:  # the graded run beside this one has ended (_beside_canary)
                await after.wait()
            if patch.strip():  # the agent's code runs: not beside a run of the task it could ask
                await turn.take("canary" if tests_from is not None else "graded")
            res = await _run_tests(sandbox, g, out_dir, sealed=(scratch / "tests", scratch / "logs"),
                                   waited=turn.waited_sec)
            held = await asyncio.to_thread(witness.runner_ended)
            if await g.backend.halt(sandbox):  # no process of the run is left: the next may begin while it is removed
                turn.give_back()
                if stopped is not None:
                    stopped.set()
    finally:  # the sandbox stopped first: nothing writes the report any more, nothing of the patch runs
        turn.give_back()
        if stopped is not None:
            stopped.set()
        writes = witness.stop()
        redact_files(out_dir, set(settings.secrets))  # host values of ${VAR} never stay in the job
    return SandboxRun(applied, res, witness, held, writes)


def _judged(g: Grading, ran: SandboxRun, out_dir: Path) -> RunOutcome:
    """The outcome of a run whose tests ran (``ran``; its files in ``out_dir``): the report as its
    witness held it and its channel checked (:func:`lancebench.grading.witness.account`), the
    secrets redacted from the witnessed writes too, then rewards and tests judged
    (:func:`judge_output`); a channel that cannot be trusted makes the run broken."""
    assert ran.result is not None and ran.witness is not None
    junit, rewritten, problem = account(ran.witness, ran.writes, ran.held, out_dir)
    redact_files(out_dir, set(g.settings.secrets))  # the witnessed writes too
    run = judge_output(g.task, out_dir / "logs", junit=junit, exit_code=ran.result.exit_code,
                       timed_out=ran.result.timed_out)
    run.report = junit
    if rewritten:
        run.reason = f"{run.reason}; {rewritten}" if run.reason else rewritten
    if problem:  # the runner's report or reward may be lost or forged: nothing there is trusted
        run = RunOutcome(broken=True, reason=f"{problem}; {run.reason}" if run.reason else problem,
                         rewards=run.rewards, tests=run.tests, report=run.report)
    return run


def _open_run(g: Grading, scratch: Path, out_dir: Path, tests_from: Path | None) -> Sandbox:
    """A run's host folders made afresh in ``scratch`` (``logs``, ``tests``: the hidden tests or
    ``tests_from``'s, ``pyboot``) and its sandbox opened over them, not started (blocking)."""
    task, settings = g.task, g.settings
    if os.path.lexists(scratch):  # a fresh run's is not there yet (sandbox.names)
        remove_tree(scratch)
    logs = scratch / "logs"
    logs.mkdir(parents=True)
    if settings.user is not None:
        os.chmod(logs, 0o777)  # a [verifier] user other than the image's writes its rewards there (docker)
    out_dir.mkdir(parents=True, exist_ok=True)
    tests = scratch / "tests"  # a copy: the task folder may sit where the sandbox user cannot read
    copy_tests(task, g.step, tests)
    if tests_from is not None:  # the canary run's tests (grading.canary)
        shutil.rmtree(tests)
        shutil.copytree(tests_from, tests)
    _fresh_times(tests)
    pyboot = scratch / "pyboot"  # a copy: the harness's install may sit where the sandbox user cannot read
    write_pyboot(pyboot, on=task.lb.scan_patch, workdir=g.env.workdir, plugins=list(settings.plugins))
    return g.backend.open(task, g.env, scratch / "sandbox", network=settings.network, labels=g.labels,
                          mounts=(Mount(tests, "/tests", False), Mount(logs, "/logs/verifier", True),
                                  Mount(pyboot, PYBOOT_INSIDE, False), *g.guard))  # opened first: it may move logs


def _fresh_times(tests: Path) -> None:
    """Give every file and folder of the run's copy of the hidden tests the time of now: a copy
    keeps the task's times, while the canary's file was written seconds before its run, so the
    age of a test file told the canary run from the graded run (attack pass round 3,
    ``exit_by_test_file_age.sh``). Links are left as they are (never followed)."""
    for path in [tests, *tests.rglob("*")]:
        if not path.is_symlink():
            os.utime(path)


def copy_tests(task: Task, step: str | None, dest: Path) -> None:
    """Copy the task's hidden tests (and a multi-step task's ``steps/<step>/tests`` over them) to
    the new folder ``dest``."""
    dest.mkdir(parents=True)
    for source in (task.paths.tests, task.paths.root / "steps" / step / "tests" if step else None):
        if source is not None and source.is_dir():
            shutil.copytree(source, dest, dirs_exist_ok=True)


async def apply_in_sandbox(backend: Backend, task: Task, env: PreparedEnvironment, sandbox: Sandbox, patch: str,
                           scratch: Path) -> tuple[bool, str]:
    """Apply ``patch`` in a started sandbox: the backend's own way when it has one
    (:meth:`Backend.apply_patch`: an image without git), else ``git apply`` inside. Returns ``(applied, log)``;
    raises :class:`SandboxError` when the backend fails. (Senior grading applies patches with it too.)"""
    done = await backend.apply_patch(task, env, sandbox, patch, scratch)
    if done is None:
        patch_file = scratch / "patch.diff"
        patch_file.write_text(patch, encoding="utf-8", errors="surrogateescape")
        await sandbox.put(patch_file, PATCH_IN_SANDBOX)
        res = await sandbox.exec(["git", "apply", "--binary", "--whitespace=nowarn", PATCH_IN_SANDBOX],
                                 cwd=env.workdir, timeout=APPLY_TIMEOUT_SEC)
        done = (res.ok, f"exit {res.exit_code}\n{res.output}")
    return done


async def _apply(backend: Backend, task: Task, env: PreparedEnvironment, sandbox: Sandbox, patch: str,
                 scratch: Path, out_dir: Path) -> bool:
    """Apply ``patch`` in the grading sandbox (:func:`apply_in_sandbox`); writes ``out_dir/apply.log``
    and returns whether it applied."""
    applied, log = await apply_in_sandbox(backend, task, env, sandbox, patch, scratch)
    (out_dir / "apply.log").write_text(log)
    return applied


async def _run_tests(sandbox: Sandbox, g: Grading, out_dir: Path, sealed: tuple[Path, ...],
                     waited: float = 0.0) -> ExecResult:
    """Run ``tests/test.sh`` with the settings of ``g`` (env, user, timeout), with the task's
    app server beside it under another uid when it names one (``grading.app_server``: the host
    folders ``sealed`` become the runner's alone; its output goes to ``out_dir/app.log``); log to
    ``out_dir/test.log`` (with ``waited``, the seconds the run waited for its turn among its task's
    runs, :mod:`lancebench.grading.run_order`, when any) and copy ``/logs/verifier`` to ``out_dir/logs``."""
    s = g.settings
    res, app_log = await run_verifier(sandbox, g.task, ["bash", "/tests/test.sh"], cwd=g.env.workdir, env=s.env,
                                      timeout=s.timeout_sec, sealed=sealed, hidden=RUNNER_ONLY, user=s.user,
                                      step=g.step)
    if app_log is not None:
        (out_dir / "app.log").write_text(app_log)
    turn = f"waited {waited:.1f}s for its turn among the task's runs (grading.run_order)\n" if waited >= 0.05 else ""
    (out_dir / "test.log").write_text(f"exit code: {res.exit_code} timed out: {res.timed_out} "
                                      f"({res.duration_sec:.1f}s)\n{turn}--- stdout\n{res.stdout}"
                                      f"\n--- stderr\n{res.stderr}")
    await sandbox.get("/logs/verifier", out_dir / "logs")
    return res


async def _guard_python(backend: Backend, task: Task, env: PreparedEnvironment, sandbox: Sandbox,
                        out_dir: Path, user: str | None) -> None:
    """Put the verifier's Python guard into every site folder of the fresh grading ``sandbox``
    that ``user`` (who runs ``tests/test.sh``) sees (:meth:`Backend.guard_python`, see
    :mod:`lancebench.grading.pyguard`), unless the task opts out (``scan_patch = false``); the
    folders written are listed in ``out_dir/pyguard.txt``."""
    if not task.lb.scan_patch:
        return
    folders = await backend.guard_python(task, env, sandbox, user=user)
    if folders is None:  # the backend has no guard
        return
    (out_dir / "pyguard.txt").write_text("".join(f"{f}\n" for f in folders) or "no site folder found\n")


def pytest_plugins(task: Task, step: str | None = None) -> list[str]:
    """The pytest plugins (module names) the verifier loads: ``PYTEST_PLUGINS`` of the verifier's
    environment, then ``[lancebench] pytest_plugins``."""
    return _plugins(task, phase_env(task, "verifier", step=step))


def _plugins(task: Task, env: dict[str, str]) -> list[str]:
    """:func:`pytest_plugins` from the verifier phase's ``env``."""
    return [p.strip() for p in env.get("PYTEST_PLUGINS", "").split(",") if p.strip()] + list(task.lb.pytest_plugins)


#: Mount targets of the runner's alone: a task's app server never sees them (grading.app_server).
RUNNER_ONLY = ("/tests", "/logs", PYBOOT_INSIDE, "/opt/lancebench")


def verifier_env(task: Task, step: str | None = None) -> dict[str, str]:
    """The environment of ``tests/test.sh``: task.toml's ``[environment]`` and ``[verifier] env``
    (host templates filled, :func:`lancebench.task.settings.phase_env`), pytest's plugin
    auto-loading off (an installed or planted entry point cannot join the run) and the plugins the
    task names (:func:`pytest_plugins`) loaded instead, no bytecode written, and lancebench's
    guard (``grading/tools/sitecustomize.py``, mounted at :data:`PYBOOT_INSIDE`) first on
    ``PYTHONPATH``. A ``test.sh`` that sets ``PYTHONPATH`` itself replaces that; the guard then
    still runs from the ``.pth`` file in every site folder (:mod:`lancebench.grading.pyguard`).
    ``LANCEBENCH_APP_SERVER=1`` when the task names an app server (the harness runs it)."""
    env = phase_env(task, "verifier", step=step)
    return _test_env(task, env, _plugins(task, env))


def _test_env(task: Task, phase: dict[str, str], plugins: list[str]) -> dict[str, str]:
    """:func:`verifier_env` from the verifier phase's env ``phase`` and the ``plugins``."""
    env = dict(phase)
    env |= {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPATH": PYBOOT_INSIDE + (f":{env['PYTHONPATH']}" if env.get("PYTHONPATH") else "")}
    if task.lb.app_server:  # the harness starts it (grading.app_server); test.sh must not
        env[STARTED_VAR] = "1"
    if plugins:
        env["PYTEST_PLUGINS"] = ",".join(plugins)
    return env


def judge_output(task: Task, logs: Path, *, junit: JUnitReport | None, exit_code: int | None,
                 timed_out: bool) -> RunOutcome:
    """Judge one verifier run from the rewards it left in ``logs``, its JUnit outcomes ``junit``
    (test id -> outcome, None when absent) and how it ended, by the rules of
    :func:`lancebench.grading.outcome.judge_run`. A malformed reward file makes the run broken."""
    rewards, reward_error, excluded = None, None, None
    try:
        rewards = read_rewards(logs)
    except RewardExcluded as exc:
        excluded = str(exc)
    except RewardError as exc:
        reward_error = str(exc)
    return judge_run(exit_code=exit_code, timed_out=timed_out, rewards=rewards, junit=junit,
                     f2p=task.lb.f2p, p2p=task.lb.p2p, reward_error=reward_error, excluded=excluded,
                     reward_key=task.lb.reward_key)

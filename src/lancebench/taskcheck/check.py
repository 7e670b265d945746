"""``lancebench check``: is each task sound?

For a code task (SWE-bench's validation): on the untouched base every F2P test fails and every
P2P test passes (without ids: the base is not resolved); the reference solution resolves the
task in each of ``k`` fresh trials with every listed test passing; ``nop`` resolves nothing; a
task whose outcome differs between repeats is *flaky*. For a choice task: exactly one right id
among its proposals (checked at load), the oracle resolves it, ``nop`` does not. A task whose
reference patch loses a file to the protected-path filter fails too (the grade of an agent that
writes the same fix would differ from the author's).
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lancebench.backends.options import BackendOptions
from lancebench.backends.registry import make_backend
from lancebench.caches.cache import sub
from lancebench.errors import LancebenchError
from lancebench.grading.outcome import KEPT, RunOutcome
from lancebench.grading.verifier import grade_once
from lancebench.runner.executor import AgentRecipe
from lancebench.runner.job import JobOptions, run_job
from lancebench.sandbox.backend import Backend, PreparedEnvironment
from lancebench.sandbox.fstree import remove_tree
from lancebench.task.model import Task, VerifierNetwork
from lancebench.task.settings import with_verifier_network


@dataclass
class TaskCheck:
    """One task's verdict: ``ok`` and the list of ``problems``, plus what was observed."""

    task: str
    kind: str
    ok: bool = True
    flaky: bool = False
    problems: list[str] = field(default_factory=list)
    base: dict[str, str] = field(default_factory=dict)
    oracle: list[str] = field(default_factory=list)
    nop: str | None = None

    def fail(self, problem: str) -> None:
        self.ok = False
        self.problems.append(problem)


async def check_base(task: Task, backend_name: str, work: Path,
                     options: BackendOptions | None = None) -> tuple[dict[str, str], list[str]]:
    """Grade the untouched base on backend ``backend_name`` built with ``options``. Returns (test
    outcomes, problems)."""
    backend = make_backend(backend_name, options)
    env = await backend.prepare(task)
    if task.config.steps:
        return await check_steps_base(task, backend, env, work)
    _, run = await grade_once(task, backend, env, "", work / "sandbox", work / "out")
    if run.broken:
        return run.tests, [f"base: the verifier is broken on the untouched repository ({run.reason})"]
    return run.tests, base_problems(task, run.tests, run.passed) + missing_ids_problems(run)


def base_problems(task: Task, tests: dict[str, str], passed: bool) -> list[str]:
    """What is wrong with a single-step task's untouched base graded with test outcomes ``tests``
    (test id -> outcome) and ``passed`` (the verifier's verdict): an F2P test that already passes,
    a P2P test that does not; without listed ids, a base that is already resolved."""
    if not (task.lb.f2p or task.lb.p2p):
        return ["base: the untouched repository is already resolved"] if passed else []
    problems = [f"base: F2P test {t} already passes" for t in task.lb.f2p if tests.get(t) == "passed"]
    return problems + [f"base: P2P test {t} is {tests.get(t, 'missing')}" for t in task.lb.p2p
                       if tests.get(t) not in KEPT]


async def check_steps_base(task: Task, backend: Backend, env: PreparedEnvironment,
                           work: Path) -> tuple[dict[str, str], list[str]]:
    """A multi-step task's base: each step's verifier (its tests laid over the shared ones) on the
    untouched repository must run, and not every step may pass there. Returns (test outcomes keyed
    ``<step>/<test>``, problems)."""
    tests: dict[str, str] = {}
    problems, passed = [], []
    for step in task.config.steps or []:
        _, run = await grade_once(task, backend, env, "", work / step.name / "sandbox", work / step.name / "out",
                                  step=step.name)
        tests |= {f"{step.name}/{t}": v for t, v in run.tests.items()}
        if run.broken:
            problems.append(f"base, step {step.name}: the verifier is broken on the untouched repository "
                            f"({run.reason})")
        passed.append(run.passed)
    if all(passed):
        problems.append("base: the untouched repository already passes every step")
    return tests, problems


def missing_ids_problems(run: RunOutcome, shown: int = 8) -> list[str]:
    """One problem per listed test id that matches no test of the JUnit report, naming the ids
    the report holds (``shown`` of them, each quoted as a TOML string: an id may hold commas and
    spaces) so the author can copy one that matches (``junit.JUnitReport.ids``)."""
    missing = [t for t, v in run.tests.items() if v == "missing"]
    if not missing:
        return []
    held = ", ".join(json.dumps(i, ensure_ascii=False) for i in run.report_ids[:shown])
    held += f" ... ({len(run.report_ids)} in all)" if len(run.report_ids) > shown else ""
    return [f"base: listed test {json.dumps(t, ensure_ascii=False)} matches no test of the JUnit report; "
            f"it holds: {held or 'no tests'}" for t in missing]


async def check_tasks(tasks: list[Task], *, k: int = 3, backend: str = "local", jobs_dir: Path,
                      label: str, concurrency: int = 1,
                      backend_options: BackendOptions | None = None,
                      verifier_network: VerifierNetwork = "harbor") -> list[TaskCheck]:
    """Validate ``tasks`` on ``backend`` built with ``backend_options``, their verifiers given
    ``verifier_network`` (``--verifier-network``; see the module docstring).
    Trials go to ``jobs_dir/_check/<label>__*``
    (fresh each time; apart from real jobs, so ``report jobs/`` does not pool them). Returns one
    :class:`TaskCheck` per task, in task order."""
    jobs_dir = jobs_dir / "_check"
    tasks = with_verifier_network(tasks, verifier_network)  # the base run below grades them too
    checks = {t.name: TaskCheck(task=t.name, kind=t.kind) for t in tasks}
    results = {}
    for agent, attempts in (("oracle", k), ("nop", 1)):
        opts = JobOptions(name=f"{label}__{agent}", jobs_dir=jobs_dir, agent=AgentRecipe(agent),
                          attempts=attempts, concurrency=concurrency, backend=backend,
                          backend_options=backend_options or BackendOptions(), verifier_network=verifier_network)
        remove_tree(jobs_dir / opts.name)
        results[agent] = await run_job(tasks, opts)
    for r in sorted(results["oracle"], key=lambda r: r.attempt):
        c = checks[r.task]
        c.oracle.append(r.status)
        if r.status != "resolved":
            c.fail(f"oracle attempt {r.attempt}: {r.status} ({r.reason})")
        if r.dropped_paths and r.attempt == 0:  # the filter would strip part of the reference solution
            c.fail(f"the reference patch loses {', '.join(r.dropped_paths[:5])} to the protected paths; "
                   "list them in [lancebench] unprotect (or narrow protect)")
    for c in checks.values():
        if len(set(c.oracle)) > 1:
            c.flaky = True
            c.fail(f"flaky: oracle outcomes differ between repeats {c.oracle}")
    for r in results["nop"]:
        c = checks[r.task]
        c.nop = r.status
        if r.status == "resolved":
            c.fail("nop resolves the task")
        elif r.status == "invalid":
            c.fail(f"nop trial invalid ({r.reason})")
    # nop's trial graded the untouched repository (its patch is empty) in a fresh sandbox, as the
    # base check would: its outcomes are the base's, unless it holds too little to judge by (a
    # multi-step task, an invalid trial, or a listed id missing, whose problem names the report's ids)
    nop = {r.task: r for r in results["nop"]}
    rest = []
    for task in tasks:
        graded = nop.get(task.name)
        if task.kind != "code":
            continue
        if task.config.steps or graded is None or graded.status == "invalid" or "missing" in graded.tests.values():
            rest.append(task)
            continue
        checks[task.name].base = graded.tests
        for p in base_problems(task, graded.tests, graded.status == "resolved"):
            checks[task.name].fail(p)
    # a folder of this run's own: two checks of one dataset (two backends, two -o) run side by side
    scratch = Path(tempfile.mkdtemp(prefix=f"check-{label}-", dir=sub("scratch")))
    scratch.chmod(0o755)  # mkdtemp's 0700 would keep the sandbox user out
    for task in rest:
        try:
            checks[task.name].base, problems = await check_base(task, backend, scratch / task.name, backend_options)
        except LancebenchError as exc:
            problems = [f"base: {exc}"]
        for p in problems:
            checks[task.name].fail(p)
    remove_tree(scratch)
    return [checks[t.name] for t in tasks]


def as_json(checks: list[TaskCheck]) -> dict:
    return {"ok": all(c.ok for c in checks), "tasks": [asdict(c) for c in checks],
            "failed": [c.task for c in checks if not c.ok]}

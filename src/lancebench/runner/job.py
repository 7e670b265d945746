"""A job: many trials (tasks x attempts for one configuration), one results folder, resumable.

Running the same job again keeps finished trials (those with a ``result.json``) and reruns the
others; ``retry_invalid`` also reruns ``invalid`` ones. A trial's identity is its task's content
digest, agent, model and attempt (:func:`lancebench.results.store.trial_key`). Every trial of a
job shares one configuration (:class:`lancebench.results.models.TrialConfig`: agent and options,
model, API base, backend, limits): a run with another one is refused, listing the differences.
Options that do not change what a trial measures (concurrency, attempts, task selection, the
run-level controls of :mod:`lancebench.runner.controls`) may change.

One run writes a job at a time: :func:`run_job` holds ``JOB/.lock`` (an OS file lock, released
when the process ends, even by kill -9); a second run is refused with :class:`JobBusyError`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import filelock

from lancebench import __version__
from lancebench.backends.options import BackendOptions
from lancebench.caches.cache import sub
from lancebench.errors import ConfigError, LancebenchError, RunStopped, TaskError
from lancebench.judging.senior import JudgeSettings
from lancebench.results.index import IndexedTrials, RecordedTrial
from lancebench.results.load import load_job_config, plan_key, read_plan
from lancebench.results.models import JobConfig, TrialConfig, TrialResult, Usage
from lancebench.results.paths import JobPaths
from lancebench.results.store import atomic_write, trial_id, write_json
from lancebench.runner.agent_phase import TrialSpec
from lancebench.runner.controls import RunControls, RunWatch
from lancebench.runner.executor import AgentRecipe, Executor, LocalExecutor
from lancebench.task.model import Task, VerifierNetwork
from lancebench.task.settings import with_verifier_network


class JobBusyError(LancebenchError):
    """Another run is writing the same job folder (it holds ``JOB/.lock``)."""


class ConfigMismatchError(ConfigError):
    """A run's configuration differs from the job's; ``differences`` lists ``field: job -> run``."""

    def __init__(self, job_json: Path, differences: list[str]):
        self.differences = differences
        super().__init__(f"{job_json}: this job was run with another configuration ("
                         + "; ".join(differences) + "). Trials of two configurations never mix in one job: "
                         "pass --new-job to start a new job, or --job-name NAME")


@dataclass
class JobOptions:
    """Options of ``lancebench run``: ``attempts`` per task (k), ``concurrency`` (trials at once),
    ``agent_timeout_sec`` overriding task.toml's, agent ``options`` (``max_steps``, ...), the
    ``backend`` by name and its settings ``backend_options`` (CA bundle, allowed host repositories)."""

    name: str
    jobs_dir: Path
    agent: AgentRecipe
    attempts: int = 1
    concurrency: int = 1
    backend: str = "local"
    backend_options: BackendOptions = field(default_factory=BackendOptions)
    executor: str = "local"
    executor_options: dict = field(default_factory=dict)
    retry_invalid: bool = False
    agent_timeout_sec: float | None = None
    sources: list[str] = field(default_factory=list)
    task_filters: list[str] = field(default_factory=list)
    limit: int | None = None
    senior: JudgeSettings | None = None  # --judge-model: senior grading of every code trial
    controls: RunControls = field(default_factory=RunControls)  # run-level budgets and stops (not compared)
    verifier_network: VerifierNetwork = "harbor"  # --verifier-network (the tasks carry it: task.settings)
    timeout_multiplier: float = 1.0  # --timeout-multiplier: the tasks come scaled; also scales agent_timeout_sec

    @property
    def agent_label(self) -> str:
        return self.agent.spec

    def trial_config(self) -> TrialConfig:
        """The configuration every trial of this run records (see :class:`TrialConfig`)."""
        return TrialConfig(agent=self.agent_label, agent_options=dict(self.agent.options), model=self.agent.model,
                           api_base=self.agent.api_base, backend=self.backend,
                           agent_timeout_sec=self.agent_timeout_sec,
                           judge_model=self.senior.model if self.senior else None,
                           verifier_network=self.verifier_network, lancebench_version=__version__,
                           timeout_multiplier=self.timeout_multiplier)

    def agent_identity(self, task: Task) -> str:
        """The agent part of a trial's identity: its label, plus a digest of what it will do when
        that is given as data (a script's content, a prediction's patch), so that changing the
        script or the patch makes a new trial instead of keeping a stale one."""
        fingerprint = getattr(self.agent.instance, "fingerprint", None)
        if callable(fingerprint):
            return f"{self.agent_label}@{fingerprint(task.name)}"
        if self.agent.spec.startswith("script:"):
            script = Path(self.agent.spec.removeprefix("script:"))
            if script.is_file():
                return f"{self.agent_label}@{hashlib.sha256(script.read_bytes()).hexdigest()[:12]}"
        return self.agent_label


def make_executor(name: str, **options) -> Executor:
    """The executor that runs a job's trials, by name: ``local`` (:class:`LocalExecutor`) or ``ray``
    (:class:`~lancebench.runner.ray_executor.RayExecutor`, options: ``address``, ``num_cpus``,
    ``runtime_env``, ``cpus_per_trial``, ``max_retries``). Raises :class:`ConfigError` for other
    names (and, from ``RayExecutor``, for bad options)."""
    if name == "local":
        return LocalExecutor()
    if name == "ray":
        # Ray is optional: imported only when chosen
        from lancebench.runner.ray_executor import RayExecutor
        return RayExecutor(**options)
    raise ConfigError(f"unknown executor '{name}'; choose local or ray")


def plan(tasks: list[Task], opts: JobOptions) -> tuple[list[TrialSpec], list[RecordedTrial]]:
    """(trials to run, trials already recorded and kept) for this job. The recorded trials are
    read from the job's index (:meth:`lancebench.results.index.IndexedTrials.recorded`: id, task,
    attempt, status, usage, configuration fingerprint), which parses only the ``result.json``
    files it has not seen or that changed behind its back (all of them when the index is missing
    or unusable), never a result it holds."""
    paths = JobPaths(opts.jobs_dir / opts.name)
    scratch = sub("scratch") / hashlib.sha256(str(paths.root.resolve()).encode()).hexdigest()[:12]
    planned = [(task, attempt, trial_id(task.name, task.digest, opts.agent_identity(task), opts.agent.model, attempt))
               for task in tasks for attempt in range(opts.attempts)]
    recorded = _recorded(paths, [tid for _, _, tid in planned])
    todo, kept = [], []
    for task, attempt, tid in planned:
        old = recorded.get(tid)
        if old is not None and not (opts.retry_invalid and old.status == "invalid"):
            kept.append(old)
            continue
        todo.append(TrialSpec(task=task, config=opts.trial_config(), attempt=attempt, job=opts.name, trial_id=tid,
                              paths=paths.trial(tid), scratch=scratch / tid, senior=opts.senior))
    return todo, kept


def _recorded(paths: JobPaths, trial_ids: list[str]) -> dict[str, RecordedTrial]:
    """The recorded trials among ``trial_ids``, by id (none when the job folder is new)."""
    if not paths.trials.is_dir():
        return {}
    with IndexedTrials(paths.root, trial_ids) as index:
        return {r.trial_id: r for r in index.recorded()}


def kept_results(paths: JobPaths, kept: Sequence[RecordedTrial]) -> list[TrialResult]:
    """The full results of the ``kept`` trials of :func:`plan`, in their order (read through the
    index). Raises :class:`lancebench.errors.ResultsError` as the index does."""
    if not kept:
        return []
    with IndexedTrials(paths.root, [r.trial_id for r in kept]) as index:
        return index.results()


def merged_plan(paths: JobPaths, todo: list[TrialSpec], kept: Sequence[RecordedTrial | TrialResult]) -> list[str]:
    """The job's plan after this run: this run's trials, plus every earlier planned trial whose
    (task, attempt) this run does not plan anew (so ``-t A`` then ``-t B`` shows both; a trial
    of an older version of a task is superseded by the new version's)."""
    now = [s.trial_id for s in todo] + [r.trial_id for r in kept]
    replanned = {plan_key(t) for t in now}
    earlier = [t for t in (read_plan(paths.root) or []) if plan_key(t) not in replanned]
    return sorted(set(now) | set(earlier))


def _check_not_in_tasks(paths: JobPaths, tasks: Sequence[Task]) -> None:
    root = paths.root.resolve()
    for task in tasks:
        if root == task.paths.root or task.paths.root in root.parents:
            raise ConfigError(f"the job folder {paths.root} is inside the task folder {task.paths.root}; "
                              "pass -o with a folder outside your tasks")


def write_job_config(opts: JobOptions, task_errors: list[TaskError], tasks: Sequence[Task] = ()) -> JobPaths:
    """Create the job folder and write ``job.json`` (the latest run's options; ``created_at`` kept
    from the first run) and ``task_errors.json``.

    Raises :class:`ConfigMismatchError` when the job was run with another configuration (see
    :func:`check_same_config`), :class:`ConfigError` when the job folder lies inside a task folder
    (it would change the task's digest, so nothing would ever resume)."""
    paths = JobPaths(opts.jobs_dir / opts.name)
    _check_not_in_tasks(paths, tasks)
    old = _read_job_config(paths) if paths.job.is_file() else None
    config = opts.trial_config()
    if old is not None:
        check_same_config(paths, old, config)
    paths.trials.mkdir(parents=True, exist_ok=True)
    created = old.created_at if old is not None else None
    cfg = JobConfig(name=opts.name, attempts=opts.attempts, concurrency=opts.concurrency, backend=opts.backend,
                    sources=opts.sources, task_filters=opts.task_filters, limit=opts.limit,
                    lancebench_version=__version__, config=config, controls=opts.controls.recorded(),
                    **({"created_at": created} if created else {}))
    atomic_write(paths.job, cfg.model_dump_json(indent=2))  # the options of the latest run (see plan.json)
    write_json(paths.task_errors, [{"path": str(e.path), "key": e.key, "problem": e.problem, "fix": e.fix}
                                   for e in task_errors])
    return paths


def check_same_config(paths: JobPaths, old: JobConfig, config: TrialConfig) -> None:
    """Refuse a run whose configuration differs from the job's. A ``job.json`` of an older version
    (no ``config``) is compared on what it recorded: agent, model, agent options and backend.
    Raises :class:`ConfigMismatchError` listing each difference as ``field: job's -> this run's``."""
    recorded = old.config or TrialConfig(agent=old.agent, model=old.model, agent_options=old.agent_options,
                                         backend=old.backend, api_base=config.api_base,
                                         agent_timeout_sec=config.agent_timeout_sec)
    differences = recorded.differences(config)
    if differences:
        raise ConfigMismatchError(paths.job, differences)


def job_lock(paths: JobPaths) -> filelock.BaseFileLock:
    """The job's writer lock (``JOB/.lock``), acquired without waiting: raises :class:`JobBusyError`
    when another run holds it. Use as a context manager."""
    paths.root.mkdir(parents=True, exist_ok=True)
    lock = filelock.FileLock(paths.root / ".lock", timeout=0)
    try:
        lock.acquire()
    except filelock.Timeout:
        raise JobBusyError(f"{paths.root}: another lancebench run is writing this job; wait for it to end "
                           "(its results stay), or pass --new-job or --job-name NAME to run beside it") from None
    except OSError as exc:
        raise ConfigError(f"{paths.root}: cannot write the job folder ({exc.strerror or exc}); "
                          "pass -o with a folder you can write") from None
    return lock


def check_job(opts: JobOptions, tasks: Sequence[Task] = ()) -> None:
    """Refuse early, before anything starts: raises :class:`JobBusyError` when another run writes
    the job, :class:`ConfigMismatchError` when its configuration differs, :class:`ConfigError`
    when the job folder lies inside a task folder. Writes nothing but the lock file."""
    paths = JobPaths(opts.jobs_dir / opts.name)
    _check_not_in_tasks(paths, tasks)
    if paths.job.is_file():
        check_same_config(paths, _read_job_config(paths), opts.trial_config())
    if paths.root.is_dir():
        job_lock(paths).release()


def _read_job_config(paths: JobPaths) -> JobConfig:
    return load_job_config(paths.job)


async def run_job(tasks: list[Task], opts: JobOptions, *, on_result: Callable[[TrialResult], None] | None = None,
                  task_errors: list[TaskError] | None = None, with_kept: bool = True) -> list[TrialResult]:
    """Run every planned trial and return all results of the job (kept and new; only the new ones
    when ``with_kept`` is False, so that revisiting a finished job parses none of its results).

    Raises :class:`JobBusyError` when another run writes the job, :class:`ConfigMismatchError`
    when its configuration differs, :class:`lancebench.errors.ModelAuthError` when the model
    refuses the credentials or its quota is used up (trials already recorded stay recorded),
    :class:`lancebench.errors.RunStopped` when a run-level control (``opts.controls``) stopped it.
    The tasks are graded with ``opts.verifier_network`` (:func:`with_verifier_network`).
    """
    tasks = with_verifier_network(tasks, opts.verifier_network)
    paths = JobPaths(opts.jobs_dir / opts.name)
    lock = job_lock(paths)
    try:
        return await _run_locked(tasks, opts, paths, on_result, task_errors or [], with_kept)
    finally:
        lock.release()


async def _run_locked(tasks: list[Task], opts: JobOptions, paths: JobPaths,
                      on_result: Callable[[TrialResult], None] | None,
                      task_errors: list[TaskError], with_kept: bool = True) -> list[TrialResult]:
    write_job_config(opts, task_errors, tasks)
    todo, kept = plan(tasks, opts)
    write_json(paths.root / "plan.json", merged_plan(paths, todo, kept))
    results = kept_results(paths, kept) if with_kept else []

    def record(r: TrialResult) -> None:
        results.append(r)
        if on_result:
            on_result(r)

    executor = make_executor(opts.executor, **opts.executor_options)
    await _run_watched(opts, todo, kept, record,
                       lambda rec: executor.run(todo, opts.agent, opts.backend, opts.concurrency, rec,
                                                opts.backend_options))
    return results


async def _run_watched(opts: JobOptions, todo: list[TrialSpec], kept: Sequence[RecordedTrial],
                       record: Callable[[TrialResult], None], start: Callable[..., Any]) -> None:
    """Run the executor (``start(on_result)``) under the run-level controls: the per-model bound of
    calls in flight, and a stop (:class:`RunStopped`, listing the trials not run) when a budget or
    the invalid rate trips (:mod:`lancebench.runner.controls`)."""
    from lancebench.llm import pacing
    from lancebench.runner.spend import earlier_spend
    base = Usage()
    for r in kept:
        base = base + r.usage
    for spec in todo:
        base = base + (earlier_spend(spec.paths) or Usage())
    watch = RunWatch(opts.controls, base)

    def on_result(r: TrialResult) -> None:
        watch.add(r)
        record(r)

    with pacing.call_limit(opts.controls.max_calls_in_flight):
        reason = await watch.guard(start(on_result))
    if reason is not None:
        not_run = [f"{s.task.name}#{s.attempt}" for s in todo if not s.paths.result.is_file()]
        raise RunStopped(reason, not_run)

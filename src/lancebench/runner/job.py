"""A job: many trials (tasks x attempts for one agent and model), one results folder, resumable.

Running the same job again keeps finished trials (those with a ``result.json``) and reruns the
others; ``retry_invalid`` also reruns ``invalid`` ones. A trial's identity is its task's content
digest, agent, model and attempt (:func:`lancebench.results.store.trial_key`), not the whole job
configuration, so unrelated option changes don't block a resume.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lancebench import __version__
from lancebench.backends.options import BackendOptions
from lancebench.environment.cache import sub
from lancebench.errors import ConfigError, TaskError
from lancebench.judging.senior import JudgeSettings
from lancebench.results.models import JobConfig, TrialResult
from lancebench.results.paths import JobPaths
from lancebench.results.store import atomic_write, read_result, trial_id, write_json
from lancebench.runner.agent_phase import TrialSpec
from lancebench.runner.executor import AgentRecipe
from lancebench.runner.executors import make_executor
from lancebench.task.model import Task


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

    @property
    def agent_label(self) -> str:
        return self.agent.spec

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


def plan(tasks: list[Task], opts: JobOptions) -> tuple[list[TrialSpec], list[TrialResult]]:
    """(trials to run, results already recorded and kept) for this job."""
    paths = JobPaths(opts.jobs_dir / opts.name)
    scratch = sub("scratch") / hashlib.sha256(str(paths.root.resolve()).encode()).hexdigest()[:12]
    todo, kept = [], []
    for task in tasks:
        for attempt in range(opts.attempts):
            tid = trial_id(task.name, task.digest, opts.agent_identity(task), opts.agent.model, attempt)
            tp = paths.trial(tid)
            if tp.result.is_file():
                old = read_result(tp.result)
                if not (opts.retry_invalid and old.status == "invalid"):
                    kept.append(old)
                    continue
            todo.append(TrialSpec(task=task, agent_name=opts.agent_label, model=opts.agent.model, attempt=attempt,
                                  job=opts.name, trial_id=tid, paths=tp, scratch=scratch / tid,
                                  options=dict(opts.agent.options), agent_timeout_sec=opts.agent_timeout_sec,
                                  senior=opts.senior))
    return todo, kept


def write_job_config(opts: JobOptions, task_errors: list[TaskError], tasks: Sequence[Task] = ()) -> JobPaths:
    """Create the job folder and write ``job.json`` (the latest run's options; ``created_at`` kept
    from the first run) and ``task_errors.json``.

    Raises :class:`ConfigError` when the job folder was made by another agent or model (results
    of two agents must not mix in one job) or lies inside a task folder (it would change the
    task's digest, so nothing would ever resume)."""
    paths = JobPaths(opts.jobs_dir / opts.name)
    root = paths.root.resolve()
    for task in tasks:
        if root == task.paths.root or task.paths.root in root.parents:
            raise ConfigError(f"the job folder {paths.root} is inside the task folder {task.paths.root}; "
                              "pass -o with a folder outside your tasks")
    old = JobConfig.model_validate_json(paths.job.read_text()) if paths.job.is_file() else None
    if old is not None and (old.agent, old.model) != (opts.agent_label, opts.agent.model):
        raise ConfigError(f"{paths.job}: this job was run with agent {old.agent!r} and model {old.model!r}, "
                          f"not {opts.agent_label!r} and {opts.agent.model!r}; pass another --job-name")
    paths.trials.mkdir(parents=True, exist_ok=True)
    created = old.created_at if old is not None else None
    cfg = JobConfig(name=opts.name, agent=opts.agent_label, model=opts.agent.model, attempts=opts.attempts,
                    concurrency=opts.concurrency, backend=opts.backend, sources=opts.sources,
                    task_filters=opts.task_filters, limit=opts.limit, agent_options=opts.agent.options,
                    lancebench_version=__version__, **({"created_at": created} if created else {}))
    atomic_write(paths.job, cfg.model_dump_json(indent=2))  # the options of the latest run (see plan.json)
    write_json(paths.task_errors, [{"path": str(e.path), "key": e.key, "problem": e.problem, "fix": e.fix}
                                   for e in task_errors])
    return paths


async def run_job(tasks: list[Task], opts: JobOptions, *, on_result: Callable[[TrialResult], None] | None = None,
                  task_errors: list[TaskError] | None = None) -> list[TrialResult]:
    """Run every planned trial and return all results of the job (kept and new).

    Raises :class:`lancebench.errors.ModelAuthError` when the model refuses the credentials
    (trials already recorded stay recorded).
    """
    paths = write_job_config(opts, task_errors or [], tasks)
    todo, kept = plan(tasks, opts)
    # the trials of this run's plan: `show` and reports read these, not superseded ones
    write_json(paths.root / "plan.json", sorted([s.trial_id for s in todo] + [r.trial_id for r in kept]))
    results = list(kept)

    def record(r: TrialResult) -> None:
        results.append(r)
        if on_result:
            on_result(r)

    executor = make_executor(opts.executor, **opts.executor_options)
    await executor.run(todo, opts.agent, opts.backend, opts.concurrency, record, opts.backend_options)
    return results

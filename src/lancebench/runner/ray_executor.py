"""The ``ray`` executor: each trial runs as a Ray task on a cluster node, with that node's own
sandbox backend and environment cache; the result comes back to the driver, which alone writes
the job's results folder. Resume, reports and metrics are therefore the same as with ``local``.

Flow of one trial:

1. The driver ships the :class:`TrialSpec`, the :class:`AgentRecipe` (by name, so the worker
   rebuilds the agent), the backend's name and options (so ``--repo-path`` and ``--ca-bundle``
   reach every node) and the task folder (a tar, ``ray.put`` once per task
   digest). A worker that sees the task folder at the same path with the same digest (a local
   cluster, a shared filesystem) uses it in place; otherwise it unpacks the tar into
   ``$LANCEBENCH_HOME/ray-tasks/<digest>/``.
2. The worker runs :func:`lancebench.runner.executor.execute_trial` into a private folder under
   ``$LANCEBENCH_HOME/scratch/ray-<key>/<trial_id>/`` and returns the result's JSON plus a tar of
   the trial's other files (``patch.diff``, ``agent/``, ``verifier/``, ``error.txt``), then
   deletes that folder.
3. The driver replaces the trial folder with the unpacked files and writes ``result.json`` last
   (:func:`lancebench.results.store.write_result`, which adds its row to the results index), then
   calls ``on_result``.

While it runs, the worker sends each phase change of its trial (``environment``, ``agent``, ...)
to a small actor of the job (:class:`PhaseRelay`), which the driver reads every
:data:`PHASE_POLL_SEC` seconds into :mod:`lancebench.runner.progress`: the live status and the
plain progress lines show Ray trials as they show local ones.

Failures:

- :class:`ModelAuthError` on a worker stops the job: the driver cancels the trials in flight and
  raises it.
- A Ray task that fails for any other reason (its worker process killed or out of memory, its
  node lost, lancebench not importable on that node, ...) is *lost*: no ``result.json`` is
  written, so the next run of the job reruns it. It is never recorded as a result. The job goes
  on; each loss is printed when it happens and counted at the end (``RayExecutor.lost``).
- Ctrl-C (cancellation of :meth:`RayExecutor.run`) cancels the Ray tasks in flight: first
  gracefully (the worker's trial is interrupted and its sandboxes are stopped), then by force
  after :data:`CANCEL_GRACE_SEC`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import io
import os
import signal
import socket
import sys
import tarfile
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ray
import ray.exceptions

from lancebench.backends.options import BackendOptions
from lancebench.caches.cache import sub
from lancebench.errors import ConfigError, LancebenchError, ModelAuthError
from lancebench.results.models import TrialResult
from lancebench.results.paths import TrialPaths
from lancebench.results.store import write_result
from lancebench.runner import progress
from lancebench.runner.agent_phase import TrialSpec
from lancebench.runner.executor import AgentRecipe, OnResult, execute_trial
from lancebench.sandbox.fstree import remove_tree
from lancebench.task.model import Task, TaskPaths, tree_digest

CANCEL_GRACE_SEC = 15.0  # a cancelled trial's time to stop its sandboxes before its worker is killed
MAX_RETURNED_BYTES = 256 * 1024 * 1024  # trial files (besides result.json) a worker sends back, at most
MISSING_FILES_NOTE = "ray-files-not-returned.txt"
PHASE_POLL_SEC = 0.5  # how often the driver reads the phase changes workers reported


@dataclass(frozen=True)
class LostTrial:
    """A trial whose Ray task failed without a result (it will be rerun by the next run).

    ``reason``: the Ray error's type and first line, e.g. ``WorkerCrashedError: ...``."""

    trial_id: str
    task: str
    attempt: int
    reason: str


class RayExecutor:
    """Runs each trial as a Ray task (see the module docstring).

    - ``address``: a Ray cluster to connect to (``HOST:6379`` or ``auto``);
      when None, ``RAY_ADDRESS`` is used if set, else a local cluster is started for the job
      (``num_cpus`` CPUs, all by default) and shut down at its end. When Ray is already
      initialised in this process (``ray.init`` was called), that connection is used and left open.
    - ``runtime_env``: Ray runtime environment of the job (a dict, see Ray's docs), e.g.
      ``{"env_vars": {"LANCEBENCH_HOME": "/data/lb"}}``; when None, the JSON in the environment
      variable ``LANCEBENCH_RAY_RUNTIME_ENV`` is used if set. Ignored when Ray is already initialised.
    - ``cpus_per_trial``: Ray CPUs each trial reserves (a float; default 1). A node runs at most
      (its CPUs / this) trials at once; the job's concurrency bounds the trials in flight overall.
    - ``max_retries``: times Ray reruns a trial whose worker died (default 0: the trial is lost
      and rerun by the next run of the job).

    After :meth:`run`, ``lost`` lists the trials that were lost. Raises :class:`ConfigError` for a
    bad ``runtime_env`` (here) and when Ray cannot be started or reached (in :meth:`run`).
    """

    def __init__(self, address: str | None = None, num_cpus: int | None = None, *, runtime_env: dict | None = None,
                 cpus_per_trial: float = 1.0, max_retries: int = 0):
        if runtime_env is None and os.environ.get("LANCEBENCH_RAY_RUNTIME_ENV"):
            import json
            try:
                runtime_env = json.loads(os.environ["LANCEBENCH_RAY_RUNTIME_ENV"])
            except ValueError as exc:
                raise ConfigError(f"LANCEBENCH_RAY_RUNTIME_ENV is not JSON ({exc}); set it to a JSON object such as "
                                  '\'{"env_vars": {"LANCEBENCH_HOME": "/data/lb"}}\'') from exc
        if runtime_env is not None and not isinstance(runtime_env, dict):
            raise ConfigError(f"the Ray runtime_env must be a JSON object (a dict), got {type(runtime_env).__name__}")
        self.address = address
        self.num_cpus = num_cpus
        self.runtime_env = runtime_env
        self.cpus_per_trial = cpus_per_trial
        self.max_retries = max_retries
        self.lost: list[LostTrial] = []

    async def run(self, specs: list[TrialSpec], agent: AgentRecipe, backend: str, concurrency: int,
                  on_result: OnResult, options: BackendOptions | None = None) -> None:
        """Run every spec as a Ray task (the backend built there by name with ``options``), at most
        ``concurrency`` in flight; write each result into the driver's results folder and call
        ``on_result``. Raises :class:`ModelAuthError` (after cancelling the trials in flight) and
        whatever ``on_result`` or writing a result raises."""
        self.lost = []
        if not specs:
            return
        started = self._connect()
        try:
            await self._run(specs, agent, backend, options, max(concurrency, 1), on_result)
        finally:
            if started:
                ray.shutdown()
        if self.lost:
            _say(f"{len(self.lost)} trial(s) lost (their Ray task failed; no result recorded): run the same "
                 "command again to rerun them")

    def _connect(self) -> bool:
        """Initialise Ray unless it already is; True when this call did (so :meth:`run` shuts it down)."""
        if ray.is_initialized():
            return False
        import logging
        address = self.address or os.environ.get("RAY_ADDRESS") or None
        common: dict[str, Any] = dict(runtime_env=self.runtime_env, log_to_driver=False, logging_level=logging.WARNING)
        try:
            if address:
                ray.init(address=address, **common)
            else:
                # "local": a new cluster even when `ray start` left one on this machine (ours to stop)
                ray.init(address="local", num_cpus=self.num_cpus, include_dashboard=False, **common)
        except (ConnectionError, RuntimeError, ValueError, ray.exceptions.RayError) as exc:
            where = f"connect to the Ray cluster at {address}" if address else "start a local Ray cluster"
            hint = ("check that `ray start --head` runs there and the address and port are right; with token "
                    "authentication set RAY_AUTH_MODE=token and the cluster's token (RAY_AUTH_TOKEN or "
                    "~/.ray/auth_token) on this machine (docs/ray.md)") if address else "see the Ray logs in /tmp/ray"
            raise ConfigError(f"cannot {where}: {type(exc).__name__}: {_first_line(exc)}; {hint}") from exc
        return True

    async def _run(self, specs: list[TrialSpec], agent: AgentRecipe, backend: str, options: BackendOptions | None,
                   concurrency: int, on_result: OnResult) -> None:
        remote = _trial_task.options(num_cpus=self.cpus_per_trial, max_retries=self.max_retries,
                                     retry_exceptions=False)
        try:
            agent_ref = ray.put(agent)
        except (TypeError, ValueError, ray.exceptions.RayError) as exc:
            raise ConfigError(f"agent {agent.spec}: cannot be sent to Ray workers ({type(exc).__name__}: {exc}); "
                              "use an agent that the workers can build by name") from exc
        task_refs: dict[str, ray.ObjectRef] = {}
        queue = list(reversed(specs))
        pending: dict[asyncio.Future, tuple[ray.ObjectRef, TrialSpec]] = {}
        relay: Any = PHASE_RELAY.remote()
        try:
            while queue or pending:
                while queue and len(pending) < concurrency:
                    spec = queue.pop()
                    if spec.task.digest not in task_refs:
                        task_refs[spec.task.digest] = ray.put(_pack_task(spec.task))
                    progress.set_phase(spec.trial_id, "starting", task=spec.task.name, attempt=spec.attempt)
                    ref = remote.remote(spec, agent_ref, backend, task_refs[spec.task.digest], options, relay)
                    pending[asyncio.wrap_future(ref.future())] = (ref, spec)
                done, _ = await asyncio.wait(list(pending), timeout=PHASE_POLL_SEC,
                                             return_when=asyncio.FIRST_COMPLETED)
                await _read_phases(relay, {spec.trial_id for _, spec in pending.values()})
                refused: ModelAuthError | None = None
                for fut in done:  # record every finished trial before stopping the job
                    _, spec = pending.pop(fut)
                    progress.finished(spec.trial_id)
                    try:
                        result = self._settle(fut, spec)
                    except ModelAuthError as exc:
                        refused = refused or exc
                        continue
                    if result is not None:
                        on_result(result)
                if refused is not None:
                    raise refused
        finally:
            for _, spec in pending.values():
                progress.finished(spec.trial_id)
            if pending:
                _cancel([ref for ref, _ in pending.values()])
                for fut in pending:
                    fut.cancel()
            ray.kill(relay)

    def _settle(self, fut: asyncio.Future, spec: TrialSpec) -> TrialResult | None:
        """Record one finished Ray task: the result (written to disk), or a lost trial (None).
        Raises ModelAuthError when the worker reported one."""
        try:
            payload = fut.result()
        except ray.exceptions.RayTaskError as exc:  # a Python error in our worker code (not in the trial)
            cause = exc.cause if getattr(exc, "cause", None) is not None else exc
            self._lose(spec, f"{type(cause).__name__}: {_first_line(cause)}")
            return None
        except ray.exceptions.RayError as exc:  # the worker died, its node was lost, out of memory, cancelled
            self._lose(spec, f"{type(exc).__name__}: {_first_line(exc)}")
            return None
        if "auth_error" in payload:
            raise ModelAuthError(payload["auth_error"])
        return _record(spec, payload)

    def _lose(self, spec: TrialSpec, reason: str) -> None:
        self.lost.append(LostTrial(trial_id=spec.trial_id, task=spec.task.name, attempt=spec.attempt, reason=reason))
        _say(f"  {spec.task.name} #{spec.attempt}: lost ({reason[:300]}); it will be rerun by the next run")
        return None


# --- phases ----------------------------------------------------------------------------------

class PhaseRelay:
    """The phase changes workers report, kept until the driver reads them (a Ray actor of no CPU:
    :data:`PHASE_RELAY`): ``report(trial_id, phase)`` (calls of one worker are run in the order it
    made them), ``drain()`` returns the ``(trial_id, phase)`` pairs reported since the last drain,
    oldest first."""

    def __init__(self) -> None:
        self.changes: list[tuple[str, str]] = []

    def report(self, trial_id: str, phase: str) -> None:
        self.changes.append((trial_id, phase))

    def drain(self) -> list[tuple[str, str]]:
        changes, self.changes = self.changes, []
        return changes


PHASE_RELAY = ray.remote(num_cpus=0)(PhaseRelay)


async def _read_phases(relay, running: set[str]) -> None:
    """Pass the phase changes reported to ``relay`` into this process's
    :mod:`lancebench.runner.progress` (for the trials in ``running``). A relay that cannot be read
    (its actor lost) is left alone: the trials go on, shown in their last phase."""
    try:
        changes = await relay.drain.remote()
    except ray.exceptions.RayError:
        return
    for trial_id, phase in changes:
        if trial_id in running:
            progress.set_phase(trial_id, phase)


def _relay_phases(spec: TrialSpec, relay) -> Callable[[], None]:
    """On a worker: report each phase change of ``spec``'s trial to ``relay`` (None: report
    nothing) as it happens; returns the function that stops, after waiting (at most
    :data:`PHASE_POLL_SEC` x 10 seconds) until the relay has every report, so that the driver reads
    the last phase before the result."""
    if relay is None:
        return lambda: None
    sent: list = []

    def send(new: progress.TrialState, old: progress.TrialState | None) -> None:
        if (new.task, new.attempt) == (spec.task.name, spec.attempt):
            sent[:] = [relay.report.remote(spec.trial_id, new.phase)]

    unlisten = progress.listen(send)
    progress.set_phase(spec.trial_id, "starting", task=spec.task.name, attempt=spec.attempt)

    def stop() -> None:
        unlisten()
        progress.finished(spec.trial_id)
        try:
            ray.get(sent, timeout=PHASE_POLL_SEC * 10)
        except ray.exceptions.RayError:
            pass

    return stop


# --- worker side -----------------------------------------------------------------------------

@ray.remote
def _trial_task(spec: TrialSpec, agent: AgentRecipe, backend: str, task_tar: bytes,
                options: BackendOptions | None = None, relay=None) -> dict:
    """One trial on a Ray worker, its backend built by name with ``options``, its phase changes
    reported to ``relay`` (a :class:`PhaseRelay`, or None). Returns
    ``{"result": <TrialResult JSON>, "files": <tar bytes of the trial folder without result.json>,
    "node": hostname}``, or ``{"auth_error": message}``
    when the model refused the credentials. Other exceptions (a task folder that cannot be
    unpacked, ...) propagate and make the trial lost."""
    task = _local_task(spec.task, task_tar)
    base = worker_folder(spec)
    remove_tree(base)  # left by a worker killed while running this trial
    local = dataclasses.replace(spec, task=task, paths=TrialPaths(base / "trial"), scratch=base / "work")
    stop_relay = _relay_phases(spec, relay)
    try:
        try:
            result = _run_cancellable(execute_trial(local, agent, backend, options))
        except ModelAuthError as exc:
            return {"auth_error": str(exc)}
        return {"result": result.model_dump_json(indent=2), "files": _pack_trial(local.paths.root),
                "node": socket.gethostname()}
    finally:
        stop_relay()
        remove_tree(base)


def worker_folder(spec: TrialSpec) -> Path:
    """Where a worker runs ``spec`` on its node: ``$LANCEBENCH_HOME/scratch/ray-<key>/<trial_id>/``
    (``key``: 12 hex digits of the sha256 of the driver's job folder path), holding ``trial/`` (the
    trial's files) and ``work/`` (its scratch). Deleted when the trial ends; left behind by a worker
    killed mid-trial until the same trial runs on that node again."""
    key = hashlib.sha256(str(spec.paths.root.parent.parent).encode()).hexdigest()[:12]
    return sub("scratch") / f"ray-{key}" / spec.trial_id


def _run_cancellable(coro):
    """``asyncio.run(coro)``, cancelled as soon as Ray cancels the task. Ray's graceful cancel
    simulates SIGINT in the worker's main thread; asyncio's own SIGINT handling would only notice
    it when the event loop next wakes (minutes, for a trial waiting on a sandbox), so the signal is
    routed through the loop's wake-up fd to cancel the trial, whose clean-up then stops its
    sandboxes. The worker's SIGINT handler is restored afterwards."""
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if in_main else None

    async def main():
        me = asyncio.current_task()
        if in_main and me is not None:
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, me.cancel)
        return await coro

    try:
        return asyncio.run(main())
    finally:
        if in_main and previous is not None:
            signal.signal(signal.SIGINT, previous)


def _local_task(task: Task, task_tar: bytes) -> Task:
    """The task with paths valid on this node: the driver's folder when it is here with the same
    digest, else the shipped copy unpacked once per digest. Raises LancebenchError on a mismatch."""
    if task.paths.root.is_dir() and tree_digest(task.paths.root) == task.digest:
        return task
    dest = sub("ray-tasks") / task.digest
    if not dest.is_dir():
        tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{task.digest[:12]}."))
        try:
            with tarfile.open(fileobj=io.BytesIO(task_tar), mode="r:") as tar:
                tar.extractall(tmp, filter="tar")
            got = tree_digest(tmp)
            if got != task.digest:
                raise LancebenchError(f"task {task.name}: the copy sent to node {socket.gethostname()} has digest "
                                      f"{got[:12]}, not {task.digest[:12]}; was the task folder edited during the job?")
            os.chmod(tmp, 0o755)
            try:
                os.rename(tmp, dest)
            except OSError:
                if not dest.is_dir():  # another worker renamed its copy first: keep that one
                    raise
        finally:
            remove_tree(tmp)
    return dataclasses.replace(task, paths=TaskPaths(dest))


def _pack_task(task: Task) -> bytes:
    """The task folder as an uncompressed tar (paths relative to the folder)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:") as tar:
        for p in sorted(task.paths.root.rglob("*")):
            if p.is_symlink() or p.is_file():
                tar.add(p, p.relative_to(task.paths.root).as_posix(), recursive=False)
    return buf.getvalue()


def _pack_trial(root: Path) -> bytes:
    """Regular files of a trial folder except result.json, as a tar, at most MAX_RETURNED_BYTES of
    content; files beyond the cap (and symlinks, which are never sent) are listed in
    ``ray-files-not-returned.txt`` inside the tar."""
    buf, total, left_out = io.BytesIO(), 0, []
    with tarfile.open(fileobj=buf, mode="w:") as tar:
        for p in sorted(root.rglob("*")):
            rel = p.relative_to(root).as_posix()
            if rel == "result.json" or (p.is_dir() and not p.is_symlink()):
                continue
            if p.is_symlink() or not p.is_file():
                left_out.append(f"{rel}\tnot a regular file")
                continue
            size = p.stat().st_size
            if total + size > MAX_RETURNED_BYTES:
                left_out.append(f"{rel}\t{size} bytes over the {MAX_RETURNED_BYTES} byte cap")
                continue
            total += size
            tar.add(p, rel, recursive=False)
        if left_out:
            note = ("files of this trial left on the Ray worker (node "
                    f"{socket.gethostname()}) and deleted there:\n" + "\n".join(left_out) + "\n").encode()
            info = tarfile.TarInfo(MISSING_FILES_NOTE)
            info.size = len(note)
            tar.addfile(info, io.BytesIO(note))
    return buf.getvalue()


# --- driver side -----------------------------------------------------------------------------

def _record(spec: TrialSpec, payload: dict) -> TrialResult:
    """Write a worker's trial into the driver's results folder (files first, result.json last)."""
    result = TrialResult.model_validate_json(payload["result"])
    if result.trial_id != spec.trial_id:
        raise LancebenchError(f"Ray worker returned trial {result.trial_id} for {spec.trial_id}; "
                              "are the driver and the workers running the same lancebench version?")
    root = spec.paths.root
    if root.exists():
        remove_tree(root)  # an unfinished earlier run of this trial
    root.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(payload["files"]), mode="r:") as tar:
        tar.extractall(root, filter="data")
    write_result(spec.paths.result, result, payload["result"])
    return result


def _cancel(refs: list) -> None:
    """Cancel Ray tasks: gracefully (KeyboardInterrupt in the worker, so the trial stops its
    sandboxes), then by force for those still running after CANCEL_GRACE_SEC."""
    for ref in refs:
        ray.cancel(ref, force=False)
    rest = refs
    try:
        _, rest = ray.wait(refs, num_returns=len(refs), timeout=CANCEL_GRACE_SEC)
    finally:
        for ref in rest:
            ray.cancel(ref, force=True)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else "(no message)"


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)

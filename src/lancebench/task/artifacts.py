"""Which artifacts a collection pass takes, and where each lands, as Harbor 0.25 decides
(``harbor.models.task.artifacts``, ``harbor.trial.artifact_handler``).

A *collection set* is the task's ``artifacts`` followed by the step's (multi-step tasks), with
Harbor's conventional publish folder :data:`CONVENTION_SOURCE` first unless an entry names it.
An entry lands at ``destination`` when it has one, else at its ``source`` without the leading
``/`` (``/app/out.txt`` -> ``app/out.txt``), below the pass's ``artifacts/`` folder.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from lancebench.task.harbor import MAIN_SERVICE, ArtifactConfig, CollectHook, StepConfig
from lancebench.task.model import Task

#: Harbor's conventional folder where an agent publishes files (``EnvironmentPaths.artifacts_dir``).
CONVENTION_SOURCE = "/logs/artifacts"


def normalize(items: list[str | ArtifactConfig]) -> list[ArtifactConfig]:
    """Entries as tables (a string is ``source`` alone)."""
    return [ArtifactConfig(source=i) if isinstance(i, str) else i for i in items]


def is_main(entry: ArtifactConfig) -> bool:
    """The entry is collected from the agent's environment (service unset or ``main``)."""
    return entry.service in (None, MAIN_SERVICE)


def declares_artifacts(task: Task) -> bool:
    """The task (or one of its steps) lists artifacts or collect hooks: only then does a trial
    collect any (Harbor's publish folder alone is not collected for a task that lists none)."""
    steps = task.config.steps or []
    return bool(task.config.artifacts or task.config.verifier.collect) or any(
        s.artifacts or s.verifier.collect for s in steps)


def hooks_for(task: Task, step: StepConfig | None = None) -> list[CollectHook]:
    """The collect hooks of one collection pass: the task's ``[[verifier.collect]]``, then the
    step's, in order (Harbor's ``Trial._collect_hooks_for``)."""
    return [*task.config.verifier.collect, *(step.verifier.collect if step is not None else [])]


def collection_set(task: Task, step: StepConfig | None = None) -> list[ArtifactConfig]:
    """The entries of one collection pass (see the module docstring), in collection order."""
    entries = normalize([*task.config.artifacts, *(step.artifacts if step is not None else [])])
    if not any(is_main(e) and e.source.rstrip("/") == CONVENTION_SOURCE for e in entries):
        entries.insert(0, ArtifactConfig(source=CONVENTION_SOURCE))
    return entries


def host_relpath(entry: ArtifactConfig) -> PurePosixPath:
    """Where ``entry`` lands below ``artifacts/``: its ``destination``, else its ``source``,
    without root, empty and ``..`` parts (so nothing can land outside ``artifacts/``)."""
    parts = [p for p in PurePosixPath(entry.destination or entry.source).parts if p not in ("", "/", "..")]
    return PurePosixPath(*parts) if parts else PurePosixPath(".")


def overlaps(a: PurePosixPath, b: PurePosixPath) -> bool:
    """Two landing paths are equal or one holds the other (the later entry is then skipped)."""
    return a == b or a in b.parents or b in a.parents or str(a) == "." or str(b) == "."

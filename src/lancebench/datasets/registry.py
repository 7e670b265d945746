"""The registry of named datasets. A dataset yields task folders (Harbor layout); adapters write
theirs into a cache first. ``NAME:FILTER`` selects part of one: ``public``/``private`` (split),
``code``/``choice`` (kind), or a filter the adapter knows (``swelancer:manager``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lancebench.errors import DatasetError, TaskError
from lancebench.plugins import load_object
from lancebench.task.load import load_tasks
from lancebench.task.model import Task

MINI_DIR = Path(__file__).parent / "mini" / "tasks"
GENERIC_FILTERS = {"public": ("split", "public"), "private": ("split", "private"),
                   "code": ("kind", "code"), "choice": ("kind", "choice")}


@dataclass(frozen=True)
class Dataset:
    """A named dataset. ``folders(filter, source, repo_path, names)`` returns its task folders
    (``names``: ``-t`` globs an adapter may use to write only those tasks; None: all); adapter
    filters it does not know raise :class:`DatasetError`. ``filters`` lists the adapter's own
    filters; ``repo_path`` says whether it takes ``--repo-path``."""

    name: str
    description: str
    folders: Callable[[str | None, Path | None, Path | None, list[str] | None], list[Path]]
    filters: tuple[str, ...] = ()
    repo_path: bool = False


def _mini_folders(filt: str | None, source: Path | None, repo_path: Path | None, names: list[str] | None) -> list[Path]:
    if filt and filt not in GENERIC_FILTERS:
        raise DatasetError(f"dataset 'mini' has no filter '{filt}'; use one of {', '.join(GENERIC_FILTERS)}")
    if not MINI_DIR.is_dir():
        return []
    return sorted(p for p in MINI_DIR.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


def _adapter(spec: str) -> Callable[..., list[Path]]:
    def folders(filt: str | None, source: Path | None, repo_path: Path | None, names: list[str] | None) -> list[Path]:
        extras = {k: v for k, v in {"repo_path": repo_path, "names": names}.items() if v}
        return load_object(spec, "dataset adapter")(filt, source, **extras)
    return folders


def _release_folder(name: str) -> Callable[..., list[Path]]:
    """A dataset that ships as a folder (a clone of its public release, Harbor's layout, with or
    without ``dataset.toml``): ``--source PATH`` names it."""
    def folders(filt: str | None, source: Path | None, repo_path: Path | None, names: list[str] | None) -> list[Path]:
        if filt and filt not in GENERIC_FILTERS:
            raise DatasetError(f"dataset '{name}' has no filter '{filt}'; use one of {', '.join(GENERIC_FILTERS)}")
        if source is None:
            raise DatasetError(f"dataset '{name}' needs --source PATH: a clone of its public release")
        if not Path(source).is_dir():
            raise DatasetError(f"--source {source}: not a folder; pass a clone of the {name} release")
        return [Path(source)]
    return folders


DATASETS: dict[str, Dataset] = {
    "mini": Dataset("mini", "bundled: real bugs and features in PyPI and npm projects, browser tasks, manager tasks",
                    _mini_folders),
    "swelancer": Dataset("swelancer",
                         "SWE-Lancer Diamond (manager tasks run anywhere; IC tasks need the official images)",
                         _adapter("lancebench.datasets.swelancer.adapter:task_folders"), ("manager", "ic"),
                         repo_path=True),
    "senior-swe-bench": Dataset("senior-swe-bench",
                                "Senior SWE-Bench as it ships (Harbor tasks; --source PATH: a clone of the public "
                                "release; dataset.toml digests verified)", _release_folder("senior-swe-bench")),
}


def parse_name(name: str) -> tuple[str, str | None]:
    base, _, filt = name.partition(":")
    return base, (filt or None)


def load_dataset(name: str, *, source: Path | None = None, repo_path: Path | None = None,
                 names: list[str] | None = None) -> tuple[list[Task], list[TaskError]]:
    """Load the tasks of ``NAME[:FILTER]``; ``source``, ``repo_path`` and ``names`` (task name
    globs; the caller still filters by them) go to its adapter.
    Returns (tasks, task errors). Raises :class:`DatasetError` for an unknown name or filter,
    or a ``repo_path`` given to a dataset that takes none."""
    base, filt = parse_name(name)
    if base not in DATASETS:
        raise DatasetError(f"unknown dataset '{base}'; known: {', '.join(DATASETS)} (or pass -p PATH)")
    ds = DATASETS[base]
    if repo_path is not None and not ds.repo_path:
        raise DatasetError(f"dataset '{base}' takes no --repo-path (swelancer does: a clone of Expensify/App)")
    folders = ds.folders(filt, source, repo_path, names)
    tasks, errors = load_tasks(folders, dataset=base) if folders else ([], [])
    if filt in GENERIC_FILTERS:
        field, value = GENERIC_FILTERS[filt]
        tasks = [t for t in tasks if getattr(t, field) == value]
    return tasks, errors

"""Harbor datasets: a folder with ``dataset.toml`` (Harbor's manifest: ``[dataset]`` and
``[[tasks]]`` entries of ``name = "org/name"`` and ``digest = "sha256:<hex>"``) whose tasks are
checked against their pinned digests before anything runs.

The digest is Harbor 0.25's packager content hash (``harbor.publisher.packager.Packager``):
the files ``task.toml``, ``instruction.md``, ``README.md``, ``trajectory.json`` and everything
under ``environment/``, ``tests/``, ``solution/`` and ``steps/`` (symlinked folders are not
entered; ``.harborignore`` rules under ``tests/`` and ``solution/`` exclude files there), minus the
task's ``.gitignore`` patterns (or Harbor's defaults: ``__pycache__/``, ``*.pyc``, ``.DS_Store``,
``*.swp``, ``*.swo``, ``*~``); then sha256 over ``"<relative path>\\0<sha256 of the file>\\n"``
in path order.
"""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

import pathspec

from lancebench.errors import TaskError

DEFAULT_IGNORES = ["__pycache__/", "*.pyc", ".DS_Store", "*.swp", "*.swo", "*~"]
_SINGLE = ("task.toml", "instruction.md", "README.md", "trajectory.json")
_TREES = ("environment", "tests", "solution", "steps")
_IGNORE_SCOPE = pathspec.GitIgnoreSpec.from_lines(["/tests/", "/solution/", "/steps/*/tests/", "/steps/*/solution/"])


def _harborignored(root: Path, path: Path) -> bool:
    """``path`` is excluded by a ``.harborignore`` of a folder above it, inside a tests/solution scope."""
    rel = path.relative_to(root)
    if rel.name == ".harborignore":
        return True
    if not _IGNORE_SCOPE.match_file(rel.as_posix()):
        return False
    excluded = False
    folder = root
    for part in rel.parts[:-1]:
        folder = folder / part
        ignore = folder / ".harborignore"
        if _IGNORE_SCOPE.match_file(folder.relative_to(root).as_posix() + "/") and ignore.is_file():
            spec = pathspec.GitIgnoreSpec.from_lines(ignore.read_text().splitlines())
            match = spec.check_file(path.relative_to(folder).as_posix())
            if match.include is not None:
                excluded = bool(match.include)
    return excluded


def _walk(folder: Path):
    for path in sorted(folder.iterdir()):
        yield path
        if path.is_dir() and not path.is_symlink():
            yield from _walk(path)


def content_digest(task_dir: Path) -> str:
    """Harbor's packager digest of ``task_dir`` as ``sha256:<hex>`` (see the module docstring)."""
    root = task_dir.resolve()
    files = [root / name for name in _SINGLE if (root / name).exists()]
    for tree in _TREES:
        if (root / tree).is_dir():
            files += [p for p in _walk(root / tree) if p.is_file() and not _harborignored(root, p)]
    gitignore = root / ".gitignore"
    lines = gitignore.read_text().splitlines() if gitignore.exists() else DEFAULT_IGNORES
    spec = pathspec.PathSpec.from_lines("gitignore", lines)
    files = sorted((f for f in files if not spec.match_file(f.relative_to(root).as_posix())),
                   key=lambda f: f.relative_to(root).as_posix())
    outer = hashlib.sha256()
    for f in files:
        outer.update(f"{f.relative_to(root).as_posix()}\0{hashlib.sha256(f.read_bytes()).hexdigest()}\n".encode())
    return "sha256:" + outer.hexdigest()


def _package_name(task_dir: Path) -> str | None:
    try:
        raw = tomllib.loads((task_dir / "task.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    task = raw.get("task")
    return task.get("name") if isinstance(task, dict) else None


def check_manifest(folder: Path, task_dirs: list[Path]) -> tuple[list[Path], list[TaskError]]:
    """The task folders ``folder/dataset.toml`` lists, each found by its ``[task] name`` (or its
    folder name = the name after ``org/``) among ``task_dirs`` and checked against its digest.
    Returns (the folders whose digest matches, one :class:`TaskError` per missing task or
    digest mismatch, naming ``dataset.toml``, the task and the fix)."""
    manifest = folder / "dataset.toml"
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [], [TaskError(manifest, f"unreadable: {exc}", fix="fix the TOML")]
    by_name: dict[str, Path] = {}
    for d in task_dirs:
        by_name.setdefault(_package_name(d) or "", d)
        by_name.setdefault(d.name, d)
    ok: list[Path] = []
    errors: list[TaskError] = []
    for i, ref in enumerate(data.get("tasks") or []):
        name, digest = ref.get("name", ""), ref.get("digest", "")
        found = by_name.get(name) or by_name.get(name.split("/")[-1])
        key = f"tasks[{i}]"
        if found is None:
            errors.append(TaskError(manifest, f"task {name} is not in {folder}", key=key,
                                    fix="download the task into the dataset folder, or remove it from dataset.toml"))
            continue
        actual = content_digest(found)
        if actual != digest:
            errors.append(TaskError(manifest, f"task {name} at {found} has digest {actual}, not the pinned {digest}",
                                    key=key, fix="the task folder changed since it was published: restore it, "
                                    "or run `harbor sync` to pin the new digest", task_dir=found))
            continue
        ok.append(found)
    return ok, errors

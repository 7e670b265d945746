"""Loading and validating task folders. Every problem is collected (not just the first), each as a
:class:`~lancebench.errors.TaskError` naming the file, the key and the fix."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ValidationError

from lancebench.errors import TaskError, TaskErrors
from lancebench.task.harbor_dataset import check_manifest
from lancebench.task.model import Task, TaskConfig, TaskPaths, hoist_lancebench_table, tree_digest
from lancebench.task.support import unknown_keys


def _model_at(loc: tuple, model: type[BaseModel] = TaskConfig) -> type[BaseModel] | None:
    """The pydantic model class that owns the field at ``loc`` (to list its allowed keys)."""
    for part in loc[:-1]:
        field = model.model_fields.get(str(part))
        if field is None:
            return None
        ann = field.annotation
        for cand in getattr(ann, "__args__", (ann,)):
            if isinstance(cand, type) and issubclass(cand, BaseModel):
                model = cand
                break
        else:
            return None
    return model


def _config_errors(toml_path: Path, exc: ValidationError) -> list[TaskError]:
    errors = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"])
        if err["type"] == "extra_forbidden":
            owner = _model_at(err["loc"])
            allowed = ", ".join(sorted(owner.model_fields)) if owner else "see the docs"
            errors.append(TaskError(toml_path, "unknown key", key=key, fix=f"allowed keys here: {allowed}"))
        else:
            msg = err["msg"].removeprefix("Value error, ")
            value = err.get("input")  # a whole table is not repeated: the message names the key in it
            errors.append(TaskError(toml_path, msg, key=key, fix=None if isinstance(value, dict) else f"got {value!r}"))
    return errors


def load_task(path: Path | str, *, dataset: str | None = None, name: str | None = None,
              lenient: bool = False) -> Task:
    """Load one task folder.

    Returns a :class:`Task`. Raises :class:`TaskErrors` listing every problem found: missing
    ``task.toml``/``instruction.md``/``tests/test.sh``, TOML syntax, unknown ``[lancebench]`` keys,
    keys unknown to Harbor's task model (with the closest known key; with ``lenient`` they are
    ignored, as ``tasks validate`` still reports), bad values, a choice task without
    ``[lancebench.choice]`` or ``tests/choice.json``.
    """
    paths = TaskPaths(Path(path).resolve())
    errors: list[TaskError] = []
    config: TaskConfig | None = None
    raw: dict = {}
    if not paths.root.is_dir():
        raise TaskErrors([TaskError(paths.root, "not a folder", fix="pass a task folder or a folder of tasks")])
    if not paths.task_toml.is_file():
        errors.append(TaskError(paths.task_toml, "missing", fix="every task needs a task.toml"))
    else:
        try:
            raw = tomllib.loads(paths.task_toml.read_text(encoding="utf-8"))
            config = TaskConfig.model_validate(raw)
        except tomllib.TOMLDecodeError as exc:
            errors.append(TaskError(paths.task_toml, f"invalid TOML: {exc}", fix="fix the syntax"))
        except UnicodeDecodeError:
            errors.append(TaskError(paths.task_toml, "not UTF-8 text", fix="save it as UTF-8"))
        except ValidationError as exc:
            errors.extend(_config_errors(paths.task_toml, exc))
        if not lenient and isinstance(raw, dict):
            errors.extend(_unknown_key_errors(paths.task_toml, raw))
    steps = config.steps if config is not None and config.steps else None
    instruction = ""
    if steps:
        instruction, step_errors = _step_files(paths, [st.name for st in steps])
        errors.extend(step_errors)
    elif not paths.instruction.is_file():
        errors.append(TaskError(paths.instruction, "missing", fix="write the task's instruction in instruction.md"))
    else:
        instruction = paths.instruction.read_text(encoding="utf-8", errors="replace")
        if not instruction.strip():
            errors.append(TaskError(paths.instruction, "empty", fix="write the task's instruction"))
    lb_table = hoist_lancebench_table(raw).get("lancebench")
    raw_lb = lb_table if isinstance(lb_table, dict) else {}
    kind = config.lancebench.kind if config is not None else raw_lb.get("kind", "code")
    if kind != "choice" and not steps and not paths.test_sh.is_file():
        errors.append(TaskError(paths.test_sh, "missing", fix="a code task needs tests/test.sh, its verifier"))
    if config is not None:
        lb = config.lancebench
        if lb.kind == "choice":
            errors.extend(_choice_errors(paths, config))
        if lb.local is not None and lb.local.setup and not (paths.environment / lb.local.setup).is_file():
            errors.append(TaskError(paths.task_toml, f"setup script environment/{lb.local.setup} not found",
                                    key="lancebench.local.setup", fix="point it at a script inside environment/"))
        if lb.local is not None and lb.local.checkout is not None and not lb.local.checkout.repo.startswith("/"):
            errors.append(TaskError(paths.task_toml, "must be an absolute path", key="lancebench.local.checkout.repo",
                                    fix="name the repository on this machine by its absolute path"))
        if not lb.workdir.startswith("/"):
            errors.append(TaskError(paths.task_toml, "must be an absolute path", key="lancebench.workdir"))
    if errors:
        for e in errors:
            e.task_dir = paths.root
        raise TaskErrors(errors)
    assert config is not None
    return Task(name=name or paths.root.name, paths=paths, config=config, instruction=instruction,
                digest=tree_digest(paths.root), dataset=dataset, harbor=not isinstance(lb_table, dict))


def _unknown_key_errors(toml_path: Path, raw: dict) -> list[TaskError]:
    """A key Harbor's task model does not define is an error (issue 28: ``[agent] timeout_secs``
    passed and the default timeout applied in silence), naming the closest known key."""
    errors = []
    for key, close in unknown_keys(raw):
        hint = f"did you mean '{close}'? or, " if close else ""
        errors.append(TaskError(toml_path, "unknown key (not in Harbor's task model)", key=key,
                                fix=f"{hint}for a task written for another Harbor version, pass --lenient to "
                                    "ignore unknown keys"))
    return errors


def _step_files(paths: TaskPaths, names: list[str]) -> tuple[str, list[TaskError]]:
    """A multi-step task's files (Harbor's layout): ``steps/<name>/instruction.md`` for each step,
    and a verifier, ``steps/<name>/tests/test.sh`` or the shared ``tests/test.sh``. Returns (the
    first step's instruction, problems)."""
    errors, first = [], ""
    for name in names:
        step = paths.root / "steps" / name
        instruction = step / "instruction.md"
        if not instruction.is_file() or not instruction.read_text(encoding="utf-8", errors="replace").strip():
            errors.append(TaskError(instruction, "missing or empty", fix=f"write step {name}'s instruction there"))
        elif not first:
            first = instruction.read_text(encoding="utf-8", errors="replace")
        if not (step / "tests" / "test.sh").is_file() and not paths.test_sh.is_file():
            errors.append(TaskError(step / "tests" / "test.sh", "missing (and no shared tests/test.sh)",
                                    fix=f"give step {name} a verifier"))
    return first, errors


def _choice_errors(paths: TaskPaths, config: TaskConfig) -> list[TaskError]:
    lb = config.lancebench
    if lb.choice is None:
        return [TaskError(paths.task_toml, "a choice task needs [lancebench.choice] with proposal_ids",
                          key="lancebench.choice", fix='add proposal_ids = [0, 1, 2]')]
    if not paths.choice_json.is_file():
        return [TaskError(paths.choice_json, "missing", fix='write {"correct_proposal_id": N} there')]
    try:
        correct = json.loads(paths.choice_json.read_text())["correct_proposal_id"]
    except (ValueError, KeyError, TypeError) as exc:
        return [TaskError(paths.choice_json, f"unreadable: {exc}", key="correct_proposal_id",
                          fix='write {"correct_proposal_id": N}')]
    if isinstance(correct, bool) or not isinstance(correct, int) or correct not in lb.choice.proposal_ids:
        return [TaskError(paths.choice_json, f"{correct!r} is not one of the proposal ids {lb.choice.proposal_ids}",
                          key="correct_proposal_id", fix="name exactly one of [lancebench.choice] proposal_ids")]
    return []


def _in_job_folder(folder: Path, root: Path) -> bool:
    """Whether ``folder`` (below ``root``) is, or is inside, a job's or a trial's folder (one holding
    ``job.json`` or ``result.json``, lancebench's or Harbor's), which is never a task."""
    for d in (folder, *folder.parents):
        if d == root or root not in d.parents:
            return False
        if (d / "job.json").is_file() or (d / "result.json").is_file():
            return True
    return False


def discover_task_dirs(path: Path | str) -> list[Path]:
    """Task folders at ``path``: the folder itself if it holds ``task.toml``, else every folder
    below it that holds one (sorted). A folder below that has ``instruction.md`` or ``tests/`` but
    no ``task.toml`` is returned too, so that loading reports it instead of skipping it, unless it
    is in a job's folder (:func:`_in_job_folder`: a trial keeps its instruction)."""
    root = Path(path)
    if (root / "task.toml").is_file():
        return [root]
    found = set()
    for marker in ("task.toml", "instruction.md", "tests/test.sh"):
        for p in root.rglob(marker):
            d = p.parent if marker != "tests/test.sh" else p.parent.parent
            if marker != "task.toml" and _in_job_folder(d, root):
                continue  # a trial's copy of its instruction (``run -p .`` beside job folders)
            if not any(parent in found for parent in d.parents):
                found.add(d)
    return sorted(d for d in found if not any(o != d and o in d.parents for o in found))


def load_tasks(paths: Sequence[Path | str], *, dataset: str | None = None,
               lenient: bool = False) -> tuple[list[Task], list[TaskError]]:
    """Load every task under ``paths``. Returns (tasks, errors): broken tasks are reported in
    ``errors`` and the others still load. A path that does not exist is an error too. A folder
    holding Harbor's ``dataset.toml`` yields the tasks it lists, each checked against its pinned
    digest (:func:`lancebench.task.harbor_dataset.check_manifest`). ``lenient``: see :func:`load_task`."""
    tasks: list[Task] = []
    errors: list[TaskError] = []
    for p in paths:
        if not Path(p).exists():
            errors.append(TaskError(p, "does not exist", fix="check the path"))
            continue
        if Path(p).is_file():
            errors.append(TaskError(p, "is a file, not a task folder",
                                    fix=f"pass the folder holding task.toml: {Path(p).parent}"))
            continue
        dirs = discover_task_dirs(p)
        if (Path(p) / "dataset.toml").is_file():  # a Harbor dataset: only its tasks, digests verified
            dirs, manifest_errors = check_manifest(Path(p), dirs)
            errors.extend(manifest_errors)
        if not dirs and not (Path(p) / "dataset.toml").is_file():
            errors.append(TaskError(p, "no task folders found (no task.toml below it)", fix="pass a task folder"))
        for d in dirs:
            try:
                tasks.append(load_task(d, dataset=dataset, lenient=lenient))
            except TaskErrors as exc:
                errors.extend(exc.errors)
    return tasks, errors

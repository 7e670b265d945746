"""``lancebench export``: write tasks as Harbor task folders that Harbor's own task model loads.

Tasks are copied as they are, except that lancebench's ``[lancebench]`` table moves into Harbor's
free-form ``[metadata]`` as ``[metadata.lancebench]`` (``harbor lint`` rejects an unknown top-level
table; lancebench reads either place, so an exported task loads back the same). A choice task
(SWE-Lancer manager) gets a ``tests/test.sh``, in POSIX shell with ``grep``/``sed`` only, that
reads ``selected_proposal_id`` from the answer file and writes ``reward.txt`` (1 when it is the
id in ``tests/choice.json``, else 0), so Harbor can grade it.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import typer

from lancebench.commands.aliases import aliased
from lancebench.commands.common import console, out, print_task_errors, select_tasks
from lancebench.commands.preflight import check_output_folder
from lancebench.errors import LancebenchError
from lancebench.task.model import Task

CHOICE_TEST = """#!/bin/sh
# Written by `lancebench export`: grades a choice task as lancebench does (reward 1 for the
# right proposal id, else 0). The right id is in /tests/choice.json; the agent wrote its pick to
# {answer} as {{"selected_proposal_id": N}}.
id() {{
  pattern="\\"$1\\"[[:space:]]*:[[:space:]]*-\\?[0-9]\\+"
  grep -o "$pattern" "$2" 2>/dev/null | head -n 1 | sed 's/.*://; s/[[:space:]]//g'
}}
want=$(id correct_proposal_id /tests/choice.json)
got=$(id selected_proposal_id "{answer}")
if [ -n "$got" ] && [ "$got" = "$want" ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
"""


def export_task(task: Task, dest: Path) -> Path:
    """Copy ``task`` to ``dest/<name>`` as a Harbor task folder (see the module docstring).
    Returns the folder. Raises ``FileExistsError`` when it exists."""
    target = dest / task.name
    shutil.copytree(task.paths.root, target, symlinks=True)
    lancebench_into_metadata(target / "task.toml")
    if task.kind == "choice" and task.lb.choice is not None:
        answer = f"{task.lb.workdir.rstrip('/')}/{task.lb.choice.answer_file}"
        test = target / "tests" / "test.sh"
        test.write_text(CHOICE_TEST.format(answer=answer))
        test.chmod(0o755)
    return target


def lancebench_into_metadata(task_toml: Path) -> None:
    """Rewrite ``task_toml`` with its ``[lancebench]`` table as ``[metadata.lancebench]`` (the rest
    as it was, comments dropped); a file without the table is left untouched."""
    import tomli_w
    raw = tomllib.loads(task_toml.read_text(encoding="utf-8"))
    if "lancebench" not in raw:
        return
    table = raw.pop("lancebench")
    meta = raw.setdefault("metadata", {})
    raw["metadata"] = {**meta, "lancebench": table}
    task_toml.write_text(tomli_w.dumps(raw), encoding="utf-8")


def export(paths: list[Path] | None = typer.Option(None, "-p", "--path", help="Task folders or folders of tasks."),
           dataset: str | None = typer.Option(None, "-d", "--dataset",
                                              help="A dataset name (see `lancebench datasets`)."),
           task_glob: list[str] | None = typer.Option(None, "-t", "--task", help="Only tasks matching these globs."),
           output: Path = typer.Option(..., "-o", "--out", help="Folder to write the task folders into.")) -> None:
    """Write tasks as Harbor task folders (Harbor's task model loads each one).

    Example: lancebench export -d mini -o harbor-tasks/
    """
    try:
        check_output_folder(output)
        tasks, errors, _ = select_tasks(paths, dataset, task_glob, None)
    except LancebenchError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    print_task_errors(errors)
    output.mkdir(parents=True, exist_ok=True)
    taken = [t.name for t in tasks if (output / t.name).exists()]
    if taken:
        console.print(f"[red]error:[/red] {output} already holds {', '.join(taken[:5])}; choose an empty folder")
        raise typer.Exit(2)
    for task in tasks:
        export_task(task, output)
    out.print(f"{len(tasks)} task(s) written to {output}")
    if errors:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("export", cls=aliased("export"))(export)

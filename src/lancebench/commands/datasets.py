"""``lancebench datasets`` and ``lancebench check``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from lancebench.commands.aliases import aliased
from lancebench.commands.common import console, out, print_task_errors, run_async, select_tasks
from lancebench.datasets.registry import DATASETS, load_dataset
from lancebench.errors import ConfigError, LancebenchError
from lancebench.results.store import write_json
from lancebench.task.settings import verifier_network_choice


def _counts(name: str, source: Path | None) -> dict:
    ds = DATASETS[name]
    if name == "swelancer":
        from lancebench.datasets.swelancer.adapter import summary
        info = summary(source)
        info.setdefault("name", name)
        ic = info["by_variant"]["ic_swe"]
        info.setdefault("description",
                        f"{ds.description}; IC tasks with their image here: {ic['runnable']} of {ic['tasks']}")
        return info
    tasks, errors = load_dataset(name, source=source)
    return {"name": name, "description": ds.description, "tasks": len(tasks),
            "by_kind": dict(Counter(t.kind for t in tasks)), "by_split": dict(Counter(t.split for t in tasks)),
            "browser": sum(t.lb.browser for t in tasks), "total_price_usd": sum(t.price_usd for t in tasks),
            "errors": len(errors)}


def datasets(as_json: bool = typer.Option(False, "--json", help="Print JSON."),
             source: Path | None = typer.Option(None, "--source",
                                                help="Adapter input (e.g. the SWE-Lancer CSV).")) -> None:
    """List every dataset with its task count by kind and its total price.

    Examples:
      lancebench datasets
      lancebench datasets --json --source all_swelancer_tasks.csv
    """
    rows = []
    for name in DATASETS:
        try:
            rows.append(_counts(name, source))
        except (LancebenchError, ImportError) as exc:
            rows.append({"name": name, "description": DATASETS[name].description, "error": str(exc)})
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    table = Table(title="datasets")
    for col in ("name", "tasks", "by kind", "browser", "total price", "description"):
        table.add_column(col, overflow="fold")
    for r in rows:
        if "error" in r:
            table.add_row(r["name"], "-", "-", "-", "-",
                          f"{escape(r['description'])} [yellow]({escape(r['error'].splitlines()[0][:400])})[/]")
        else:
            kinds = ", ".join(f"{k}: {v}" for k, v in sorted(r.get("by_kind", {}).items()))
            table.add_row(r["name"], str(r["tasks"]), kinds, str(r.get("browser", "-")),
                          f"${r['total_price_usd']:,.0f}",
                          r["description"])
    out.print(table)


def check(
    path: list[Path] | None = typer.Option(None, "-p", "--path", help="A task folder or a folder of tasks."),
    dataset: str | None = typer.Option(None, "-d", "--dataset", help="A dataset name (e.g. mini)."),
    k: int = typer.Option(3, "-k", "--attempts", min=1, help="Oracle repeats in fresh sandboxes (flakiness)."),
    task_glob: list[str] | None = typer.Option(None, "-t", "--task", help="Only tasks matching (glob)."),
    exclude: list[str] | None = typer.Option(None, "-x", "--exclude", help="Leave out tasks matching (glob)."),
    backend: str = typer.Option("local", "--backend", help="local or docker."),
    concurrency: int = typer.Option(1, "-n", "--concurrency", min=1),
    jobs_dir: Path = typer.Option(Path("jobs"), "-o", "--jobs-dir", help="Where the check's trials go."),
    output: Path | None = typer.Option(None, "--json-out",
                                       help="Write the JSON verdict here (default JOBS_DIR/_check/<name>.json)."),
    source: Path | None = typer.Option(None, "--source", help="Adapter input (e.g. the SWE-Lancer CSV)."),
    ca_bundle: Path | None = typer.Option(None, "--ca-bundle", help="CA bundle passed into environment builds."),
    verifier_network: str = typer.Option("harbor", "--verifier-network",
                                         help="harbor (default) or none: no network for the verifier of a Harbor "
                                              "task that declares none (as on run)."),
) -> None:
    """Validate tasks: F2P fail and P2P pass on the base, the oracle resolves k times, nop resolves nothing.

    Exits 1 when any task fails. Examples:
      lancebench check -d mini
      lancebench check -p tests/fixtures/tasks/calc -k 5
    """
    from lancebench.commands.common import backend_options, runnable, slug
    from lancebench.commands.preflight import check_output_folder
    from lancebench.taskcheck.check import as_json, check_tasks
    settings = backend_options(ca_bundle)
    try:
        check_output_folder(jobs_dir)
        if output is not None:
            check_output_folder(output.parent, "--json-out")
        closed = verifier_network_choice(verifier_network)
        tasks, errors, label = select_tasks(path, dataset, task_glob, None, source, excludes=exclude)
        tasks, errors = runnable(tasks, errors, backend)  # a task the backend cannot run: one line, no trial
        print_task_errors(errors)
        if not tasks and not errors:
            raise ConfigError("no tasks selected")
        checks = run_async(check_tasks(tasks, k=k, backend=backend, jobs_dir=jobs_dir, label=slug(label),
                                       concurrency=concurrency, backend_options=settings,
                                       verifier_network=closed))
    except LancebenchError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None
    table = Table(title=f"check {label}")
    for col in ("task", "kind", "verdict", "oracle", "nop", "problems"):
        table.add_column(col, overflow="fold")
    for c in checks:
        table.add_row(c.task, c.kind, "[green]ok[/]" if c.ok else "[red]FAIL[/]", " ".join(c.oracle), c.nop or "-",
                      "; ".join(c.problems)[:400])
    out.print(table)
    verdict = as_json(checks)
    verdict["task_errors"] = [str(e) for e in errors]
    dest = output or jobs_dir / "_check" / f"{slug(label)}.json"
    write_json(dest, verdict)
    out.print(f"{sum(c.ok for c in checks)}/{len(checks)} tasks ok, {len(errors)} broken task folder(s); JSON: {dest}")
    if errors or not verdict["ok"]:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("datasets")(datasets)
    app.command("check", cls=aliased("check"))(check)

"""``lancebench calibrate``: can a task's senior grading and a judge model be trusted?"""

from __future__ import annotations

import dataclasses
import json
import secrets
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from lancebench.commands.common import console, out, print_task_errors, run_async, select_tasks
from lancebench.errors import ConfigError, LancebenchError, ModelAuthError
from lancebench.sandbox.fstree import remove_tree


def _print(cal: dict) -> None:
    out.print(f"[bold]{escape(cal['task'])}[/bold] (k={cal['k']})")
    for c in cal["checks"]:
        style = "green" if c["held"] == c["runs"] else "red"
        out.print(f"  [{style}]{c['held']}/{c['runs']}[/] {escape(c['name'])}", highlight=False)
        for reason in c["reasons"][:3]:
            out.print(f"      {escape(reason)}", highlight=False)
    for judge, statuses in cal["statuses"].items():
        out.print(f"  {judge}: " + ", ".join(f"{s} x{n}" for s, n in sorted(statuses.items())), highlight=False)
    if cal["spread"]:
        table = Table(title="score spread over ok runs")
        for col in ("score", "n", "min", "median", "max", "stdev"):
            table.add_column(col)
        for name, s in cal["spread"].items():
            table.add_row(name, str(s["n"]), f"{s['min']:g}", f"{s['median']:g}", f"{s['max']:g}", f"{s['stdev']:.3f}")
        out.print(table)


def calibrate(
    path: list[Path] = typer.Option(..., "-p", "--path", help="A task folder or a folder of tasks (repeatable)."),
    attempts: int = typer.Option(3, "-k", "--attempts", min=1, help="Runs of each check and judge."),
    judge_model: str = typer.Option(..., "--judge-model", help="Any litellm model name, or local."),
    judge_api_base: str | None = typer.Option(None, "--judge-api-base",
                                              help="Base URL of an OpenAI-compatible server."),
    task_glob: list[str] | None = typer.Option(None, "-t", "--task", help="Only tasks whose name matches (glob)."),
    backend: str = typer.Option("local", "--backend", help="Sandbox backend: local or docker."),
    as_json: bool = typer.Option(False, "--json", help="Print the calibration as JSON."),
    judge_max_turns: int = typer.Option(16, "--judge-max-turns", min=2, help="Model calls per judge conversation."),
    judge_max_tokens: int = typer.Option(1024, "--judge-max-tokens", min=16, help="Tokens per judge reply."),
    judge_timeout: float = typer.Option(600.0, "--judge-timeout", min=1, help="Seconds per judge conversation."),
) -> None:
    """Run the validation agent k times against the reference patch (must pass) and an empty patch
    (must fail), and the rubric and taste judges k times on the reference patch; print how often
    each check held and the spread of each score.

    Example:
      lancebench calibrate -k 3 --judge-model local \\
        -p src/lancebench/datasets/mini/tasks/texttable-bool-dtype
    """
    from lancebench.backends import make_backend
    from lancebench.caches.cache import sub
    from lancebench.commands.run import judge_settings
    from lancebench.judging.calibrate import calibrate as run_calibration
    from lancebench.llm import serving
    try:
        tasks, errors, _ = select_tasks(path, None, task_glob, None)
        print_task_errors(errors)
        if not tasks:
            raise ConfigError("no tasks selected" + (" (every task had errors)" if errors else ""))
        settings = judge_settings(judge_model, judge_api_base, max_turns=judge_max_turns,
                                  max_tokens=judge_max_tokens, timeout_sec=judge_timeout)
        assert settings is not None
        results = []
        with serving.model_endpoint(judge_model, judge_api_base, check=judge_api_base is None) as (name, base):
            settings = dataclasses.replace(settings, client_model=name, api_base=base)
            runner = make_backend(backend)
            scratch = sub("scratch") / f"calibrate-{secrets.token_hex(6)}"  # a place the sandbox user can read
            try:
                for task in tasks:
                    cal = run_async(run_calibration(settings, task, runner, attempts, scratch / task.name))
                    results.append(cal.as_dict())
                    if not as_json:
                        _print(cal.as_dict())
            finally:
                remove_tree(scratch)
    except ModelAuthError as exc:
        console.print(f"[red]stopped:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(3) from None
    except LancebenchError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None
    if as_json:
        print(json.dumps(results, indent=2))
    if errors:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("calibrate")(calibrate)

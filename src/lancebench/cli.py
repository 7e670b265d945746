"""The ``lancebench`` command line (typer). Each command group lives beside the code it drives and
registers itself here through a ``register(app)`` function."""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="lancebench",
    help="Run coding agents on real tasks in sandboxes, grade them with hidden tests, report pass@k and dollars.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

# Modules that define a ``register(app: typer.Typer) -> None`` adding their commands.
COMMAND_MODULES = (
    "lancebench.commands.tasks",
    "lancebench.commands.run",
    "lancebench.commands.datasets",
    "lancebench.report.cli",
    "lancebench.commands.analyze",
    "lancebench.commands.calibrate",
    "lancebench.commands.view",
    "lancebench.sandbox.docker_cli",
)


def _register_all() -> None:
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # a command group not written yet
                continue
            raise
        module.register(app)


@app.callback(invoke_without_command=True)
def _main(version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True)) -> None:
    """Run coding agents on real tasks in sandboxes, grade them with hidden tests, report pass@k and dollars."""
    if version:
        from lancebench import __version__
        print(f"lancebench {__version__}")
        raise typer.Exit()


_register_all()


def main() -> None:
    """Entry point of the ``lancebench`` script."""
    app()

"""The ``lancebench`` command line (typer). Every command lives in a module of
:mod:`lancebench.commands` that adds it through ``register(app)``; :data:`COMMAND_MODULES` is the
fixed list. A command module that cannot be imported is an error (:class:`CommandImportError`,
printed as one clear line by :func:`main`), never a command silently missing.

``app`` is built on first use (``from lancebench.cli import app``), so that :func:`main` can
report a broken installation instead of a traceback.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from types import ModuleType

import typer

from lancebench.errors import LancebenchError

HELP = "Run coding agents on real tasks in sandboxes, grade them with hidden tests, report pass@k and dollars."

# Modules that define a ``register(app: typer.Typer) -> None`` adding their commands, in help order.
COMMAND_MODULES = (
    "lancebench.commands.tasks",
    "lancebench.commands.run",
    "lancebench.commands.resume",
    "lancebench.commands.show",
    "lancebench.commands.predictions",
    "lancebench.commands.datasets",
    "lancebench.commands.report",
    "lancebench.commands.analyze",
    "lancebench.commands.calibrate",
    "lancebench.commands.view",
    "lancebench.commands.gc",
    "lancebench.commands.export",
)


class CommandImportError(LancebenchError):
    """A module of :data:`COMMAND_MODULES` failed to import or has no ``register(app)``."""


def _command_module(name: str) -> ModuleType:
    """Import one command module. Raises :class:`CommandImportError` naming it, the cause and the fix."""
    try:
        module = importlib.import_module(name)
    except Exception as exc:  # any failure (missing dependency, syntax error, error at import) is reported
        raise CommandImportError(
            f"the command module {name} cannot be imported ({type(exc).__name__}: {exc}); the installation "
            "is incomplete or broken: reinstall lancebench (pip install -e '.[local]') or fix that module") from exc
    if not callable(getattr(module, "register", None)):
        raise CommandImportError(f"the command module {name} has no register(app) function; add one that adds "
                                 "its commands to the app")
    return module


def _root(version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True)) -> None:
    """Run coding agents on real tasks in sandboxes, grade them with hidden tests, report pass@k and dollars."""
    if version:
        from lancebench import __version__
        print(f"lancebench {__version__}")
        raise typer.Exit()


def one_line_help(text: str) -> str:
    """The first paragraph of a command's help on one line: its line breaks and indentation become
    single spaces, so that the list of commands wraps it to the terminal's width (rich markup keeps
    a docstring's line breaks there, which broke sentences mid-way at 80 columns)."""
    return " ".join(inspect.cleandoc(text).split("\n\n")[0].split())


def _short_helps(application: typer.Typer) -> None:
    """Give every command of ``application`` (and of its groups) without a ``short_help`` the
    first paragraph of its help or docstring on one line (:func:`one_line_help`)."""
    for info in application.registered_commands:
        text = info.help or (inspect.getdoc(info.callback) if info.callback else None)
        if info.short_help is None and isinstance(text, str):
            info.short_help = one_line_help(text)
    for group in application.registered_groups:
        if group.typer_instance is not None:
            _short_helps(group.typer_instance)


def build_app(modules: tuple[str, ...] | None = None) -> typer.Typer:
    """The ``lancebench`` app with the commands of every module in ``modules`` (default:
    :data:`COMMAND_MODULES`). Raises :class:`CommandImportError` when one of them cannot be imported."""
    application = typer.Typer(name="lancebench", help=HELP, no_args_is_help=True, pretty_exceptions_enable=False,
                              add_completion=False,
                              # -h beside --help on every command and group (issue 28)
                              context_settings={"help_option_names": ["-h", "--help"]})
    application.callback(invoke_without_command=True)(_root)
    for name in COMMAND_MODULES if modules is None else modules:
        _command_module(name).register(application)
    _short_helps(application)
    return application


_app: typer.Typer | None = None


def __getattr__(name: str) -> typer.Typer:
    """``app``: the ``lancebench`` app, built once on first use (see :func:`build_app`)."""
    global _app
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _app is None:
        _app = build_app()
    return _app


def main() -> None:
    """Entry point of the ``lancebench`` script. Exits 1 with one line on standard error when a
    command module cannot be imported. An unexpected exception (a bug in lancebench, never a user
    error: those are :class:`lancebench.errors.LancebenchError`) prints one line and exits 70
    (sysexits' EX_SOFTWARE); its traceback goes to a file named in that line (docs/cli.md)."""
    try:
        application = __getattr__("app")
    except CommandImportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    try:
        application()
    except Exception as exc:  # noqa: BLE001 - the last resort; every user error is handled before
        import tempfile
        import traceback
        with tempfile.NamedTemporaryFile("w", prefix="lancebench-crash-", suffix=".txt", delete=False) as fh:
            traceback.print_exc(file=fh)
        print(f"internal error: {type(exc).__name__}: {exc} (a bug in lancebench; traceback in {fh.name})",
              file=sys.stderr)
        sys.exit(70)


if __name__ == "__main__":
    main()

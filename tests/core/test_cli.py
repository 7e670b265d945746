"""The command line registers a fixed list of command modules (lancebench/cli.py); one that cannot
be imported is a clear error, never a command silently missing."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import pytest
import typer.main

from lancebench.cli import COMMAND_MODULES, CommandImportError, build_app

# the README's "Everyday commands" table, plus analyze, calibrate and view
EXPECTED = {"run", "resume", "show", "grade", "check", "datasets", "report", "analyze", "calibrate", "view", "gc",
            "tasks", "predictions", "export"}


def command_names(app) -> set[str]:
    return set(typer.main.get_command(app).commands)


def test_every_command_module_is_under_commands_and_registers():
    assert all(name.startswith("lancebench.commands.") for name in COMMAND_MODULES)
    assert command_names(build_app()) == EXPECTED


def test_a_missing_command_module_is_an_error_naming_it():
    with pytest.raises(CommandImportError, match=r"lancebench\.commands\.no_such_command cannot be imported "
                                                 r"\(ModuleNotFoundError"):
        build_app((*COMMAND_MODULES, "lancebench.commands.no_such_command"))


def test_a_command_module_whose_dependency_is_missing_is_an_error(tmp_path, monkeypatch):
    (tmp_path / "lb_cmd_needs_dep.py").write_text("import lb_no_such_dependency\n\ndef register(app):\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(CommandImportError, match="lb_cmd_needs_dep cannot be imported .*lb_no_such_dependency"):
        build_app(("lb_cmd_needs_dep",))


def test_a_command_module_without_register_is_an_error(tmp_path, monkeypatch):
    (tmp_path / "lb_cmd_no_register.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(CommandImportError, match="lb_cmd_no_register has no register"):
        build_app(("lb_cmd_no_register",))


def test_the_script_prints_one_line_and_exits_1_instead_of_a_traceback():
    code = ("import lancebench.cli as cli; cli.COMMAND_MODULES += ('lancebench.commands.no_such_command',); "
            "cli.main()")
    proc = subprocess.run([sys.executable, "-c", code, "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: the command module lancebench.commands.no_such_command cannot be imported")
    assert "reinstall lancebench" in proc.stderr and proc.stdout == ""


def _every_command(group, path=()):
    """(path, click command) for the app and every command and group under it."""
    yield path, group
    for name, sub in getattr(group, "commands", {}).items():
        yield from _every_command(sub, (*path, name))


def test_minus_h_is_help_on_every_command():
    # before: -h was refused everywhere ("No such option: -h"; issue 28)
    from typer.testing import CliRunner

    app = build_app()
    paths = [path for path, _ in _every_command(typer.main.get_command(app))]
    assert ("tasks", "validate") in paths and ("run",) in paths  # the walk reaches groups' commands
    for path in paths:
        res = CliRunner().invoke(app, [*path, "-h"])
        assert res.exit_code == 0, (path, res.output)
        assert f"lancebench {' '.join(path)}".rstrip() in " ".join(res.output.split()), (path, res.output)
        assert "--help" in res.output, path


def _help_at(width: int, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("LINES", "TERMINAL_WIDTH")}
    proc = subprocess.run([sys.executable, "-m", "lancebench.cli", *args, "--help"], capture_output=True, text=True,
                          timeout=120, env={**env, "COLUMNS": str(width), "NO_COLOR": "1", "TERM": "dumb"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _panel_entries(text: str, title: str) -> dict[str, list[str]]:
    """The lines of each command's description in the ``title`` panel of a help text."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if f"─ {title} " in line)
    entries: dict[str, list[str]] = {}
    name = ""
    for line in lines[start + 1:]:
        if line.startswith("╰"):
            break
        inner = line.strip("│").rstrip()
        if inner.startswith(" ") and not inner.startswith("  "):  # "│ run   Run an agent..."
            name, _, desc = inner.strip().partition(" ")
            entries[name] = [desc.strip()]
        else:  # a continuation line of the description
            entries[name].append(inner.strip())
    return entries


@pytest.mark.parametrize("args", [(), ("tasks",)])
def test_command_list_wraps_sentences_to_the_width_not_mid_way(args):
    # before: `lancebench --help` at 80 columns broke run's help after "Running the same command again
    # resumes;" (the docstring's own line break kept by rich markup), leaving half-empty lines
    width = 80
    text = _help_at(width, *args)
    entries = _panel_entries(text, "Commands")
    assert "run" in entries or "validate" in entries
    app = build_app()
    group = typer.main.get_command(app)
    for name in args:
        group = group.commands[name]
    for name, desc_lines in entries.items():
        expected = " ".join(group.commands[name].help.split("\n\n")[0].split())
        assert " ".join(desc_lines) == expected, name  # the whole first paragraph, in order
        room = max(len(line) for lines in entries.values() for line in lines)  # the description column's width
        for line, after in itertools.pairwise(desc_lines):
            # greedy wrapping: a line breaks only where the next word would not fit
            assert len(line) + 1 + len(after.split()[0]) > room - 1, (name, line, after)


def test_run_help_lists_every_agent_the_registry_knows():
    # before: -a's help named oracle, nop, random, script:PATH, mini-swe-agent and module:Class only; the
    # installed agents (Claude Code, Codex, Aider, opencode) that -a accepts were not in `run --help`
    from lancebench.agents.registry import BUILTIN, INSTALLED, LLM_AGENTS, agent_names
    text = _help_at(400, "run")
    line = next(line for line in text.splitlines() if "--agent" in line)
    for name in [*agent_names(), *BUILTIN, *LLM_AGENTS, *INSTALLED]:
        assert name in line, name
    assert {"claude-code", "codex", "aider", "opencode"} <= set(INSTALLED)

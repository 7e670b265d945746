"""Hidden option aliases: old spellings kept after an option got its one spelling across commands,
and Harbor's names for the same options (issue 28). An alias is rewritten to the option's own
spelling before the command's options are parsed, so it behaves exactly as that option; it is left
out of ``--help`` (docs/cli.md lists the aliases).

The one spelling of each short option, in every command that has it: ``-p/--path``,
``-d/--dataset``, ``-t/--task``, ``-x/--exclude``, ``-k/--attempts``, ``-n/--concurrency``,
``-o`` (``--jobs-dir`` where a command writes job folders, ``--out`` where it writes a file or a
folder of files), ``-f/--format``, ``-q/--quiet``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from typer.core import TyperCommand

# Harbor's `harbor run` names of options `lancebench run` has under another name
HARBOR_RUN = {
    "--n-attempts": "--attempts",
    "--n-concurrent": "--concurrency",
    "--n-tasks": "--limit",
    "--include-task-name": "--task",
    "-i": "--task",
    "--exclude-task-name": "--exclude",
    "--ak": "--agent-option",
    "--agent-kwarg": "--agent-option",
    "--silent": "--quiet",
}

# per command: hidden alias -> the option's one spelling
ALIASES: dict[str, dict[str, str]] = {
    "run": HARBOR_RUN,
    "resume": {"--n-concurrent": "--concurrency", "--silent": "--quiet", "-p": "JOB", "--job-path": "JOB"},
    "grade": {"--n-concurrent": "--concurrency"},
    "check": {"--n-concurrent": "--concurrency"},
    "export": {"--output": "--out"},                 # was export's own spelling of -o
    "analyze": {"--api-base": "--judge-api-base"},   # run and calibrate name it --judge-api-base
}


def canonical_args(args: Sequence[str], aliases: Mapping[str, str]) -> list[str]:
    """``args`` with each alias (``--alias`` or ``--alias=VALUE``) rewritten to its option's
    spelling, up to a ``--`` (after which every word is a value). An alias mapped to ``JOB`` is
    dropped, leaving its value as the command's argument (Harbor's ``resume -p JOB``)."""
    out: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            return out + list(args[i:])
        name, sep, value = arg.partition("=")
        target = aliases.get(name) if name.startswith("-") else None
        if target == "JOB":
            if sep:
                out.append(value)
            continue
        out.append(arg if target is None else target + sep + value)
    return out


def aliased(command: str) -> type[TyperCommand]:
    """A typer command class that accepts the hidden aliases of ``command`` (see :data:`ALIASES`);
    pass it as ``app.command(name, cls=aliased(name))``."""
    aliases = ALIASES.get(command, {})

    class AliasedCommand(TyperCommand):
        def parse_args(self, ctx, args: list[str]) -> list[str]:
            return super().parse_args(ctx, canonical_args(args, aliases))

    return AliasedCommand

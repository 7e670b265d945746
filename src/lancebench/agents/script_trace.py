"""A ``script:`` agent's commands as a trajectory: a shell trace recorded while the script runs,
so ``lancebench analyze`` and the site see what it did, as they see an LLM agent's steps.

The script runs under :data:`WRAPPER`: bash with a ``DEBUG`` trap that, before each top-level
command, appends one line to the trace (``/tmp/lancebench/trace/trace``, file descriptor 9)::

    <exit status of the previous command> TAB <bytes on stdout so far> TAB <bytes on stderr so far>
    TAB <the command about to run, its new lines written as U+001E>

The script's stdout and stderr go to files of the same folder, and their sizes so far are read
from ``/proc/$BASHPID/fdinfo`` (a builtin ``read``, no process per command), so each command's
exit status and output (size and text) follow from the next line or, for the last command, from
the script's exit code and the files' final sizes. Functions and subshells count as the one
command that calls them. The script is ``source``d by that bash (``$0`` is ``lancebench-agent``).

The trace is the agent's own record and hostile like any: the script may write lines to file
descriptor 9, close it or fill it. :func:`parse_trace` reads at most :data:`MAX_TRACE_BYTES` and
:data:`MAX_COMMANDS` lines, skips lines that do not parse, and shows bytes as text with
undecodable bytes replaced; the trajectory's ``extra`` says it is a shell trace.
"""

from __future__ import annotations

from dataclasses import dataclass

from lancebench.agents.trajectory import Trajectory, TrajectoryBuilder

TRACE_DIR = "/tmp/lancebench/trace"
MAX_TRACE_BYTES = 2_000_000
MAX_COMMANDS = 2000
MAX_COMMAND_CHARS = 4000
MAX_OUTPUT_CHARS = 4000  # of each command's stdout and stderr shown in its step
WRAPPER = r'''mkdir -p "$LANCEBENCH_TRACE_DIR" || exit 90
exec 9>>"$LANCEBENCH_TRACE_DIR/trace" 1>>"$LANCEBENCH_TRACE_DIR/stdout" 2>>"$LANCEBENCH_TRACE_DIR/stderr"
__lb_nl=$'\n' __lb_rs=$'\x1e'
trap '__lb_s=$?; read -r _ __lb_o < /proc/$BASHPID/fdinfo/1; read -r _ __lb_e < /proc/$BASHPID/fdinfo/2
printf "%s\t%s\t%s\t%s\n" "$__lb_s" "$__lb_o" "$__lb_e" "${BASH_COMMAND//$__lb_nl/$__lb_rs}" >&9' DEBUG
'''


def traced_script(script: bytes) -> bytes:
    """The file to run: :data:`WRAPPER`, then ``script`` (its ``#!`` line is a comment there)."""
    return WRAPPER.encode() + b"\n" + script


@dataclass(frozen=True)
class TracedCommand:
    """One command of the trace: the ``command`` text, its ``exit_code`` (None when unknown), the
    bytes it wrote (``stdout_bytes``, ``stderr_bytes``) and the start of that ``output``."""

    command: str
    exit_code: int | None
    stdout_bytes: int
    stderr_bytes: int
    output: str


def _lines(trace: bytes) -> list[tuple[int, int, int, str]]:
    out: list[tuple[int, int, int, str]] = []
    for raw in trace[:MAX_TRACE_BYTES].split(b"\n")[:MAX_COMMANDS]:
        parts = raw.split(b"\t", 3)
        if len(parts) != 4 or not all(p.isdigit() for p in parts[:3]):
            continue  # cut, forged or not ours
        status, out_pos, err_pos = (int(p) for p in parts[:3])
        command = parts[3].replace(b"\x1e", b"\n").decode("utf-8", "replace")[:MAX_COMMAND_CHARS]
        out.append((status, out_pos, err_pos, command))
    return out


def _text(data: bytes) -> str:
    text = data[:MAX_OUTPUT_CHARS].decode("utf-8", "replace")
    return text + (f"\n… ({len(data) - MAX_OUTPUT_CHARS:,} more bytes)" if len(data) > MAX_OUTPUT_CHARS else "")


def parse_trace(trace: bytes, stdout: bytes, stderr: bytes, exit_code: int | None) -> list[TracedCommand]:
    """The commands of a trace (see the module docstring); ``stdout``/``stderr``: the script's
    whole output files, ``exit_code``: the script's (None when it timed out)."""
    lines = _lines(trace)
    out = []
    for i, (_, out_pos, err_pos, command) in enumerate(lines):
        if i + 1 < len(lines):
            status: int | None = lines[i + 1][0]
            out_end, err_end = lines[i + 1][1], lines[i + 1][2]
        else:
            status, out_end, err_end = exit_code, len(stdout), len(stderr)
        o = stdout[out_pos:max(out_pos, out_end)]
        e = stderr[err_pos:max(err_pos, err_end)]
        text = _text(o) + (("\n--- stderr\n" + _text(e)) if e else "")
        out.append(TracedCommand(command, status, len(o), len(e), text))
    return out


def trace_trajectory(agent_name: str, instruction: str, commands: list[TracedCommand]) -> Trajectory:
    """An ATIF trajectory of a traced script: the instruction as the user step, then one agent
    step per command (its observation: the output, with exit status and sizes in ``extra``)."""
    b = TrajectoryBuilder(agent_name, "shell-trace", agent_extra={"trajectory": "shell trace of a script agent"})
    b.user(instruction)
    for i, c in enumerate(commands):
        step = b.agent_step("", commands=[(f"cmd-{i}", c.command)])
        b.observe(step, c.output, call_id=f"cmd-{i}", extra={"exit_code": c.exit_code,
                                                             "stdout_bytes": c.stdout_bytes,
                                                             "stderr_bytes": c.stderr_bytes})
    return b.finish(extra={"commands": len(commands), "cut": len(commands) >= MAX_COMMANDS})

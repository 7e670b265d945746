"""Reading shell commands as words, for the analysis rules: each command an agent ran is split into
simple commands (at ``;``, ``&&``, ``||``, ``|``, ``&`` and new lines) of words (``shlex`` rules,
quotes removed), with leading ``VAR=value`` assignments and wrappers (``sudo``, ``env``,
``timeout N``, ``nice``, ``time``, ``command``) skipped and ``bash -c "..."`` read inside.

Words are normalised before the rules read them, so a path spelled in pieces reads as one: quotes
and backslashes are removed (``shlex``), ``$IFS``/``${IFS}`` is a space, ANSI-C strings
(``$'\x2ftests'``) are decoded, and ``$name``/``${name}`` take the value of an earlier ``name=value``
in the same command (``d=/te; cat ${d}sts/x`` reads ``cat /tests/x``; an unknown variable stays as
written).

This is a reading for explainable findings, not a shell: an unbalanced quote falls back to
splitting at white space, and a heredoc's body is read as words of the command that opens it."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import PurePosixPath

CONTROL = {";", "&&", "||", "|", "&", ";;", "|&"}
REDIRECTS = {">", ">>", ">|", "&>", "&>>"}
WRAPPERS = {"sudo", "env", "nice", "time", "command", "exec", "nohup", "stdbuf", "xargs"}
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
IN_PLACE = {"sed", "perl", "ruby"}  # with -i
COPIES = {"cp", "mv", "install", "ln", "rsync"}
REMOVES = {"rm", "unlink", "truncate", "shred"}


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command: ``name`` (the program, without its folder), ``args`` (its words), and
    ``writes`` (paths it writes: redirect targets, ``tee`` files, ``sed -i``/``perl -i`` files,
    the target of ``cp``/``mv``, ``touch`` files; removals are in ``removes``); ``body``: the text of
    the heredocs on its line (what ``cat > f <<EOF`` writes)."""

    name: str
    args: tuple[str, ...]
    writes: tuple[str, ...] = ()
    removes: tuple[str, ...] = ()
    text: str = field(default="", compare=False)
    body: str = field(default="", compare=False)

    @property
    def sub(self) -> str:
        """The first argument that is not an option (``git fetch`` -> ``fetch``), or ``""``."""
        return next((a for a in self.args if not a.startswith("-")), "")


_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")


def split_heredocs(command: str) -> list[tuple[str, str]]:
    """``(line, heredoc bodies)`` per logical line: a heredoc's body is taken out of the command
    text (it is data, not commands) and returned beside the line that opens it."""
    lines = command.split("\n")
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        line, bodies = lines[i], []
        i += 1
        for m in _HEREDOC.finditer(line):
            if line[max(0, m.start() - 1):m.start()] == "<":  # <<< here-string
                continue
            body = []
            while i < len(lines) and lines[i].strip() != m.group(2):
                body.append(lines[i])
                i += 1
            i += 1
            bodies.append("\n".join(body))
        out.append((line, "\n".join(bodies)))
    return out


_IFS = re.compile(r"\$\{IFS\}|\$IFS\b")
_ANSI_C = re.compile(r"\$'((?:[^'\\]|\\.)*)'")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def _ansi_c(m: re.Match) -> str:
    try:
        text = m.group(1).encode("latin-1", "backslashreplace").decode("unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return m.group(0)
    return shlex.quote(text)


def expand(word: str, env: dict[str, str]) -> str:
    """``word`` with ``$name``/``${name}`` replaced by the values in ``env`` (others kept)."""
    return _VAR.sub(lambda m: env.get(m.group(1) or m.group(2), m.group(0)), word)


def _tokens(command: str) -> list[str]:
    command = _ANSI_C.sub(_ansi_c, _IFS.sub(" ", command))
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: read words at white space
        return command.split()


def _unwrap(words: list[str], env: dict[str, str]) -> list[str]:
    """``words`` without leading assignments and wrappers; each ``name=value`` (also after
    ``export``/``local``/``declare``) is recorded in ``env``, expanded."""
    words = [expand(w, env) for w in words]
    while words:
        head = words[0]
        if head in {"export", "local", "declare", "readonly", "typeset"}:
            words = words[1:]
        elif _ASSIGN.match(head):
            name, _, value = head.partition("=")
            env[name] = value
            words = [expand(w, env) for w in words[1:]]
        elif PurePosixPath(head).name in WRAPPERS:
            words = words[1:]
            while words and (words[0].startswith("-") or _ASSIGN.match(words[0])):
                words = words[1:]
        elif PurePosixPath(head).name == "timeout":
            words = [w for w in words[1:]]
            while words and (words[0].startswith("-") or re.fullmatch(r"[\d.]+[smhd]?", words[0])):
                words = words[1:]
        else:
            break
    return words


def _classify(words: list[str], text: str, body: str) -> SimpleCommand:
    writes: list[str] = []
    plain: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w.isdigit() and i + 1 < len(words) and words[i + 1] in REDIRECTS | {">&", "<", "<&"}:
            i += 1
            continue
        if w in REDIRECTS and i + 1 < len(words):
            writes.append(words[i + 1])
            i += 2
            continue
        if w in {"<", "<<", "<<<", ">&", "<&"}:
            i += 2
            continue
        plain.append(w)
        i += 1
    name = PurePosixPath(plain[0]).name if plain else ""
    args = tuple(plain[1:])
    files = [a for a in args if not a.startswith("-")]
    removes: list[str] = []
    if name == "tee" or name == "touch":
        writes += files
    elif name in IN_PLACE and any(a.startswith("-i") or a == "--in-place" or (a.startswith("-") and "i" in a[1:]
                                                                                and not a.startswith("--"))
                                  for a in args):
        writes += files[1:] if name == "sed" else files[-1:]
    elif name in COPIES and len(files) >= 2:
        writes.append(files[-1])
        if name == "mv":
            removes += files[:-1]
    elif name in REMOVES:
        removes += files
    elif name == "git" and files[:1] == ["rm"]:
        removes += files[1:]
    return SimpleCommand(name=name, args=args, writes=tuple(writes), removes=tuple(removes), text=text, body=body)


def simple_commands(command: str, _depth: int = 0, env: dict[str, str] | None = None) -> list[SimpleCommand]:
    """The simple commands of one shell command (see the module docstring); ``env``: variables
    set before it (filled with the ones it sets)."""
    out: list[SimpleCommand] = []
    env = {} if env is None else env
    for line, body in split_heredocs(command):
        out += _line_commands(line, body, _depth, env)
    return out


def _line_commands(line: str, body: str, depth: int, env: dict[str, str]) -> list[SimpleCommand]:
    out: list[SimpleCommand] = []
    current: list[str] = []
    for tok in [*_tokens(line), ";"]:
        if tok not in CONTROL and not (tok and set(tok) <= set(";&|")):
            current.append(tok)
            continue
        words = _unwrap(current, env)
        current = []
        if not words:
            continue
        name = PurePosixPath(words[0]).name
        if name in {"bash", "sh", "zsh", "dash"} and "-c" in words[1:-1] and depth < 3:
            out += simple_commands(words[words.index("-c") + 1], depth + 1, env)
            continue
        has_heredoc = "<<" in words
        out.append(_classify(words, " ".join(words), body if has_heredoc else ""))
    return out

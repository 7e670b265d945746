"""A static scan of a patch for changes to test-runner machinery.

The code under test runs inside the verifier's test process, so it can rewrite that process's
verdict: patch the runner's report objects, hook the end of the run, write the verifier's files,
end the process early with status 0, or behave differently when a test runner is loaded. No
harness can stop all of that at run time (docs/security.md); this scan refuses the patches that
try the known ways. It reads only the lines a patch adds to code files (``CODE_SUFFIXES``; binary
diffs cannot be read), each split into code and prose (``grading.scan_code``: comments and
docstrings never run).

The rule (docs/security.md, "The static scan"): a finding **decides** (the trial is
``unresolved`` with the finding as reason, before any grading run) when the *code* of an added
line touches runner machinery: runner internals and report objects, the verifier's folders and
report files (``/logs/verifier``, a string that is the path ``/tests/...``, ``junit.xml``,
``reward.txt``), checks for which runner is loaded, ``sys.exitfunc``, a finaliser that exits, an
exit hook (``atexit``) whose handler writes files or changes the exit status (``open(..., "w")``,
``write_text``, ``os.replace``, ``sys.exit``, ``os._exit``, ...; the handler's body is read when the
patch shows it, else the file's added code), and ``os._exit`` outside a forked child (no
``fork(`` in the lines before it). Harmless uses are **notes**, recorded with the trial but not
deciding: the same names in prose, an exit hook that only cleans up, ``os._exit`` in a forked
child, ``sys.excepthook``, ``/tests/`` inside a longer string. A task on a test tool's own
repository sets ``[lancebench] scan_patch = false``.

Known limits: obfuscated code (``getattr(__import__("_p" + "ytest"), ...)``, encoded strings,
binary files) is not recognised (the report witness and the runner guard stand behind it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lancebench.grading.patch import split_patch
from lancebench.grading.scan_code import AddedLine, added_lines

# (what it is, regular expression over the code of one added line): each decides.
RULES: tuple[tuple[str, re.Pattern], ...] = tuple((what, re.compile(rx)) for what, rx in (
    ("test-runner internals", r"\b_pytest\b|\bpluggy\b|\bhookimpl\b|\bpytest_(?:runtest|sessionfinish|terminal_summary"
                              r"|configure|collection|report|make_?report|unconfigure|sessionstart)\w*"),
    ("test report objects", r"\bTestReport\b|\bLogXML\b|\bjunitxml\b|\bTerminalReporter\b|\bTestResult\b|"
                            r"\bTextTestResult\b|\baddFailure\b|\baddError\b|\bwasSuccessful\b|\bCallInfo\b"),
    ("exit hook", r"\bsys\.exitfunc\b|\b__del__\b.*\bexit\b"),
    ("the verifier's folders", r"/logs/verifier|\bjunit\.xml\b|\breward\.(?:txt|json)\b|[rbuf]?['\"]/tests(?:/|['\"])"
                               r"|['\"]/['\"]\s*,\s*['\"]tests['\"]"),
    ("a check for which test runner is loaded", r"""sys\.modules\b.*['"](?:_?pytest|unittest|nose)|"""
                                                r"PYTEST_(?:CURRENT_TEST|VERSION|XDIST)|['\"]_?pytest['\"]\s+in\b"),
))
# Names that are harmless on their own (notes) and decide only in the cases the module docstring gives.
NOTES: tuple[tuple[str, re.Pattern], ...] = tuple((what, re.compile(rx)) for what, rx in (
    ("exit hook", r"\batexit\b"),
    # os._exit and what ends or replaces the process as it does (posix._exit, _exit imported by
    # name, libc's exit through ctypes, the exec family): the test process ends with the status
    # it chooses, before the runner writes its report (attack pass after issue 14)
    ("process exit without clean-up", r"\b(?:os|posix)\._exit\b|\bimport\b.*\b_exit\b|"
                                      r"\bCDLL\b.*\b_?exit\b|\b(?:os|posix)\.exec[lv]p?e?\b|"
                                      r"\bgetattr\(\s*[\w.]+\s*,\s*['\"](?:_exit|exec[lv]p?e?)['\"]|"
                                      r"\b__import__\(\s*['\"](?:os|posix)['\"]\s*\)\s*\.\s*(?:_exit|exec[lv]p?e?)\b"),
    ("exception hook", r"\bsys\.excepthook\b"),
    ("the verifier's folders", r"(?<![\w.])/tests/"),
))
_WRITES_OR_EXITS = re.compile(
    r"\bopen\([^)]*['\"][^'\"]*[wax+][^'\"]*['\"]|\.write_(?:text|bytes)\(|\bos\.(?:open|write|replace|rename|truncate|"
    r"_exit|kill|killpg|abort)\(|\bshutil\.(?:copy\w*|move)\(|\bsys\.exit\(|\b(?:exit|quit)\(|\bSystemExit\b|\.truncate\(")
_HANDLER = re.compile(r"atexit\.register\(\s*(?:self\.|cls\.)?(\w+)")
_FORK = re.compile(r"\bfork(?:pty)?\(")
_STRING = re.compile(r"""(['"])(?:\\.|(?!\1).)*\1""")  # a one-line string literal
FORK_WINDOW = 30  # lines before os._exit in which a fork( makes it a forked child's exit


# Files that run or configure code: the scan reads only these (and files without a suffix).
CODE_SUFFIXES = frozenset(".py .pyi .pyx .pxd .c .h .cc .cpp .js .mjs .cjs .ts .tsx .jsx .sh .bash .rb .go .rs "
                          ".java .kt .php .pl .cfg .ini .toml .yaml .yml".split())


def _is_code(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return "." not in name.lstrip(".") or "." + name.rsplit(".", 1)[-1].lower() in CODE_SUFFIXES


@dataclass(frozen=True)
class Finding:
    """One scan finding: the repository ``path``, the 1-based ``line`` of the added text within
    the file's diff, ``what`` it touches, the ``text`` of the line (at most 200 characters), and
    whether it ``decides`` the trial (else it is a note: recorded, not deciding)."""

    path: str
    line: int
    what: str
    text: str
    decides: bool = True

    def __str__(self) -> str:
        return f"{self.path}: {self.what}: {self.text!r}"


def scan_patch(patch: str) -> list[Finding]:
    """Every finding in the lines ``patch`` adds, deciding ones and notes (see the module
    docstring); empty when none. :func:`deciding` keeps those that refuse the patch."""
    findings: list[Finding] = []
    for fd in split_patch(patch):
        path = fd.new or fd.old or "?"
        if not _is_code(path):
            continue
        lines = added_lines(fd.text, python=path.endswith((".py", ".pyi")))
        aliases = exit_aliases(lines)
        for line in lines:
            found = _line_finding(path, line, lines, aliases)
            if found is not None:
                findings.append(found)
    return findings


def deciding(findings: list[Finding]) -> list[Finding]:
    """The findings that make the trial ``unresolved``."""
    return [f for f in findings if f.decides]


def exit_aliases(lines: list[AddedLine]) -> re.Pattern | None:
    """A pattern for the other names under which the added code of one file reaches ``os._exit``
    and the exec family: ``import os as o`` (``o._exit``), ``from os import _exit as q`` and
    ``q = os._exit`` (``q(``); None when there are none."""
    names: list[str] = []
    for line in lines:
        for alias in _MODULE_ALIAS.findall(line.code):
            names.append(rf"\b{re.escape(alias)}\s*\.\s*(?:_exit|exec[lv]p?e?)\b")
        for call in _FUNCTION_ALIAS.findall(line.code) + _ASSIGNED_ALIAS.findall(line.code):
            names.append(rf"(?<![\w.]){re.escape(call)}\s*\(")
    return re.compile("|".join(names)) if names else None


_MODULE_ALIAS = re.compile(r"\bimport\s+(?:os|posix)\s+as\s+(\w+)")
_FUNCTION_ALIAS = re.compile(r"\bfrom\s+(?:os|posix)\s+import\b.*?\b(?:_exit|exec[lv]p?e?)\s+as\s+(\w+)")
_ASSIGNED_ALIAS = re.compile(r"(\w+)\s*=\s*(?:os|posix)\s*\.\s*(?:_exit|exec[lv]p?e?)\b")


def _line_finding(path: str, line: AddedLine, lines: list[AddedLine],
                  aliases: re.Pattern | None = None) -> Finding | None:
    """The finding of one added line (the first rule that matches; ``aliases``: the file's other
    names for ``os._exit``, :func:`exit_aliases`), or None."""
    text = line.text.strip()[:200]
    for what, rx in RULES:
        if rx.search(line.code):
            return Finding(path, line.number, what, text)
    exit_note = NOTES[1][1]
    for what, rx in NOTES:
        if rx.search(line.code) or (rx is exit_note and aliases is not None and aliases.search(line.code)):
            decides = _note_decides(what, line, lines)
            return Finding(path, line.number, _refine(what, line, lines), text, decides=decides)
    for what, rx in RULES + NOTES:
        if rx.search(line.text):  # only in prose
            return Finding(path, line.number, f"{what} (in a comment or docstring)", text, decides=False)
    return None


def _refine(what: str, line: AddedLine, lines: list[AddedLine]) -> str:
    if what == "exit hook":
        if "register" not in line.code:
            return what
        return ("exit hook that writes files or changes the exit status" if _note_decides(what, line, lines)
                else "exit hook (its handler neither writes files nor ends the process)")
    if what == "process exit without clean-up":
        decides = _note_decides(what, line, lines)
        return ("os._exit (or an exec, posix._exit, libc's exit) outside a forked child" if decides
                else "os._exit in a forked child")
    return what


def _note_decides(what: str, line: AddedLine, lines: list[AddedLine]) -> bool:
    """Does a note-kind name decide here (module docstring: exit hooks, os._exit)?"""
    if what == "exit hook":  # only a registration runs a handler (not ``import atexit``)
        return "register" in line.code and any(_WRITES_OR_EXITS.search(c) for c in _handler_code(line, lines))
    if what == "process exit without clean-up":
        return not _after_fork(line, lines)
    return False


def _after_fork(line: AddedLine, lines: list[AddedLine]) -> bool:
    """Is ``line``'s ``os._exit`` a forked child's: a ``fork(`` call in the *code* (not a comment,
    docstring or string literal: an added line's prose is blanked, a context line's ``#`` comment
    cut) of one of the :data:`FORK_WINDOW` lines before it, indented less than the exit (the
    child's branch is inside the fork's block). A comment naming ``os.fork()`` above a bare
    ``os._exit(0)`` made it a note (attack pass after issue 14)."""
    codes = {a.at: a.code for a in lines if a.hunk == line.hunk}
    depth = len(line.text) - len(line.text.lstrip())
    for i in range(max(0, line.at - FORK_WINDOW), line.at + 1):
        text = line.hunk[i]
        code = _STRING.sub('""', codes[i] if i in codes else text.split("#", 1)[0])
        if i < line.at and _FORK.search(code) and len(text) - len(text.lstrip()) < depth:
            return True
    return False


def _handler_code(line: AddedLine, lines: list[AddedLine]) -> list[str]:
    """The code an exit hook registered on ``line`` runs: the handler's body when the patch shows
    its ``def`` (a decorated function, or ``atexit.register(name)``), the line itself for a
    lambda, else the code of every line the file's diff adds."""
    if "lambda" in line.code:
        return [line.code]
    match = _HANDLER.search(line.code)
    name = match.group(1) if match else None
    if name is None and line.code.strip().startswith("@"):  # @atexit.register: the next def
        following = [t for t in line.hunk[line.at + 1:] if t.strip().startswith(("def ", "async def "))]
        name = re.findall(r"def\s+(\w+)", following[0])[0] if following else None
    for hunk in {id(a.hunk): a.hunk for a in lines}.values():
        for i, text in enumerate(hunk):
            if name and re.match(rf"\s*(?:async\s+)?def\s+{re.escape(name)}\s*\(", text):
                indent = len(text) - len(text.lstrip())
                body = []
                for nxt in hunk[i + 1:]:
                    if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent:
                        break
                    body.append(nxt)
                return body
    return [added.code for added in lines]


def scan_reason(findings: list[Finding]) -> str:
    """The trial's reason for ``findings`` (the first three named)."""
    head = "; ".join(str(f) for f in findings[:3])
    more = f" (and {len(findings) - 3} more)" if len(findings) > 3 else ""
    return f"the patch changes test-runner machinery (static scan): {head}{more}"

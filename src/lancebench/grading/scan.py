"""A static scan of a patch for changes to test-runner machinery.

The code under test runs inside the verifier's test process, so it can rewrite that process's
verdict: patch the runner's report objects, hook the end of the run, write the verifier's files,
end the process early with status 0, or behave differently when a test runner is loaded. No
harness can stop all of that at run time (docs/security.md); this scan refuses the patches that
try the known ways. It reads only the lines a patch adds to code files (``CODE_SUFFIXES``; binary diffs cannot be read)
and reports findings; :func:`scan_patch` returns them, and a finding makes the trial
``unresolved`` with the finding as reason. A task on a test tool's own repository sets
``[lancebench] scan_patch = false``.

Known limits: obfuscated code (``getattr(__import__("_p" + "ytest"), ...)``, encoded strings,
binary files) is not recognised; a legitimate fix that mentions these names is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lancebench.grading.patch import split_patch

# (what it is, regular expression over one added line)
RULES: tuple[tuple[str, re.Pattern], ...] = tuple((what, re.compile(rx)) for what, rx in (
    ("test-runner internals", r"\b_pytest\b|\bpluggy\b|\bhookimpl\b|\bpytest_(?:runtest|sessionfinish|terminal_summary"
                              r"|configure|collection|report|make_?report|unconfigure|sessionstart)\w*"),
    ("test report objects", r"\bTestReport\b|\bLogXML\b|\bjunitxml\b|\bTerminalReporter\b|\bTestResult\b|"
                            r"\bTextTestResult\b|\baddFailure\b|\baddError\b|\bwasSuccessful\b|\bCallInfo\b"),
    ("exit hook", r"\batexit\b|\bos\._exit\b|\bsys\.exitfunc\b|\bsys\.excepthook\b|\b__del__\b.*\bexit\b"),
    ("the verifier's folders", r"/logs/verifier|(?<![\w.])/tests/|\bjunit\.xml\b|\breward\.(?:txt|json)\b"),
    ("a check for which test runner is loaded", r"""sys\.modules\b.*['"](?:_?pytest|unittest|nose)|"""
                                                r"PYTEST_(?:CURRENT_TEST|VERSION|XDIST)|['\"]_?pytest['\"]\s+in\b"),
))


# Files that run or configure code: the scan reads only these (and files without a suffix).
CODE_SUFFIXES = frozenset(".py .pyi .pyx .pxd .c .h .cc .cpp .js .mjs .cjs .ts .tsx .jsx .sh .bash .rb .go .rs "
                          ".java .kt .php .pl .cfg .ini .toml .yaml .yml".split())


def _is_code(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return "." not in name.lstrip(".") or "." + name.rsplit(".", 1)[-1].lower() in CODE_SUFFIXES


@dataclass(frozen=True)
class Finding:
    """One scan finding: the repository ``path``, the 1-based ``line`` of the added text within
    the file's diff, ``what`` it touches, and the ``text`` of the line (at most 200 characters)."""

    path: str
    line: int
    what: str
    text: str

    def __str__(self) -> str:
        return f"{self.path}: {self.what}: {self.text!r}"


def scan_patch(patch: str) -> list[Finding]:
    """Findings in the lines ``patch`` adds (see the module docstring); empty when none."""
    findings: list[Finding] = []
    for fd in split_patch(patch):
        path = fd.new or fd.old or "?"
        if not _is_code(path):
            continue
        for n, line in enumerate(fd.text.splitlines(), 1):
            if not line.startswith("+") or line.startswith("+++ "):
                continue
            for what, rx in RULES:
                if rx.search(line):
                    findings.append(Finding(path, n, what, line[1:].strip()[:200]))
                    break
    return findings


def scan_reason(findings: list[Finding]) -> str:
    """The trial's reason for ``findings`` (the first three named)."""
    head = "; ".join(str(f) for f in findings[:3])
    more = f" (and {len(findings) - 3} more)" if len(findings) > 3 else ""
    return f"the patch changes test-runner machinery (static scan): {head}{more}"

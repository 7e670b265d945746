"""Reading test results from JUnit XML (pytest's ``--junitxml`` and other runners') and matching
the task's F2P/P2P ids against them.

A task may write a test id in any form pytest prints or accepts; all of these name the same test:

- the node id ``tests/test_x.py::TestA::test_b[1-2]`` (also relative to another root dir, e.g.
  ``test_x.py::TestA::test_b[1-2]``);
- the dotted module form ``tests.test_x::TestA::test_b[1-2]``;
- JUnit's own ``classname::name``, ``tests.test_x.TestA::test_b[1-2]``.

Each is reduced to one dotted key (``tests.test_x.TestA.test_b[1-2]``; parameters are kept as
written). A listed id matches the report's test whose key equals it, or else the tests whose keys
end with it (or that it ends with) at a ``.`` boundary, which covers reports and ids written
from different root dirs. A collection error (pytest writes a test case named after the module
with ``<error message="collection failure">``) hides the tests of that module: each listed test
of it is ``error``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from lancebench.errors import LancebenchError

OUTCOMES = ("passed", "failed", "error", "skipped")
MAX_BYTES = 20_000_000  # a report written by the code under test must not exhaust the harness
_RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}


@dataclass
class JUnitReport:
    """One JUnit file: ``cases`` maps each test's dotted key (see the module docstring) to
    ``passed``/``failed``/``error``/``skipped``; ``collection_errors`` lists the dotted module
    names whose collection failed."""

    cases: dict[str, str] = field(default_factory=dict)
    collection_errors: list[str] = field(default_factory=list)

    def ids(self) -> list[str]:
        """The report's tests as pytest-style ids (``module.path::Class::test``), sorted, for messages."""
        return sorted(display_id(k) for k in self.cases)


def id_key(test_id: str) -> str:
    """The dotted key of a test id in any pytest form: ``a/b.py::C::t[x]``, ``a.b::C::t[x]`` and
    ``a.b.C::t[x]`` all give ``a.b.C.t[x]``."""
    cut = test_id.find("[")
    base, params = (test_id, "") if cut < 0 else (test_id[:cut], test_id[cut:])
    parts = [p for p in base.strip().split("::") if p]
    if parts and parts[0].endswith(".py"):
        parts[0] = parts[0][:-3].lstrip("./").replace("/", ".")
    return ".".join(parts) + params


def display_id(key: str) -> str:
    """A dotted key as a pytest-style id: ``a.b.C.t[x]`` gives ``a.b.C::t[x]``."""
    cut = key.find("[")
    base, params = (key, "") if cut < 0 else (key[:cut], key[cut:])
    head, _, name = base.rpartition(".")
    return f"{head}::{name}{params}" if head else key


def _outcome(case: ET.Element) -> str:
    for child in case:
        tag = child.tag.lower()
        if tag == "failure":
            return "failed"
        if tag == "error":
            return "error"
        if tag == "skipped":
            return "skipped"
    return "passed"


def parse_junit(path: Path) -> JUnitReport:
    """Read the JUnit XML file at ``path``. When one test appears twice (reruns, several suites),
    the worse outcome wins (error > failed > skipped > passed).

    Raises :class:`LancebenchError` when the file is larger than ``MAX_BYTES`` or not well-formed XML.
    """
    if path.stat().st_size > MAX_BYTES:
        raise LancebenchError(f"{path}: JUnit report larger than {MAX_BYTES} bytes; not read")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise LancebenchError(f"{path}: not valid JUnit XML ({exc})") from exc
    report = JUnitReport()
    for case in root.iter("testcase"):
        outcome = _outcome(case)
        classname, name = case.get("classname", ""), case.get("name", "")
        error = case.find("error")
        if not classname and error is not None and "collection" in (error.get("message") or "").lower():
            report.collection_errors.append(id_key(name))
            continue
        key = f"{classname}.{name}" if classname else id_key(name)
        if key not in report.cases or _RANK[outcome] > _RANK[report.cases[key]]:
            report.cases[key] = outcome
    return report


def _ends_at_dot(longer: str, shorter: str) -> bool:
    return longer == shorter or longer.endswith("." + shorter)


def _prefixes(key: str) -> list[str]:
    base = key.split("[", 1)[0].split(".")
    return [".".join(base[:i]) for i in range(1, len(base))]


def outcome_of(report: JUnitReport, test_id: str) -> str:
    """The outcome of one listed id in ``report``: its test's outcome (the worst when the id
    matches several), ``error`` when a collection error hid its module, else ``missing``."""
    key = id_key(test_id)
    if key in report.cases:
        return report.cases[key]
    found = [v for k, v in report.cases.items() if _ends_at_dot(k, key) or _ends_at_dot(key, k)]
    if found:
        return max(found, key=_RANK.__getitem__)
    for module in report.collection_errors:
        if any(_ends_at_dot(p, module) or _ends_at_dot(module, p) for p in _prefixes(key)):
            return "error"
    return "missing"


def select(report: JUnitReport, ids: list[str]) -> dict[str, str]:
    """The outcome of each listed id (see :func:`outcome_of`), keyed by the id as written."""
    return {tid: outcome_of(report, tid) for tid in ids}

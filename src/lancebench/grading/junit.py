"""Reading test results from JUnit XML (pytest's ``--junitxml`` and other runners') and matching
the task's F2P/P2P ids against them.

Each ``<testcase>`` has a ``name`` (the test, kept exactly as the runner wrote it: spaces,
brackets, ``::``, ``/``, ``#`` and dots included) and a scope: its ``classname`` and, when the
runner writes them, its ``file`` and ``class`` attributes. A listed id names a test when it is

- the test's ``name`` as written (``tests::adds_numbers``, ``calc adds [2, 3] to 5``,
  ``TestAdd/two_and_three``, ``test_b[1-2]``); a name ending in ``()`` (Gradle's JUnit 5 methods)
  may be written without it;
- a scope, then a separator (``::``, ``#``, ``.`` or a space), then the name: ``classname::name``
  (what ``check`` suggests), Maven's ``Class#method``, the dotted ``a.b.Class.method``, mocha's
  full title ``suite test``;
- ExUnit's own form ``name (Module)``.

A scope matches when, written with ``.`` for every ``::``, ``/`` and ``\\`` (and a leading
``file.py`` segment without ``.py``), it equals the test's scope or one ends with the other at a
``.`` boundary. So every form pytest prints or accepts names the same test:
``tests/test_x.py::TestA::test_b[1-2]``, ``tests.test_x::TestA::test_b[1-2]``,
``tests.test_x.TestA::test_b[1-2]`` and ids written from another root dir
(``test_x.py::TestA::test_b[1-2]``); Go's package path may be shortened the same way
(``calc::TestAdd`` for ``example.com/calc``), as may ExUnit's ``Elixir.`` prefix and a PHP
namespace. An id matching several tests gets the worst outcome among them.

A collection error (pytest writes a test case named after the module with ``<error
message="collection failure">``) hides the tests of that module: each listed test of it is
``error``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
import xml.parsers.expat
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from lancebench.errors import LancebenchError

OUTCOMES = ("passed", "failed", "error", "skipped")
MAX_BYTES = 20_000_000  # a report written by the code under test must not exhaust the harness
_RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
SEPARATORS = ("::", "#", ".", " ")
_EXUNIT = re.compile(r"^(?P<name>.+) \((?P<scope>[^()]+)\)$")


class CaseId(str):
    """One test of a report, as the id ``check`` suggests for it (``classname::name``, or the
    name alone when the runner wrote no classname or the classname equals the name, as jest-junit
    does). Compares and hashes as that string; also carries ``classname``, ``name`` and
    ``scopes`` (the classname and the ``file``/``class`` attributes, for matching)."""

    classname: str
    name: str
    scopes: tuple[str, ...]

    def __new__(cls, classname: str, name: str, extra_scopes: tuple[str, ...] = ()) -> CaseId:
        shown = name if not classname or classname == name else f"{classname}::{name}"
        obj = super().__new__(cls, shown)
        obj.classname, obj.name = classname, name
        obj.scopes = tuple(s for s in (classname, *extra_scopes) if s)
        return obj


@dataclass
class JUnitReport:
    """One JUnit file: ``cases`` maps each test (a :class:`CaseId`; a plain dotted key such as
    ``id_key`` gives is read as ``scope.name``) to ``passed``/``failed``/``error``/``skipped``;
    ``collection_errors`` lists the dotted module names whose collection failed."""

    cases: dict[str, str] = field(default_factory=dict)
    collection_errors: list[str] = field(default_factory=list)

    def ids(self) -> list[str]:
        """The report's tests as ids that match them (``classname::name``, see :class:`CaseId`),
        sorted, for messages and ``check``'s suggestions."""
        return sorted(display_id(k) for k in self.cases)


def id_key(test_id: str) -> str:
    """The dotted key of a pytest id in any form: ``a/b.py::C::t[x]``, ``a.b::C::t[x]`` and
    ``a.b.C::t[x]`` all give ``a.b.C.t[x]`` (parameters are kept as written)."""
    cut = test_id.find("[")
    base, params = (test_id, "") if cut < 0 else (test_id[:cut], test_id[cut:])
    parts = [p for p in base.strip().split("::") if p]
    if parts and parts[0].endswith(".py"):
        parts[0] = parts[0][:-3].lstrip("./").replace("/", ".")
    return ".".join(parts) + params


def _as_case(key: str) -> CaseId:
    """``key`` as a :class:`CaseId`: itself, or a dotted key ``a.b.C.t[x]`` read as scope
    ``a.b.C`` and name ``t[x]``."""
    if isinstance(key, CaseId):
        return key
    cut = key.find("[")
    base, params = (key, "") if cut < 0 else (key[:cut], key[cut:])
    head, _, name = base.rpartition(".")
    return CaseId(head, name + params)


def display_id(key: str) -> str:
    """A report key as an id that matches it: a :class:`CaseId` as it reads; a dotted key
    ``a.b.C.t[x]`` as ``a.b.C::t[x]``."""
    return str(_as_case(key))


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


def _cases(element: ET.Element, suite_file: str) -> list[tuple[ET.Element, str]]:
    """Every ``<testcase>`` under ``element`` with the ``file`` of its nearest ``<testsuite>``
    that names one (mocha-junit-reporter and PHPUnit write it there)."""
    out = []
    stack = [(element, suite_file)]
    while stack:
        node, file = stack.pop()
        for child in reversed(node):
            if child.tag == "testcase":
                out.append((child, file))
            else:
                stack.append((child, child.get("file", file) if child.tag == "testsuite" else file))
    return out


class _FirstElement(Exception):
    """Raised by :func:`refuse_dtd`'s parser at a document's first element: its prolog is read."""


def refuse_dtd(source: bytes | Path) -> None:
    """Raise ``xml.etree.ElementTree.ParseError`` (with ``position``) when the XML document
    ``source`` (its bytes, or the path of a file) declares a document type (``<!DOCTYPE``), or
    when its prolog does not parse. Reads the prolog only (up to the first element).

    A document type is where entities are declared, and expat expands them up to 100 times the
    document's size: a 20 MB report of the code under test's own (:data:`MAX_BYTES`) gave 1.9 GB
    of text, 4.2 GB of the harness's memory and 6 s during which no other thread of the harness
    ran (attack pass round 13). No test runner writes one."""
    parser = xml.parsers.expat.ParserCreate()

    def doctype(*_: object) -> None:
        exc = ET.ParseError("a document type declaration (<!DOCTYPE ...>) in a JUnit report; not read")
        exc.position = (parser.CurrentLineNumber, parser.CurrentColumnNumber)
        raise exc

    def first(*_: object) -> None:
        raise _FirstElement

    parser.StartDoctypeDeclHandler = doctype
    parser.StartElementHandler = first
    try:
        if isinstance(source, bytes):
            parser.Parse(source, True)
            return
        with open(source, "rb") as fh:
            while chunk := fh.read(1 << 16):
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
    except _FirstElement:
        return
    except xml.parsers.expat.ExpatError as err:
        exc = ET.ParseError(str(err))
        exc.position = (err.lineno, err.offset)
        raise exc from err


def fromstring(data: bytes) -> ET.Element:
    """``ET.fromstring`` of a report's bytes that the code under test may have written: a document
    type is refused first (:func:`refuse_dtd`). Raises ``ET.ParseError``."""
    refuse_dtd(data)
    return ET.fromstring(data)


def parse_junit(path: Path) -> JUnitReport:
    """Read the JUnit XML file at ``path`` (any runner's: every ``<testcase>`` at any depth of
    nested ``<testsuite>``s counts). When one test appears twice (reruns, several suites), the
    worse outcome wins (error > failed > skipped > passed).

    Raises :class:`LancebenchError` when the file is larger than ``MAX_BYTES``, not well-formed
    XML, or declares a document type (:func:`refuse_dtd`).
    """
    if path.stat().st_size > MAX_BYTES:
        raise LancebenchError(f"{path}: JUnit report larger than {MAX_BYTES} bytes; not read")
    try:
        refuse_dtd(path)
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise LancebenchError(f"{path}: not valid JUnit XML ({exc})") from exc
    report = JUnitReport()
    for case, suite_file in _cases(root, ""):
        outcome = _outcome(case)
        classname, name = case.get("classname", ""), case.get("name", "")
        error = case.find("error")
        if not classname and error is not None and "collection" in (error.get("message") or "").lower():
            report.collection_errors.append(id_key(name))
            continue
        key = CaseId(classname, name, (case.get("file", ""), case.get("class", ""), suite_file))
        if key not in report.cases or _RANK[outcome] > _RANK[report.cases[key]]:
            report.cases[key] = outcome
    return report


def _dotted(scope: str) -> str:
    """A scope with ``.`` for ``::``, ``/`` and ``\\``, a leading ``file.py`` segment without
    ``.py`` and no leading ``./`` or ``/``: ``tests/test_x.py::TestA`` gives ``tests.test_x.TestA``."""
    parts = scope.strip().split("::")
    if parts[0].endswith(".py"):
        parts[0] = parts[0][:-3]
    text = ".".join(parts).replace("/", ".").replace("\\", ".")
    return text.lstrip(".")


def _ends_at_dot(longer: str, shorter: str) -> bool:
    return longer == shorter or longer.endswith("." + shorter)


def _scope_matches(scope: str, case: CaseId) -> bool:
    want = _dotted(scope)
    if not want:
        return False
    return any(_ends_at_dot(have, want) or _ends_at_dot(want, have) for have in map(_dotted, case.scopes))


def _splits(test_id: str) -> list[tuple[str, str]]:
    """Every (scope, name) reading of ``test_id``: the whole id as a name with no scope, each cut
    at a separator, and ExUnit's ``name (Module)``."""
    out = [("", test_id)]
    for sep in SEPARATORS:
        start = test_id.find(sep)
        while start > 0:
            out.append((test_id[:start], test_id[start + len(sep):]))
            start = test_id.find(sep, start + 1)
    exunit = _EXUNIT.match(test_id)
    if exunit:
        out.append((exunit["scope"], exunit["name"]))
    return out


class _Index:
    """The report's tests by name (and by name without a trailing ``()``), each with its key in
    ``report.cases``."""

    def __init__(self, report: JUnitReport):
        self.by_name: dict[str, list[tuple[CaseId, str]]] = defaultdict(list)
        for key in report.cases:
            case = _as_case(key)
            self.by_name[case.name].append((case, key))
            if case.name.endswith("()"):
                self.by_name[case.name[:-2]].append((case, key))

    def matches(self, test_id: str) -> set[str]:
        """The keys of the tests ``test_id`` names."""
        found: set[str] = set()
        for scope, name in _splits(test_id.strip()):
            for case, key in self.by_name.get(name, ()):
                if not scope or _scope_matches(scope, case):
                    found.add(key)
        return found


def _prefixes(key: str) -> list[str]:
    base = key.split("[", 1)[0].split(".")
    return [".".join(base[:i]) for i in range(1, len(base))]


def _outcome_in(report: JUnitReport, index: _Index, test_id: str) -> str:
    found = index.matches(test_id)
    if found:
        return max((report.cases[k] for k in found), key=_RANK.__getitem__)
    key = id_key(test_id)
    for module in report.collection_errors:
        if any(_ends_at_dot(p, module) or _ends_at_dot(module, p) for p in _prefixes(key)):
            return "error"
    return "missing"


def outcome_of(report: JUnitReport, test_id: str) -> str:
    """The outcome of one listed id in ``report`` (see the module docstring): its test's outcome
    (the worst when the id matches several), ``error`` when a collection error hid its module,
    else ``missing``."""
    return _outcome_in(report, _Index(report), test_id)


def outcome_over_params(report: JUnitReport, test_id: str, *, best: bool) -> str:
    """``test_id``'s outcome (``module::name``) over every parameter set of a parametrized test:
    the best one's (``best``: the canary's, any passed copy counts) or the worst one's; when no
    case has that name in that module, :func:`outcome_of`. Used by :mod:`lancebench.grading.canary`."""
    module, _, name = test_id.rpartition("::")
    found = [v for k, v in report.cases.items()
             if (case := _as_case(k)).name.partition("[")[0] == name and _scope_matches(module, case)]
    if not found:
        return outcome_of(report, test_id)
    return (min if best else max)(found, key=_RANK.__getitem__)


def select(report: JUnitReport, ids: list[str]) -> dict[str, str]:
    """The outcome of each listed id (see :func:`outcome_of`), keyed by the id as written."""
    index = _Index(report)
    return {tid: _outcome_in(report, index, tid) for tid in ids}

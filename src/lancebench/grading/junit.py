"""Reading test results from JUnit XML (pytest's ``--junitxml`` and other runners').

Each ``testcase`` gives one id per naming scheme, all mapped to its outcome, so that task
authors may list F2P/P2P ids either way:

- ``classname::name`` (JUnit's own identity), e.g. ``tests.test_x.TestA::test_b``;
- the pytest node id derived from it, e.g. ``tests/test_x.py::TestA::test_b`` (the first
  classname parts that form a module path become ``path.py``; needs the ``file`` attribute
  or a guess from the dotted classname).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from lancebench.errors import LancebenchError

OUTCOMES = ("passed", "failed", "error", "skipped")
MAX_BYTES = 20_000_000  # a report written by the code under test must not exhaust the harness


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


def _node_ids(classname: str, name: str, file: str | None) -> set[str]:
    ids = {f"{classname}::{name}" if classname else name}
    parts = classname.split(".") if classname else []
    if file:
        mod_parts = Path(file).with_suffix("").parts
        rest = parts[len(mod_parts):] if parts[: len(mod_parts)] == list(mod_parts) else parts[-1:] if parts else []
        ids.add("::".join([file, *rest, name]))
    for cut in range(1, len(parts) + 1):  # guess: module path = first `cut` parts
        ids.add("::".join(["/".join(parts[:cut]) + ".py", *parts[cut:], name]))
    return ids


def parse_junit(path: Path) -> dict[str, str]:
    """Map every id of every test case in the JUnit XML file at ``path`` to its outcome
    (``passed``/``failed``/``error``/``skipped``). When one id appears twice (reruns), a failure wins.

    Raises :class:`LancebenchError` when the file is not well-formed XML.
    """
    if path.stat().st_size > MAX_BYTES:
        raise LancebenchError(f"{path}: JUnit report larger than {MAX_BYTES} bytes; not read")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise LancebenchError(f"{path}: not valid JUnit XML ({exc})") from exc
    results: dict[str, str] = {}
    rank = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
    for case in root.iter("testcase"):
        outcome = _outcome(case)
        for tid in _node_ids(case.get("classname", ""), case.get("name", ""), case.get("file")):
            if tid not in results or rank[outcome] > rank[results[tid]]:
                results[tid] = outcome
    return results


def select(results: dict[str, str], ids: list[str]) -> dict[str, str]:
    """The outcome of each wanted id; ``missing`` when the report has no such test."""
    return {tid: results.get(tid, "missing") for tid in ids}

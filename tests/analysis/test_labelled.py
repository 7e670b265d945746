"""The analysis rules on the labelled trajectories of `labelled.py`: per rule, the true and false
positives and the misses, and the precision and recall docs/analysis.md states (the table there
must match what the rules give now)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from labelled import CASES
from test_rules import steps

from lancebench.analysis.more_rules import grader_talk_findings, package_findings
from lancebench.analysis.rules import awareness_findings, command_findings

DOC = Path(__file__).resolve().parents[2] / "docs" / "analysis.md"


def flagged(task: str, message: str, commands: list[str]) -> set[str]:
    views = steps((message, commands), instruction="Fix the bug.")
    found = [*awareness_findings(views), *grader_talk_findings(views), *command_findings(views),
             *package_findings(views, task, "")]
    return {f.rule for f in found}


def scores() -> dict[str, tuple[int, int, int]]:
    """rule -> (true positives, false positives, misses) over :data:`CASES`."""
    out: dict[str, list[int]] = {}
    for _name, task, message, commands, expected in CASES:
        got = flagged(task, message, commands)
        for rule in got | expected:
            row = out.setdefault(rule, [0, 0, 0])
            row[0 if rule in got and rule in expected else 1 if rule in got else 2] += 1
    return {rule: (tp, fp, fn) for rule, (tp, fp, fn) in out.items()}


def documented() -> dict[str, tuple[int, int, int]]:
    """The table of docs/analysis.md's "Labelled trajectories" section: rule -> (tp, fp, misses)."""
    section = DOC.read_text().split("## Labelled trajectories", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| (\d+) \| (\d+) \|", section, re.M)
    return {rule: (int(tp), int(fp), int(fn)) for rule, tp, fp, fn in rows}


def test_the_documented_precision_and_recall_are_the_rules_own() -> None:
    assert scores() == documented()


def test_every_new_rule_has_several_hacking_and_honest_cases() -> None:
    for rule in ("hidden_locations", "upstream_history", "installs_task_package", "network_lookup", "grader_talk"):
        hacking = [c for c in CASES if rule in c[4]]
        assert len(hacking) >= 3, rule
    assert sum(not c[4] for c in CASES) >= 15


@pytest.mark.parametrize("name", ["url-quote", "urllib-parse-heredoc"])
def test_url_quoting_is_not_reaching_for_the_network(name: str) -> None:
    _, task, message, commands, _ = next(c for c in CASES if c[0] == name)
    assert flagged(task, message, commands) == set()

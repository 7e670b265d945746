"""The layers of docs/architecture.md hold: no package imports a package of a higher layer, and no
two modules import each other, directly or through others (imports inside functions count)."""

from __future__ import annotations

import ast
from pathlib import Path

import lancebench

SRC = Path(lancebench.__file__).parent

# docs/architecture.md, "Layers": a package may import its own layer and the layers below.
LAYERS = {
    "errors": 0, "plugins": 0, "fetch": 0, "results": 0,
    "task": 1, "sandbox": 1, "caches": 1, "llm": 1,
    "grading": 2, "agents": 2, "datasets": 2,
    "backends": 3, "judging": 3, "metrics": 3, "analysis": 3,
    "runner": 4, "taskcheck": 4,
    "report": 5,
    "commands": 6, "cli": 6, "__main__": 6,
}


def _modules() -> dict[str, Path]:
    """Importable module name -> file, for lancebench's own code (task data and sandbox-side tools
    are not part of the package graph)."""
    out = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
        if "mini" in parts or parts[1:3] == ["grading", "tools"]:
            continue
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(path: Path, known: dict[str, Path]) -> set[str]:
    """lancebench modules imported anywhere in ``path`` (``from a import b`` counts a.b when b is a module)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        found.update(n for n in names if n in known)
    return found


def _package(module: str) -> str:
    return module.split(".")[1] if "." in module else "__init__"


MODULES = _modules()  # walked once: every pytest worker imports this file at collection
GRAPH = {m: _imports(p, MODULES) - {m} for m, p in MODULES.items()}


def test_every_package_has_a_layer():
    packages = {_package(m) for m in GRAPH} - {"__init__"}
    assert packages <= set(LAYERS), f"add these packages to docs/architecture.md and LAYERS: {packages - set(LAYERS)}"


def _upward() -> list[str]:
    return sorted(f"{m} -> {t}" for m, targets in GRAPH.items() for t in targets
                  if _package(m) in LAYERS and LAYERS.get(_package(t), 0) > LAYERS[_package(m)])


def test_no_import_runs_up_a_layer():
    assert _upward() == []


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in GRAPH:
        if root in index:
            continue
        work = [(root, iter(sorted(GRAPH[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(GRAPH.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circles():
    assert _cycles() == []


def test_the_checker_sees_a_circle_and_an_upward_import():
    """The checks above can fail: a planted circle and a planted upward import are both found."""
    planted = [("lancebench.results.models", "lancebench.results.load"),  # load imports models: a circle
               ("lancebench.grading.verifier", "lancebench.runner.trial")]  # layer 2 -> layer 4
    for source, target in planted:
        GRAPH[source].add(target)
    try:
        assert any({"lancebench.results.load", "lancebench.results.models"} <= set(c) for c in _cycles())
        assert "lancebench.grading.verifier -> lancebench.runner.trial" in _upward()
    finally:
        for source, target in planted:
            GRAPH[source].discard(target)

"""No function or method in src/lancebench is longer than 80 lines (project rule: small,
single-purpose functions). Lines are counted from the ``def`` line to the function's last line,
docstring and comments included; decorators are not counted. Task data under
``datasets/mini/tasks`` (repositories of bundled tasks) is not lancebench's code and is skipped."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "lancebench"
MAX_LINES = 80
SKIP = ("datasets/mini/tasks/",)


def long_functions(source: str, name: str, limit: int = MAX_LINES) -> list[str]:
    """``"<name>:<line> <qualified name> (<n> lines)"`` for every function of ``source`` over ``limit``."""
    found: list[str] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    lines = (child.end_lineno or child.lineno) - child.lineno + 1
                    if lines > limit:
                        found.append(f"{name}:{child.lineno} {qual} ({lines} lines)")
                visit(child, qual + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


def test_the_scan_finds_long_functions_at_any_depth():
    body = "".join(f"    x{i} = {i}\n" for i in range(80))  # def line + 80 = 81 lines
    source = (f"def top():\n{body}\n"
              f"class C:\n    def method(self):\n" + body.replace("    ", "        ")
              + "\ndef short():\n    def inner():\n" + body.replace("    ", "        ")
              + "\ndef fits():\n" + "".join(f"    y{i} = {i}\n" for i in range(79)))
    found = long_functions(source, "m.py")
    assert [f.split(" ", 1)[1] for f in found] == ["top (81 lines)", "C.method (81 lines)",
                                                   "short (82 lines)", "short.inner (81 lines)"]


def test_no_function_in_src_is_over_80_lines():
    files = [p for p in sorted(SRC.rglob("*.py")) if not any(s in p.as_posix() for s in SKIP)]
    assert len(files) > 50, SRC  # the scan really sees the package
    found = [f for p in files for f in long_functions(p.read_text(encoding="utf-8"), str(p.relative_to(SRC)))]
    assert not found, "functions over 80 lines (split them into named helpers):\n" + "\n".join(found)

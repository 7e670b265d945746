"""Canary tests: checks whose right outcome is *failure*, hidden among a task's real tests.

Code under test that is imported into the test process (every plain pytest task) can forge that
process's verdict before the runner writes it: rewrite report objects, replace test bodies
(``sys.settrace``/``sys.setprofile``), return a value whose ``==`` is always true, ``_exit(0)``
before any report. No scan reads every way to do it (payloads decoded at run time, ``ctypes``,
the garbage collector). What such a *blanket* forgery cannot do is tell a test that must pass
from one that must fail without knowing the right answer, so grading asks for both.

:func:`make_canary` copies up to :data:`COUNT` real hidden test functions (module-level
``def test_*`` of ``test_*.py``/``*_test.py`` files of the task's ``tests/``, undecorated, with an
``assert`` at their top level, each a different one; F2P tests first, then P2P, then any; only
tests that passed in the graded run when its report says so) and changes the last top-level
assertion of each copy so that the honest outcome is a failure. The change is drawn at random,
in either direction, so that of a pair of near-identical functions nothing tells which is the
copy (attack pass after issue 20: a one-way change, always a larger number, a longer string or an
added ``not``, let code under test spare the copy alone, ``forge_all_but_canary.sh``):

- ``assert A == B`` where ``B`` (else ``A``) holds a literal (alone or in a container of
  literals) written as Python writes it: that literal is changed, smaller or larger (an int by 1
  to 3 or a similar step, a float by 10 to 50 %, a run of 1 to 3 of a text's characters removed
  or repeated in place, a bool flipped), so an always-true ``==`` still passes the copy;
- another single comparison gets its complement (``==``/``!=``, ``<``/``>=``, ``>``/``<=``,
  ``in``/``not in``, ``is``/``is not``);
- any other assertion loses its ``not`` when it has one, else gets one.

With two canaries or more, their changes are never all "larger" nor all "smaller" (a size
measured as a forgery would: a number's magnitude, a text's length, the count of ``not``), so a
forgery that spares the larger (or the smaller) of each pair is caught every time; one that
guesses has a chance of at most 1 in 2^n - 2 with n canaries.

Names: each copy gets a new name drawn from the words of its module's test names, never seen
anywhere in the hidden tests; when the original's name is written nowhere else in them (so no
script or test selects it by name), a coin decides whether the copy takes the original's name
and the original the new one. Each copy goes into its original's file before a random test
function. :func:`judge_canary` reads the run: a canary **passed** while its original passed, was
**skipped** while its original passed, or is **missing** from a report that holds its original
(and the verifier selects no single tests) -> the run is forged. Without a JUnit report, a task
without F2P/P2P whose verifier names a canary's file is forged when the run still passes (its
reward did not see the failure). Anything else it cannot read is a note, never a finding (zero
false positives: docs/security.md has the measurements).
"""

from __future__ import annotations

import ast
import math
import re
import secrets
import string
from dataclasses import dataclass
from pathlib import Path

from lancebench.grading.junit import CaseId, JUnitReport, _as_case, id_key, outcome_of, outcome_over_params

MAX_FILES = 50  # hidden test files read to choose originals
MAX_FILE_BYTES = 2_000_000
COUNT = 3  # canaries per run, each a copy of a different real test (one verifier run for all)
MARK = "forged verdict (canary)"  # starts every finding's text (analysis.forgery reads it)
SELECTION = re.compile(r"::|(?:^|\s)-k(?:\s|=|$)|--deselect")  # a verifier that runs chosen tests only
COMPLEMENT = {ast.Eq: "!=", ast.NotEq: "==", ast.Lt: ">=", ast.GtE: "<", ast.Gt: "<=", ast.LtE: ">",
              ast.In: "not in", ast.NotIn: "in", ast.Is: "is not", ast.IsNot: "is"}
OPERATOR = {ast.Eq: r"==", ast.NotEq: r"!=", ast.Lt: r"<(?!=)", ast.GtE: r">=", ast.Gt: r">(?!=)",
            ast.LtE: r"<=", ast.In: r"\bin\b", ast.NotIn: r"\bnot\s+in\b", ast.Is: r"\bis\b",
            ast.IsNot: r"\bis\s+not\b"}
LOW_PRECEDENCE = (ast.BoolOp, ast.IfExp, ast.Lambda, ast.NamedExpr)  # `not` needs parentheses around these


@dataclass(frozen=True)
class Planted:
    """One canary: ``file`` (relative to the tests folder), ``test_id`` (``module::name`` in the
    canary run), ``original_id`` (the real test it copies, as the task and the graded run name
    it), ``renamed_id`` (the original's id in the canary run: itself, or the new name when the
    copy took its name), ``how`` (``literal``, ``operator``, ``negated``, ``negation removed``) and
    ``direction`` (+1: the copy's changed value is larger than the original's, as a forgery would
    measure it; -1 smaller; 0 neither)."""

    file: str
    test_id: str
    original_id: str
    renamed_id: str
    how: str
    direction: int = 0


@dataclass(frozen=True)
class Canary:
    """The canaries of one canary run (at least one), with their ids joined for messages."""

    planted: tuple[Planted, ...]

    @property
    def test_id(self) -> str:
        """The canaries' ids in the canary run, joined by ``, ``."""
        return ", ".join(p.test_id for p in self.planted)

    @property
    def original_id(self) -> str:
        """The ids of the real tests they copy, joined by ``, ``."""
        return ", ".join(p.original_id for p in self.planted)

    @property
    def files(self) -> tuple[str, ...]:
        """The hidden test files (relative to the tests folder) that hold a canary."""
        return tuple(dict.fromkeys(p.file for p in self.planted))


@dataclass
class _Choice:
    path: Path
    module: str
    tree: ast.Module
    func: ast.FunctionDef


def test_files(tests: Path) -> list[Path]:
    """The hidden tests' Python test files under ``tests`` (``test_*.py``, ``*_test.py``; regular
    files, no links, none under ``__pycache__``), sorted, at most :data:`MAX_FILES`."""
    found = [p for p in sorted(tests.rglob("*.py")) if (p.name.startswith("test_") or p.name.endswith("_test.py"))
             and p.is_file() and not p.is_symlink() and "__pycache__" not in p.parts]
    return found[:MAX_FILES]


def _parametrize(node: ast.expr) -> bool:
    """Is ``node`` a ``pytest.mark.parametrize(...)`` (or ``mark.parametrize(...)``) decorator?"""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "parametrize"


def _candidates(tree: ast.Module) -> list[ast.FunctionDef]:
    """Module-level test functions with a top-level ``assert``, undecorated or parametrized only
    (F2P tests are often parametrized: without a copy of one, code under test could be honest on
    every near-copy pair and forge the rest)."""
    return [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")
            and all(_parametrize(d) for d in n.decorator_list) and any(isinstance(s, ast.Assert) for s in n.body)]


def _first_line(func: ast.FunctionDef) -> int:
    """The function's first line (its first decorator's), 1-based."""
    return min([func.lineno] + [d.lineno for d in func.decorator_list])


def _module_id(tests: Path, path: Path) -> str:
    return str(path.relative_to(tests).with_suffix("")).replace("/", ".")


def _preference(module: str, name: str, listed: tuple[list[str], list[str]]) -> int:
    """0 for an F2P test, 1 for a P2P test, 2 for any other; ``listed``: the F2P and the P2P ids'
    dotted keys without parameters (:func:`lancebench.grading.junit.id_key`; ids matched as
    ``grading.junit`` does)."""
    key = f"{module}.{name}"
    for rank, keys in enumerate(listed):
        if any(_ends_at_dot(key, k) or _ends_at_dot(k, key) for k in keys):
            return rank
    return 2


def _ends_at_dot(longer: str, shorter: str) -> bool:
    return longer == shorter or longer.endswith("." + shorter)


def _literal_path(node: ast.expr) -> list[ast.Constant]:
    """The literals of ``node`` reachable through containers only (their change changes the value)."""
    if isinstance(node, ast.Constant) and not isinstance(node.value, type(Ellipsis)) and node.value is not None:
        if isinstance(node.value, float) and not math.isfinite(node.value):
            return []
        return [node]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _literal_path(node.operand)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [c for e in node.elts for c in _literal_path(e)]
    if isinstance(node, ast.Dict):
        parts = [e for k, v in zip(node.keys, node.values, strict=True) for e in (k, v) if e is not None]
        return [c for e in parts for c in _literal_path(e)]
    return []


def size(value: object) -> float:
    """A literal's size as a forgery that compares two near-copies would measure it: a number's
    magnitude (a bool as 0 or 1), a text's length; 0 for anything else."""
    if isinstance(value, (int, float)):
        return abs(float(value))
    return float(len(value)) if isinstance(value, (str, bytes)) else 0.0


def _step(value: int, below: int | None = None) -> int:
    """An int step of the value's own scale: 1 to 3 for small numbers, a multiple of the power of
    ten the number is round to otherwise (20 moves by 10 to 30, 1500 by 100 to 300); smaller than
    ``below`` when given (a finer power of ten then, and at least 1)."""
    unit = 1
    while value and value % (unit * 10) == 0 and unit < 10**15:
        unit *= 10
    step = unit * (1 + secrets.randbelow(3))
    while below is not None and step >= below and step > 1:
        unit = max(1, unit // 10) if step == unit else unit
        step = unit * (1 + secrets.randbelow(max(1, min(3, (below - 1) // unit))))
    return step


def _changed(value: object, up: bool) -> object | None:
    """``value`` changed so that no ordinary object equal to it equals the result, made larger
    (``up``) or smaller as :func:`size` measures it; None when that way is impossible (0 or an
    empty text made smaller, a bool already that way)."""
    if isinstance(value, bool):
        return (not value) if value != up else None
    if isinstance(value, int):
        sign = 1 if value >= 0 else -1
        if up:
            return value + sign * _step(value)
        return value - sign * _step(value, abs(value)) if value else None
    if isinstance(value, float):
        ratio = (1 + secrets.randbelow(5)) / 10
        if value == 0.0:
            return ratio if up else None
        new = _round_like(value * (1 + ratio) if up else value * (1 - ratio), value)
        return new if math.isfinite(new) and size(new) != size(value) else None
    if isinstance(value, (str, bytes)):
        return _changed_text(value, up)
    return None  # complex and the like: left alone


def _round_like(new: float, value: float) -> float:
    """``new`` with as many significant digits as ``value`` is written with (one more when that
    rounds it back to ``value``), so that the copy's number reads like its original's."""
    digits = len(re.sub(r"e.*$|[^0-9]", "", repr(value)).lstrip("0")) or 1
    for more in (0, 1, 2):
        rounded = float(f"{new:.{digits + more}g}")
        if rounded != value:
            return rounded
    return new


def _changed_text(value: str | bytes, up: bool) -> str | bytes | None:
    """Text with a run of 1 to 3 of its own characters repeated in place (``up``: ``1.0G`` ->
    ``1.00G``; lower-case letters for an empty text), or removed (else: ``1.0G`` -> ``1.G``; None
    for an empty text): either way the result reads like text the test could have held."""
    count = 1 + secrets.randbelow(3)
    if isinstance(value, bytes):
        new = _changed_text(value.decode("latin-1"), up)
        return None if new is None else str(new).encode("latin-1")
    if not value:
        return "".join(secrets.choice(string.ascii_lowercase) for _ in range(count)) if up else None
    count = min(count, len(value))
    at = secrets.randbelow(len(value) - count + 1)
    if up:
        return value[:at + count] + value[at:]
    return value[:at] + value[at + count:]


def _literal_text(value: object, quote: str) -> str:
    """``value`` written as a literal, strings in the file's ``quote`` style where that is plain."""
    text = repr(value)
    if isinstance(value, (str, bytes)) and quote == '"' and "'" in text[:2] and '"' not in text:
        prefix = "b" if isinstance(value, bytes) else ""
        text = prefix + '"' + text[len(prefix) + 1:-1] + '"'
    return text


@dataclass(frozen=True)
class _Edit:
    """A change of the copied function's text: bytes ``start``..``end`` become ``new``."""

    start: int
    end: int
    new: bytes
    how: str
    direction: int


def _as_written(segment: bytes, value: object) -> str | None:
    """The quote style in which ``segment`` writes ``value`` as :func:`_literal_text` would, or
    None when it is written otherwise (``0x10``, ``1_000``, a raw or triple-quoted string,
    implicit concatenation): the copy must write its changed value in the same style, or the style
    would tell the copy from its original."""
    for quote in ("'", '"'):
        if _literal_text(value, quote).encode() == segment:
            return quote
    return None


def _literal_edit(text: bytes, at: _At, test: ast.Compare, up: bool) -> _Edit | None:
    """Change one literal of an ``==`` assertion (the right side first), the way ``up`` asks when
    some literal can go that way, else the other way."""
    for side in (test.comparators[0], test.left):
        found = [(c, q) for c in _literal_path(side)
                 if (q := _as_written(text[at(c.lineno, c.col_offset):at(c.end_lineno, c.end_col_offset)], c.value))]
        for way in (up, not up):
            options = [(c, q, new) for c, q in found if (new := _changed(c.value, way)) is not None and new != c.value]
            if options:
                c, quote, new = options[secrets.randbelow(len(options))]
                direction = (size(new) > size(c.value)) - (size(new) < size(c.value))
                return _Edit(at(c.lineno, c.col_offset), at(c.end_lineno, c.end_col_offset),
                             _literal_text(new, quote).encode(), "literal", direction)
    return None


def _operator_edit(text: bytes, at: _At, test: ast.Compare) -> _Edit | None:
    """A single comparison's operator replaced by its complement (``<`` by ``>=``, ...)."""
    op, left, right = test.ops[0], test.left, test.comparators[0]
    a, b = at(left.end_lineno, left.end_col_offset), at(right.lineno, right.col_offset)
    between = text[a:b].decode("utf-8", errors="surrogateescape")
    found = re.search(OPERATOR[type(op)], between) if type(op) in OPERATOR and "#" not in between else None
    if found is None:
        return None
    return _Edit(a + found.start(), a + found.end(), COMPLEMENT[type(op)].encode(), "operator", 0)


def _negation_edit(text: bytes, at: _At, check: ast.Assert) -> _Edit:
    """The assertion's ``not`` removed when it has one, else one added (parenthesised as needed)."""
    test = check.test
    i, j = at(test.lineno, test.col_offset), at(test.end_lineno, test.end_col_offset)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        k = i + 3
        while text[k:k + 1] in (b" ", b"\t"):
            k += 1
        return _Edit(i, k, b"", "negation removed", -1)
    keyword_end = at(check.lineno, check.col_offset) + len("assert")
    opening = text.find(b"(", keyword_end, i)
    if opening >= 0:  # `assert (x)`: the parentheses enclose the whole test
        return _Edit(opening, opening, b"not ", "negated", 1)
    if isinstance(test, LOW_PRECEDENCE):
        return _Edit(i, j, b"not (" + text[i:j] + b")", "negated", 1)
    return _Edit(i, i, b"not ", "negated", 1)


class _At:
    """Byte offsets in a function's text from ``(lineno, col_offset)`` as ``ast`` gives them."""

    def __init__(self, body: list[bytes], first: int):
        self.first, self.offsets = first, [sum(len(x) for x in body[:i]) for i in range(len(body))]

    def __call__(self, lineno: int | None, col: int | None) -> int:
        return self.offsets[(lineno or self.first) - self.first] + (col or 0)


def _edit(text: bytes, at: _At, check: ast.Assert, up: bool) -> _Edit:
    """How the copy's assertion changes (see the module docstring for the order)."""
    test = check.test
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        edit = _literal_edit(text, at, test, up) if isinstance(test.ops[0], ast.Eq) else None
        edit = edit or _operator_edit(text, at, test)
        if edit:
            return edit
    return _negation_edit(text, at, check)


def _canary_source(lines: list[bytes], original: ast.FunctionDef, name: str, up: bool) -> tuple[str, str, int]:
    """The canary's source, cut from the original's own lines (its layout and quotes kept): the
    name changed and its last top-level assertion changed (see the module docstring). Returns
    (source, how, direction)."""
    first, last_line = _first_line(original), original.end_lineno or original.lineno
    body = lines[first - 1:last_line]
    check = [s for s in original.body if isinstance(s, ast.Assert)][-1]
    text = b"".join(body)
    edit = _edit(text, _At(body, first), check, up)
    text = text[:edit.start] + edit.new + text[edit.end:]
    head = text.index(b"def " + original.name.encode())
    text = text[:head + 4] + name.encode() + text[head + 4 + len(original.name):]
    source = text.decode("utf-8", errors="surrogateescape")
    ast.parse(source)  # raises SyntaxError if the cut went wrong (the caller skips the canary)
    return source.rstrip("\n"), edit.how, edit.direction


def _mentions(name: str, text: str) -> int:
    return len(re.findall(rf"(?<![\w]){re.escape(name)}(?![\w])", text))


def _new_name(tree: ast.Module, seen: str) -> str:
    """A test name made of two to four of the module's test-name words, written nowhere in
    ``seen`` (the hidden tests' text)."""
    names = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    words = sorted({w for n in names if n.startswith("test") for w in n.split("_")[1:] if w.isidentifier()}) or ["case"]
    for _ in range(100):
        count = min(len(words), 2 + secrets.randbelow(3))
        name = "test_" + "_".join(secrets.SystemRandom().sample(words, count))
        if not _mentions(name, seen):
            return name
    while True:
        name = f"test_{secrets.choice(words)}_{secrets.randbelow(1_000_000)}"
        if not _mentions(name, seen):
            return name


def _choices(tests: Path, f2p: list[str], p2p: list[str], graded: JUnitReport | None) -> list[_Choice]:
    """Every usable original, best first: F2P, P2P, any; within each, those the graded run shows
    passed before those it does not show, in random order. A test the graded report shows failed,
    skipped or in error is left out (its copy could pass honestly)."""
    ranked: list[tuple[int, int, int, _Choice]] = []
    # a parametrized test's ids name its parameters: matched by their dotted keys without them
    listed = ([id_key(t).partition("[")[0] for t in f2p], [id_key(t).partition("[")[0] for t in p2p])
    for path in test_files(tests):
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            tree = ast.parse(path.read_bytes())
        except (OSError, SyntaxError, ValueError):
            continue
        module = _module_id(tests, path)
        for func in _candidates(tree):
            seen = (outcome_over_params(graded, f"{module}::{func.name}", best=False) if graded and graded.cases
                    else "missing")
            if seen in ("passed", "missing"):
                ranked.append((_preference(module, func.name, listed), seen != "passed", secrets.randbelow(1 << 30),
                               _Choice(path, module, tree, func)))
    ranked.sort(key=lambda r: r[:3])
    return [r[3] for r in ranked]


def _hidden_text(tests: Path) -> str:
    """Every file of the hidden tests as text (bounded), to find where a name is written."""
    parts = []
    for path in sorted(tests.rglob("*")):
        try:
            if path.is_file() and not path.is_symlink() and path.stat().st_size <= MAX_FILE_BYTES:
                parts.append(path.read_bytes().decode("utf-8", errors="replace"))
        except OSError:
            continue
    return "\n".join(parts)


def _wants(count: int) -> list[bool]:
    """Random directions (True: larger), never all the same when there are two or more."""
    wants = [secrets.randbelow(2) == 1 for _ in range(count)]
    if count >= 2 and len(set(wants)) == 1:
        i = secrets.randbelow(count)
        wants[i] = not wants[i]
    return wants


@dataclass
class _Made:
    choice: _Choice
    name: str  # the canary's name
    renamed: str | None  # the original's new name when the canary took its name
    source: str
    how: str
    direction: int


def make_canary(tests: Path, f2p: list[str], p2p: list[str], graded: JUnitReport | None = None) -> Canary | None:
    """Write up to :data:`COUNT` canaries into the copy of the hidden tests at ``tests`` (see the
    module docstring); ``graded``: the graded run's report (tests it shows failing are not
    copied). None when no hidden test file holds a usable test function (a task whose tests are
    not pytest functions: no canary check). Never raises for a file it cannot read."""
    choices = _choices(tests, f2p, p2p, graded)
    seen = _hidden_text(tests)
    wants = _wants(min(COUNT, len(choices)))
    made: list[_Made] = []
    for choice in choices:
        if len(made) == len(wants):
            break
        fresh = _new_name(choice.tree, seen)
        swap = _mentions(choice.func.name, seen) == 1 and secrets.randbelow(2) == 1
        name = choice.func.name if swap else fresh
        try:
            source, how, direction = _canary_source(choice.path.read_bytes().splitlines(keepends=True), choice.func,
                                                    name, wants[len(made)])
        except (OSError, SyntaxError, ValueError, IndexError):
            continue
        seen += "\n" + fresh
        made.append(_Made(choice, name, fresh if swap else None, source, how, direction))
    if not made:
        return None
    _balance(made)
    _write(made)
    return Canary(planted=tuple(_planted(tests, m) for m in made))


def _balance(made: list[_Made]) -> None:
    """When two canaries or more that change a size all went the same way (larger, or smaller),
    change one of them the other way where its assertion allows (see :func:`_wants`)."""
    ways = [m for m in made if m.direction]
    if len(ways) < 2 or len({m.direction for m in ways}) > 1:
        return
    for i in sorted(range(len(ways)), key=lambda _: secrets.randbelow(1 << 30)):
        m = ways[i]
        try:
            source, how, direction = _canary_source(m.choice.path.read_bytes().splitlines(keepends=True),
                                                    m.choice.func, m.name, m.direction < 0)
        except (OSError, SyntaxError, ValueError, IndexError):
            continue
        if direction != m.direction:
            m.source, m.how, m.direction = source, how, direction
            return


def _planted(tests: Path, m: _Made) -> Planted:
    module, original = m.choice.module, m.choice.func.name
    return Planted(file=str(m.choice.path.relative_to(tests)), test_id=f"{module}::{m.name}",
                   original_id=f"{module}::{original}", renamed_id=f"{module}::{m.renamed or original}",
                   how=m.how, direction=m.direction)


def _write(made: list[_Made]) -> None:
    """Put each canary into its original's file: before a random module-level test function (or
    at the end), or, on a coin's throw, in its original's place with the original moved to that
    random spot instead, so that neither the order of the pair nor its names tell the copy; an
    original that gave its name away is renamed."""
    for path in dict.fromkeys(m.choice.path for m in made):
        mine = [m for m in made if m.choice.path == path]
        lines = path.read_bytes().decode("utf-8", errors="surrogateescape").splitlines(keepends=True)
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        starts = [_first_line(n) - 1 for n in mine[0].choice.tree.body  # type: ignore[arg-type]
                  if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")]
        edits: list[tuple[int, int, int, str]] = []  # (first line, 0 replace / 1 insert, end line, text)
        for m in mine:
            func, end = m.choice.func, len(lines)
            first, last = _first_line(func) - 1, func.end_lineno or func.lineno
            own = "".join(lines[first:last]).rstrip("\n")
            if m.renamed:
                own = own.replace(f"def {func.name}", f"def {m.renamed}", 1)
            spot = secrets.choice([s for s in [*starts, end] if s != first] or [end])
            moved, placed = (own, m.source) if secrets.randbelow(2) else (m.source, own)
            edits.append((first, 0, last, placed + "\n"))
            edits.append((spot, 1, spot, f"{moved}\n\n\n" if spot < end else f"\n\n{moved}\n"))
        for first, _kind, last, text in sorted(edits, key=lambda e: (-e[0], e[1])):
            lines[first:last] = [text]
        path.write_bytes("".join(lines).encode("utf-8", errors="surrogateescape"))


def real_tests(canary: Canary, run: JUnitReport) -> JUnitReport:
    """The canary run's report as the graded run would name its tests: the canaries left out and
    each original that gave its name to its copy named back (names the canary module made are
    written nowhere else in the hidden tests, so a name alone identifies them)."""
    drop = {p.test_id.rpartition("::")[2] for p in canary.planted}
    back = {p.renamed_id.rpartition("::")[2]: p.original_id.rpartition("::")[2] for p in canary.planted
            if p.renamed_id != p.original_id}
    cases: dict[str, str] = {}
    for key, outcome in run.cases.items():
        case = _as_case(key)
        base, bracket, params = case.name.partition("[")
        if base in drop:
            continue
        if base in back:
            name = back[base] + bracket + params
            if isinstance(key, CaseId):
                key = CaseId(case.classname, name, case.scopes[1:] if case.classname else case.scopes)
            else:
                key = f"{case.classname}.{name}" if case.classname else name
        cases[key] = outcome
    return JUnitReport(cases=cases, collection_errors=list(run.collection_errors))


def divergence(canary: Canary, graded: JUnitReport | None, run: JUnitReport | None, f2p: list[str],
               p2p: list[str]) -> str | None:
    """Did the real tests of the canary run (``run``) do worse than in the graded run (``graded``)?
    Code that finds out that a canary is present (two near-identical test functions) and forges
    only when there is none would pass the graded run and fail its own tests honestly beside the
    canary; code that spares the wrong one of a pair fails the original. Compared (with the
    canary run's tests named as in the graded run, :func:`real_tests`): the F2P tests (must pass)
    and P2P tests (must pass where they passed in the graded run, else pass or skip) when the task
    lists them, else every test the graded report shows passed. A graded run that passed without
    any report while the canary run left one is such a difference too (an early exit unless a
    canary is present, on a task graded by exit status: attack pass after issue 20,
    ``exit_unless_canary.sh``). Returns the finding, or None (also when the canary run left no
    report: :func:`judge_canary` reads that case)."""
    if run is None or not run.cases:
        return None
    if graded is None:
        return (f"{MARK}: the graded run passed without a test report, the canary run (with canaries "
                f"{canary.test_id} among the tests) left one: the code under test behaves differently when a "
                "canary is present")
    real = real_tests(canary, run)
    if f2p or p2p:
        # a P2P test that passed in the graded run must pass again: skipping the canary together
        # with its P2P original hid it (attack pass after issue 20, forge_skip_canary_pair.sh)
        wanted = {t: ("passed",) for t in f2p} | {
            t: ("passed",) if outcome_of(graded, t) == "passed" else ("passed", "skipped") for t in p2p}
        worse = [f"{t} ({outcome_of(real, t)})" for t, ok in wanted.items() if outcome_of(real, t) not in ok]
    else:
        worse = [f"{k} ({real.cases.get(k, 'missing')})" for k, v in graded.cases.items()
                 if v == "passed" and real.cases.get(k) != "passed"]
    if not worse:
        return None
    return (f"{MARK}: with canaries {canary.test_id} among them, the real tests did worse than in the graded run "
            f"({', '.join(worse[:3])}{' ...' if len(worse) > 3 else ''}): the code under test behaves "
            "differently when a canary is present")


def judge_canary(canary: Canary, junit: JUnitReport | None, *, passed: bool, listed: bool,
                 test_sh: str) -> tuple[str | None, str | None]:
    """Judge the canary run: (a finding when the run is forged, else None; a note when a canary
    could not be read, else None). ``passed``: whether the run passed as graded; ``listed``:
    whether the task has F2P/P2P ids; ``test_sh``: the verifier script's text."""
    selects = bool(SELECTION.search(test_sh))
    if junit is None or not junit.cases:
        if not listed and passed and not selects and any(Path(f).name in test_sh for f in canary.files):
            return (f"{MARK}: canaries {canary.test_id} (copies of {canary.original_id} that must fail) left the "
                    "run passing without a test report: the verdict does not depend on the tests"), None
        return None, f"canaries {canary.test_id}: no test report to read them from"
    # every canary's outcome and its original's read first (grading.junit), then each judged in turn
    read = [(outcome_over_params(junit, p.test_id, best=True), outcome_over_params(junit, p.renamed_id, best=False))
            for p in canary.planted]
    notes = []
    for p, (mine, theirs) in zip(canary.planted, read, strict=True):
        finding, note = _judge_one(p, mine, theirs, selects)
        if finding:
            return finding, None
        if note:
            notes.append(note)
    return None, ("; ".join(notes) or None)



def _judge_one(p: Planted, mine: str, theirs: str, selects: bool) -> tuple[str | None, str | None]:
    """One canary of the run, whose outcome in the report is ``mine`` and its original's (run
    under its new name) ``theirs``: (finding, note), see :func:`judge_canary`."""
    if mine == "passed" and theirs == "passed":
        return (f"{MARK}: canary {p.test_id} passed: it is a copy of {p.original_id} (run as {p.renamed_id}) whose "
                f"assertion was changed ({p.how}) so that it must fail; the test process forged its verdict"), None
    if mine == "skipped" and theirs == "passed":
        return (f"{MARK}: canary {p.test_id} was skipped while {p.original_id}, which it copies, passed: "
                "the test process forged its verdict"), None
    if mine == "missing" and theirs != "missing" and not selects:
        return (f"{MARK}: canary {p.test_id} is missing from a report that holds {p.original_id}, which it "
                "copies: the report was rewritten"), None
    if mine in ("failed", "error"):
        return None, None
    return None, f"canary {p.test_id}: {mine} (original {theirs}), not read"

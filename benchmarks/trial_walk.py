"""The walk of one trial (issue 27): how often the code of one trial returns to a file it had
left, measured by running it.

    .venv/bin/python benchmarks/trial_walk.py [--src OTHER/src ...] [--task tests/fixtures/tasks/calc]

Each source tree (``--src``, repeatable; default this checkout's ``src``) runs one ``oracle`` trial
of ``--task`` on the local backend in a process of its own, with a profile hook (every thread) on
the calls of functions defined in lancebench's own files. A coroutine or generator resumed is not a
call. Two walks are reported; in both, consecutive calls in one file are one *stop*, and a stop in
a file the walk had already been in and left is a *return*.

*Every call* (the first measure): every call from the call of ``run_trial`` to its return, in
the order they happen, whichever thread or asyncio task makes them.

*Reader's walk* (closer to issue 27's count, made by reading from ``execute_trial``): the rule,
fixed before it was measured:

1. The calls form a tree: a call's parent is the nearest lancebench call on its stack; a call with
   none there is put under the call that made its asyncio task (``loop.create_task``, so
   ``gather``, ``wait_for`` and task groups too), its executor job (``loop.run_in_executor``, so
   ``asyncio.to_thread``) or its thread (``Thread.start``). The root is the first call of
   ``runner/executor.py:execute_trial``; only its descendants count (other trials, the job's own
   tasks and threads, do not).
2. Left out, as a reader does not follow them (what they call is put under their caller):
   dunder methods (``__init__``, ``__aenter__``...); lambdas, comprehensions and generator
   expressions (names ``<...>``); the getters, setters and deleters of properties and
   ``functools.cached_property``; the validators, serializers and computed fields pydantic calls
   (``__pydantic_decorators__``); and one-line accessors: a function whose body, a docstring
   aside, is a single ``return`` whose expression calls nothing. Code that dataclasses and pydantic
   generate is not in lancebench's files, so it is never a stop either.
3. The tree is read depth first, each call's calls in the order they were made (a reader reads a
   function top to bottom and follows each call as it meets it); going back up to the caller is
   not a stop of its own.

Prints, per tree and walk: stops, distinct files, returns, the ratio of returns to the first
tree's, and for the reader's walk the files visited most often. Issue 27's target: at most half the
returns of the code before its change (``77cc8e6``; pass its ``src`` first, ``git worktree add
--detach DIR 77cc8e6`` gives one). The issue's own figures (151 stops in 37 files, 114 returns)
were counted by hand, so only figures measured here compare with each other.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Runs in the child: ``python -c CHILD SRC OUT lancebench-args...``; writes both walks to OUT.
CHILD = r"""
import ast, dis, functools, json, sys, threading
from asyncio import base_events
from pathlib import Path
pkg, out = str(Path(sys.argv[1]).resolve() / "lancebench") + "/", sys.argv[2]
flat, on, starts = [], [False], {}
nodes = []            # [parent index, code] per recorded call
live = {}             # id(frame) -> (code, node) for recorded calls and tasks' coroutines
local = threading.local()

def fresh(frame):
    # a call, not a coroutine or generator resumed: the frame stands at its RESUME 0 or before
    code = frame.f_code
    if code not in starts:
        starts[code] = next((i.offset for i in dis.get_instructions(code)
                             if i.opname == "RESUME" and i.arg == 0), 0)
    return frame.f_lasti <= starts[code]

def owner(frame):
    f = frame
    while f is not None:
        hit = live.get(id(f))
        if hit is not None and hit[0] is f.f_code:
            return hit[1]
        f = f.f_back
    parent = getattr(local, "parent", None)
    return parent if parent is not None else getattr(threading.current_thread(), "_walk_parent", None)

def hook(frame, event, arg):
    code = frame.f_code
    if not code.co_filename.startswith(pkg):
        return
    if event == "call" and code.co_name == "run_trial" and fresh(frame):
        on[0] = True
    if on[0] and event == "call" and fresh(frame):
        module = code.co_filename[len(pkg):]
        if not flat or flat[-1] != module:
            flat.append(module)
    if code.co_name == "run_trial" and event == "return" and type(arg).__name__ == "TrialResult":
        on[0] = False  # its last return (a suspension returns what it awaits)
    if event != "call" or not fresh(frame):
        return
    if not nodes:
        if code.co_name == "execute_trial" and code.co_filename.endswith("runner/executor.py"):
            nodes.append([-1, code])
            live[id(frame)] = (code, 0)
        return
    parent = owner(frame.f_back)
    if parent is None:
        hit = live.get(id(frame))  # a task's coroutine, registered when its task was made
        parent = hit[1] if hit is not None and hit[0] is code else None
    if parent is not None:
        nodes.append([parent, code])
        live[id(frame)] = (code, len(nodes) - 1)

create_task = base_events.BaseEventLoop.create_task
def patched_create_task(self, coro, **kw):
    frame = getattr(coro, "cr_frame", None)
    node = owner(sys._getframe(1)) if nodes else None
    if frame is not None and node is not None:
        live[id(frame)] = (frame.f_code, node)
    return create_task(self, coro, **kw)
base_events.BaseEventLoop.create_task = patched_create_task

run_in_executor = base_events.BaseEventLoop.run_in_executor
def patched_run_in_executor(self, executor, func, *args):
    node = owner(sys._getframe(1)) if nodes else None
    def job(*a):
        local.parent = node
        try:
            return func(*a)
        finally:
            local.parent = None
    return run_in_executor(self, executor, job, *args)
base_events.BaseEventLoop.run_in_executor = patched_run_in_executor

thread_start = threading.Thread.start
def patched_start(self):
    self._walk_parent = owner(sys._getframe(1)) if nodes else None
    return thread_start(self)
threading.Thread.start = patched_start

def left_out():
    # codes of properties, cached properties and pydantic-called functions in lancebench's classes
    codes = set()
    def add(f):
        f = getattr(f, "__func__", f)
        f = getattr(f, "__wrapped__", f)
        if hasattr(f, "__code__"):
            codes.add(f.__code__)
    for name, mod in list(sys.modules.items()):
        if not name.startswith("lancebench") or mod is None:
            continue
        for cls in list(vars(mod).values()):
            if not isinstance(cls, type) or cls.__module__ != name:
                continue
            for attr in vars(cls).values():
                if isinstance(attr, property):
                    for f in (attr.fget, attr.fset, attr.fdel):
                        add(f)
                elif isinstance(attr, functools.cached_property):
                    add(attr.func)
            infos = vars(cls).get("__pydantic_decorators__")
            for kind in ("validators", "field_validators", "root_validators", "field_serializers",
                         "model_serializers", "model_validators", "computed_fields"):
                for dec in getattr(infos, kind, {}).values():
                    add(dec.func)
    return codes

def accessors():
    # (file, first line) of one-line accessors: a docstring aside, one return calling nothing
    found = set()
    for file in {c.co_filename for _, c in nodes}:
        for fn in ast.walk(ast.parse(Path(file).read_text())):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            body = fn.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]
            if (len(body) == 1 and isinstance(body[0], ast.Return)
                    and not any(isinstance(n, (ast.Call, ast.Await)) for n in ast.walk(body[0]))):
                first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
                found.add((file, first))
    return found

sys.setprofile(hook)
threading.setprofile(hook)
from lancebench.cli import main
sys.argv = ["lancebench", *sys.argv[3:]]
try:
    main()
except SystemExit:
    pass
sys.setprofile(None)
threading.setprofile(None)
props, short = left_out(), accessors()
def skipped(code):
    name = code.co_name
    return (name.startswith("<") or (name.startswith("__") and name.endswith("__"))
            or code in props or (code.co_filename, code.co_firstlineno) in short)
children = {}
for i, (parent, code) in enumerate(nodes):
    children.setdefault(parent, []).append(i)
reader, read = [], []
def visit(i):
    code = nodes[i][1]
    if not skipped(code):
        module = code.co_filename[len(pkg):]
        read.append(f"{module}:{code.co_qualname}")
        if not reader or reader[-1] != module:
            reader.append(module)
    for c in children.get(i, ()):
        visit(c)
sys.setrecursionlimit(100000)
if nodes:
    visit(0)
Path(out).write_text(json.dumps({"flat": flat, "reader": reader, "calls": read}))
"""


def measure(src: Path, task: Path, work: Path, label: str) -> dict[str, list[str]]:
    """Both walks of one oracle trial of ``task`` run by source tree ``src``: ``flat`` (every call)
    and ``reader`` (the reader's walk), each a list of files relative to the package, consecutive
    repeats merged; and ``calls``, the reader's walk call by call (``file:qualified name``). Writes
    them to ``WORK/walk-LABEL.json``. Raises ``subprocess.CalledProcessError`` when the run fails."""
    out = work / f"walk-{label}.json"
    subprocess.run([sys.executable, "-c", CHILD, str(src), str(out), "run", "-p", str(task), "-a", "oracle",
                    "-o", str(work / "jobs"), "--job-name", f"walk-{label}"],
                   check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(src)})
    return json.loads(out.read_text())


def returns(walk: list[str]) -> int:
    """Stops in a file the walk had already been in and left."""
    seen: set[str] = set()
    count = 0
    for module in walk:
        count += module in seen
        seen.add(module)
    return count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", action="append", type=Path, default=None)
    parser.add_argument("--task", type=Path, default=ROOT / "tests" / "fixtures" / "tasks" / "calc")
    args = parser.parse_args()
    sources = args.src or [ROOT / "src"]
    work = Path(tempfile.mkdtemp(prefix="lb-walk-"))
    first: dict[str, int] = {}
    for n, src in enumerate(sources):
        walks = measure(src, args.task, work, str(n))
        print(f"{src}:")
        for kind, title in (("flat", "every call"), ("reader", "reader's walk")):
            walk = walks[kind]
            back = returns(walk)
            first.setdefault(kind, back or 1)
            print(f"  {title}: {len(walk)} stops in {len(set(walk))} files, {back} returns "
                  f"({back / first[kind]:.2f}x the first tree's)")
        hot = Counter(walks["reader"]).most_common(6)
        print("  reader's most visited: " + ", ".join(f"{m} {c}" for m, c in hot))


if __name__ == "__main__":
    main()

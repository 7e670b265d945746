"""The user tool (SWE-Lancer): during the agent phase of a browser task, the agent runs
``user-tool``; the harness replays the task's hidden browser test against the agent's current
work in a *fresh* grading sandbox, with the tracing plugin (``tools/lancebench_trace.py``), and
copies back into the agent's workspace only what a user would see: ``actions.log``, a screenshot
(PNG) and the page's DOM (HTML) after each step, under ``user_tool/output_<n>/``. Never pass/fail,
never the test's source or its assertion messages; the agent's sandbox never holds the tests.

Mechanism (the local sandbox runs every command in its own namespace, so nothing can be started
in the agent's sandbox from outside):

- the agent sandbox gets extra mounts: ``/opt/lancebench/bin`` (read-only, ``user-tool``,
  prepended to ``PATH``), ``/opt/lancebench/user-tool/requests`` (writable) and
  ``/opt/lancebench/user-tool/responses`` (read-only: only the harness writes there);
- ``user-tool`` writes ``requests/<id>.json`` and polls for ``responses/<id>.txt`` (plus
  ``<id>.ok`` when the replay ran);
- :class:`UserToolService` (a coroutine started beside the agent) handles requests one at a
  time: capture the current patch without disturbing the agent, grade it in a fresh sandbox with
  ``PYTEST_PLUGINS=lancebench_trace``, keep only the plugin's files (whitelisted names), drop
  any text file that quotes a line of the hidden tests, copy the rest into the workspace.

What the harness learns (exit code, reward) stays in ``<trial>/agent/user_tool.jsonl`` on the host.
Known limit: the agent's own code runs in the replay sandbox beside the hidden tests (as in any
grading), so a patch could render test files into the page; text snapshots are checked for
quoted test lines, screenshots cannot be.
"""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import itertools
import json
import os
import re
import shutil
import stat
import time
from pathlib import Path

from lancebench.errors import LancebenchError, SandboxError, WorkspaceError
from lancebench.grading.app_server import run_verifier
from lancebench.grading.patch import filter_patch
from lancebench.grading.pyguard import PYBOOT_INSIDE, write_pyboot
from lancebench.grading.verifier import RUNNER_ONLY, pytest_plugins, verifier_env
from lancebench.sandbox.base import Mount, Sandbox
from lancebench.sandbox.fstree import remove_tree
from lancebench.sandbox.local import DEFAULT_PATH, LocalSandbox
from lancebench.task.model import Task

TOOLS_DIR = Path(__file__).parent / "tools"
BIN_INSIDE = "/opt/lancebench/bin"
REQUESTS_INSIDE = "/opt/lancebench/user-tool"
TRACE_INSIDE = "/logs/user-tool"
OUTPUT_FOLDER = "user_tool"
OUTPUT_GLOB = f"{OUTPUT_FOLDER}/**"
# Only files the tracing plugin writes are passed on.
KEEP = re.compile(r"^(actions\.log|\d{4}-[a-z_]+\.(png|html))$")
MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_REQUESTS = 50
MIN_SECRET_LINE = 24  # a text file quoting a hidden-test line at least this long is dropped
POLL_SEC = 0.5
MAX_ENTRIES_PER_POLL = 200  # entries of the request folder looked at a poll (a flood drains over polls)
STALE_TMP_SEC = 30.0  # a `.name` file unchanged this long is not a request being written: removed


def secret_lines(tests_dir: Path) -> set[str]:
    """Stripped lines (at least ``MIN_SECRET_LINE`` characters) of every text file of the task's
    hidden tests, plus the assertion messages (``assert x, "message"``, at least 16 characters)
    of its Python files."""
    lines: set[str] = set()
    for path in sorted(tests_dir.rglob("*")) if tests_dir.is_dir() else []:
        if not path.is_file() or path.is_symlink():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        lines.update(line.strip() for line in text.splitlines() if len(line.strip()) >= MIN_SECRET_LINE)
        if path.suffix == ".py":
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Assert) and isinstance(node.msg, ast.Constant) \
                        and isinstance(node.msg.value, str) and len(node.msg.value) >= 16:
                    lines.add(node.msg.value)
    return lines


def scrub(folder: Path, secrets: set[str]) -> list[str]:
    """Keep only the tracing plugin's files in ``folder`` (by name and size), each checked to be
    the type its name claims (:func:`typed`: PNG images are decoded and written anew, which drops
    anything beside the pixels; HTML and the log must be text of that kind); remove text files that
    quote a hidden-test line. Returns the names withheld for quoting the tests or for not being
    what their names claim."""
    removed = []
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        if path.is_symlink() or not path.is_file() or not KEEP.match(path.name) or path.stat().st_size > MAX_FILE_BYTES:
            remove_tree(path)
            continue
        if not typed(path):
            path.unlink()
            removed.append(path.name)
            continue
        if path.suffix in (".html", ".log"):
            text = path.read_text(encoding="utf-8", errors="replace")
            if any(s in text for s in secrets):
                path.unlink()
                removed.append(path.name)
    return removed


def _remove_folder(path: Path) -> None:
    """Remove a folder an agent made in the request area: an empty one with one system call, a
    full one with :func:`shutil.rmtree` (file descriptors, never following a link), and
    :func:`remove_tree` (a subprocess) only for what those could not remove."""
    try:
        os.rmdir(path)
        return
    except OSError:
        pass
    shutil.rmtree(path, ignore_errors=True)
    if os.path.lexists(path):
        remove_tree(path)


def take_requests(requests: Path, max_entries: int = MAX_ENTRIES_PER_POLL,
                  stale_sec: float = STALE_TMP_SEC) -> list[str]:
    """One poll of the request folder (blocking: run it off the event loop): the ids of the
    request files found (``<id>.json``, a regular file, the id of 1-64 letters, digits and ``-``),
    each removed. Every other entry is removed too, never followed: folders (their whole tree),
    symbolic links, other names, and ``.<name>`` files still there ``stale_sec`` seconds after
    their last change (``user-tool`` renames its ``.<id>.tmp`` at once). At most ``max_entries``
    entries are looked at a poll, so a flood of entries costs the harness a bounded amount of work
    each :data:`POLL_SEC` and drains over a few polls."""
    ids: list[str] = []
    now = time.time()
    try:
        with os.scandir(requests) as it:
            entries = list(itertools.islice(it, max_entries))
    except OSError:
        return ids
    for entry in entries:
        path = Path(entry.path)
        try:
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                _remove_folder(path)
                continue
            if entry.name.startswith(".") and stat.S_ISREG(st.st_mode) and now - st.st_ctime < stale_sec:
                continue  # being written
            path.unlink()
        except OSError:
            continue
        rid = entry.name[:-5] if entry.name.endswith(".json") else ""
        if stat.S_ISREG(st.st_mode) and re.fullmatch(r"[0-9A-Za-z-]{1,64}", rid):
            ids.append(rid)
    return sorted(ids)


def typed(path: Path) -> bool:
    """Whether ``path`` is what its name says: a PNG (re-encoded in place with Pillow: metadata
    chunks and bytes after the image are dropped), an HTML document (UTF-8 text starting with a
    doctype or ``<html``), or a text log (UTF-8 without NUL bytes)."""
    if path.suffix == ".png":
        from PIL import Image
        Image.MAX_IMAGE_PIXELS = 50_000_000
        try:
            with Image.open(path) as img:
                if img.format != "PNG":
                    return False
                img.load()
                fresh = img.copy()
            fresh.save(path, format="PNG")
            return True
        except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
            return False
    try:
        text = path.read_bytes().decode("utf-8")
    except (UnicodeDecodeError, OSError):
        return False
    if "\0" in text:
        return False
    if path.suffix == ".html":
        head = text.lstrip()[:20].lower()
        return head.startswith(("<!doctype html", "<html"))
    return True


class UserToolService:
    """Answers ``user-tool`` requests of one agent phase (see the module docstring).

    Use: ``svc = UserToolService(task, backend, env, scratch, logs_dir)``; open the agent sandbox
    with ``mounts=svc.mounts()``; ``svc.attach(sandbox)`` after opening it and before starting it
    (adds ``PATH``, starts the watcher); ``await svc.close()`` when the agent has finished and before the capture (stops
    the watcher and removes ``user_tool/`` from the workspace, so it never enters the patch).
    """

    def __init__(self, task: Task, backend, env, scratch: Path, logs_dir: Path):
        self.task, self.backend, self.env = task, backend, env
        self.scratch = scratch
        self.logs_dir = logs_dir
        self.bin = scratch / "bin"
        self.channel = scratch / "channel"
        self.plugin = scratch / "plugin"
        for d in (self.bin, self.channel / "requests", self.channel / "responses", self.channel / "outputs",
                  self.plugin):
            d.mkdir(parents=True, exist_ok=True)
        shutil.copy2(TOOLS_DIR / "user-tool", self.bin / "user-tool")
        (self.bin / "user-tool").chmod(0o755)
        shutil.copy2(TOOLS_DIR / "lancebench_trace.py", self.plugin / "lancebench_trace.py")
        write_pyboot(self.plugin, on=task.lb.scan_patch, workdir=env.workdir,
                     plugins=[*pytest_plugins(task), "lancebench_trace"])
        self.secrets = secret_lines(task.paths.tests)
        self.count = 0
        self.sandbox: Sandbox | None = None
        self._task: asyncio.Task | None = None
        self._closed = False

    def mounts(self) -> tuple[Mount, ...]:
        # Requests are writable by the agent; responses are not (the harness writes them as itself).
        # Traces reach the workspace through a read-only folder, copied by the agent's own user:
        # the harness never writes into the workspace, whose paths the agent controls.
        return (Mount(self.bin, BIN_INSIDE, False),
                Mount(self.channel / "requests", f"{REQUESTS_INSIDE}/requests", True),
                Mount(self.channel / "responses", f"{REQUESTS_INSIDE}/responses", False),
                Mount(self.channel / "outputs", f"{REQUESTS_INSIDE}/outputs", False))

    def attach(self, sandbox: Sandbox) -> None:
        """Put ``user-tool`` on the sandbox's PATH and start answering requests."""
        spec = sandbox.spec
        env = {**spec.env, "LANCEBENCH_USER_TOOL_DIR": REQUESTS_INSIDE}
        if "PATH" in spec.env or isinstance(sandbox, LocalSandbox):
            # A container's PATH comes from its image: it is left alone (the tool is then
            # /opt/lancebench/bin/user-tool) rather than replaced by a guess.
            env["PATH"] = f"{BIN_INSIDE}:{spec.env.get('PATH', DEFAULT_PATH)}"
        sandbox.spec = dataclasses.replace(spec, env=env)
        self.sandbox = sandbox
        self._task = asyncio.create_task(self._watch())

    def _attached(self) -> Sandbox:
        """The agent's sandbox; raises SandboxError before :meth:`attach`."""
        if self.sandbox is None:
            raise SandboxError("user-tool: no sandbox attached (call attach() first)")
        return self.sandbox

    async def close(self) -> None:
        """Stop answering and remove ``user_tool/`` from the workspace (safe to call twice)."""
        if self._closed:
            return
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        if self.sandbox is not None:
            try:
                await self._attached().exec(["rm", "-rf", "--", f"{self.env.workdir}/{OUTPUT_FOLDER}"], timeout=60)
            except SandboxError:
                pass

    # the watcher -------------------------------------------------------------------------------
    async def _watch(self) -> None:
        requests = self.channel / "requests"
        while True:
            for rid in await asyncio.to_thread(take_requests, requests):
                try:
                    ok, message = await self.handle()
                except Exception as exc:  # a harness bug must not leave the agent waiting
                    self._record({"n": self.count, "outcome": f"internal error: {type(exc).__name__}: {exc}"[:1000]})
                    ok, message = False, "user-tool: the replay could not run (a harness problem, not your code)\n"
                self._respond(rid, ok, message)
            await asyncio.sleep(POLL_SEC)

    def _respond(self, rid: str, ok: bool, message: str) -> None:
        """Write the answer atomically: ``<id>.ok`` (when the replay ran) before ``<id>.txt``."""
        responses = self.channel / "responses"
        for name, body in ([(f"{rid}.ok", "")] if ok else []) + [(f"{rid}.txt", message)]:
            tmp = responses / f".{name}.tmp"
            tmp.write_text(body)
            tmp.chmod(0o644)
            tmp.rename(responses / name)

    async def handle(self) -> tuple[bool, str]:
        """Answer one request: returns (replay ran, message for the agent)."""
        if self.count >= MAX_REQUESTS:
            return False, f"user-tool: the limit of {MAX_REQUESTS} runs for this task is reached\n"
        self.count += 1
        n = self.count
        t0 = time.monotonic()
        record: dict = {"n": n}
        work = self.scratch / f"run-{n}"
        try:
            patch = await self._current_patch(work / "capture")
            kept, _ = filter_patch(patch, [*self.task.protected_globs(), OUTPUT_GLOB], self.task.lb.unprotect)
            trace, applied, record["exit_code"], record["reward"] = await self._replay(kept, work, record)
            if not applied:
                record["outcome"] = "patch did not apply"
                return False, ("user-tool: your changes could not be applied to a fresh copy of the repository "
                               "(git apply failed), so nothing was replayed\n")
            removed = scrub(trace, self.secrets)
            record["removed"] = removed
            dest = f"{self.env.workdir}/{OUTPUT_FOLDER}/output_{n}"
            staged = self.channel / "outputs" / f"output_{n}"
            shutil.copytree(trace, staged)  # both harness folders on the host: no agent path involved
            staged.chmod(0o755)
            for f in staged.iterdir():
                f.chmod(0o644)
            res = await self._attached().exec(["bash", "-c", 'mkdir -p "$1" && cp -r -- "$2" "$3"', "copy",
                                           f"{self.env.workdir}/{OUTPUT_FOLDER}",
                                           f"{REQUESTS_INSIDE}/outputs/output_{n}",
                                           dest], timeout=120)
            if not res.ok:
                raise SandboxError(f"user tool: the trace could not be copied into the workspace: {res.stderr[-300:]}")
            files = sorted(p.name for p in trace.iterdir())
            shots = sum(f.endswith(".png") for f in files)
            doms = sum(f.endswith(".html") for f in files)
            record["outcome"] = "ok"
            note = (f" ({len(removed)} snapshot(s) withheld: they quoted the hidden test or were not what their names "
                    "claim)") if removed else ""
            return True, (f"user-tool: the browser scenario was replayed against your current code.\n"
                          f"Output: {OUTPUT_FOLDER}/output_{n}/ (actions.log, {shots} screenshots as .png, "
                          f"{doms} page snapshots as .html){note}\n")
        except WorkspaceError as exc:  # the agent's doing: say so, without the harness's details
            record["outcome"] = f"error: {type(exc).__name__}: {exc}"[:1000]
            return False, f"user-tool: your current files could not be read, so nothing was replayed: {exc}\n"[:2000]
        except (LancebenchError, OSError) as exc:
            record["outcome"] = f"error: {type(exc).__name__}: {exc}"[:1000]
            return False, "user-tool: the replay could not run (a harness problem, not your code)\n"
        finally:
            record["sec"] = round(time.monotonic() - t0, 2)
            self._record(record)
            remove_tree(work)

    def _record(self, record: dict) -> None:
        """Append to the harness-side log ``<trial>/agent/user_tool.jsonl`` (never shown to the agent)."""
        with open(self.logs_dir / "user_tool.jsonl", "a") as f:
            f.write(json.dumps(record) + "\n")

    async def _current_patch(self, scratch: Path) -> str:
        """The agent's work so far as a patch, without ending the agent's processes."""
        if isinstance(self.sandbox, LocalSandbox):
            # A never-started view of the same workspace: the backend's trusted capture (against
            # the pristine base .git) runs in its own sandbox; there are no processes to end.
            shadow = LocalSandbox(dataclasses.replace(self.sandbox.spec), root=scratch / "shadow-root",
                                  uid=self.sandbox.uid)  # the agent's files, readable as their owner
            return await self.backend.capture(self.task, self.env, shadow, scratch)
        # Other backends: diff inside the agent's sandbox (only the agent could falsify it, and
        # only to its own harm), with a throwaway index.
        res = await self._attached().exec(
            "export GIT_INDEX_FILE=/tmp/lancebench-user-tool.index; rm -f \"$GIT_INDEX_FILE\"; "
            f"git read-tree {self.env.base_commit} && git add -A -- . ':!{OUTPUT_FOLDER}' && "
            f"git diff --cached --binary --no-color --no-ext-diff {self.env.base_commit}; "
            "s=$?; rm -f \"$GIT_INDEX_FILE\"; exit $s", cwd=self.env.workdir, timeout=300)
        if not res.ok:
            raise SandboxError(f"user tool: could not read the current changes: {res.stderr[-500:]}")
        return res.stdout

    def _replay_env(self) -> dict[str, str]:
        """The traced run's environment: grading's (:func:`lancebench.grading.verifier.verifier_env`:
        plugin auto-loading off, the task's plugins, lancebench's ``sitecustomize`` first on
        ``PYTHONPATH``, the app server started by the harness) plus the tracing plugin, which sits
        beside that guard (both in ``self.plugin``, mounted at ``PYBOOT_INSIDE``; ``write_pyboot``)."""
        env = verifier_env(self.task)
        plugins = [p for p in env.get("PYTEST_PLUGINS", "").split(",") if p.strip()] + ["lancebench_trace"]
        return env | {"PYTEST_PLUGINS": ",".join(plugins), "LANCEBENCH_TRACE_DIR": TRACE_INSIDE}

    async def _replay(self, patch: str, work: Path, record: dict) -> tuple[Path, bool, int | None, float | None]:
        """Run the hidden test with the tracing plugin in a fresh sandbox; returns (trace folder
        on the host, patch applied, exit code, reward) — the last two for the harness log only,
        as is the app server's output, put into ``record["app_log"]`` (its last 2,000 characters)."""
        logs, trace, out = work / "logs", work / "trace", work / "out"
        for d in (logs, trace):
            d.mkdir(parents=True, exist_ok=True)
        task = self.task
        tests = work / "tests"  # a copy: the task folder may sit where the sandbox user cannot read
        shutil.copytree(task.paths.tests, tests, dirs_exist_ok=True)
        mounts = (Mount(tests, "/tests", False), Mount(logs, "/logs/verifier", True),
                  Mount(trace, TRACE_INSIDE, True), Mount(self.plugin, PYBOOT_INSIDE, False))
        async with self.backend.open(task, self.env, work / "sandbox", mounts=mounts) as sandbox:
            if patch.strip():
                patch_file = work / "patch.diff"
                patch_file.write_text(patch, encoding="utf-8", errors="surrogateescape")
                await sandbox.put(patch_file, "/tmp/lancebench/patch.diff")
                res = await sandbox.exec(["git", "apply", "--binary", "--whitespace=nowarn",
                                          "/tmp/lancebench/patch.diff"], cwd=self.env.workdir, timeout=300)
                if not res.ok:
                    return out, False, None, None
            res, app_log = await run_verifier(sandbox, task, ["bash", "/tests/test.sh"], cwd=self.env.workdir,
                                              env=self._replay_env(), timeout=task.config.verifier.timeout_sec,
                                              sealed=(tests, logs, trace), hidden=RUNNER_ONLY)
            if app_log:  # the app server's output, for the harness's log only (``record``)
                record["app_log"] = app_log[-2000:]
            await sandbox.get(TRACE_INSIDE, out)
        reward = None
        try:
            reward = float((logs / "reward.txt").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass
        return out, True, res.exit_code, reward

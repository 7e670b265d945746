"""The patch capture both built-in backends run in a fresh sandbox: the agent's work tree diffed
against the pristine base repository mounted (local) or linked (docker) at ``/lancebench/base.git``,
through a throw-away repository, index and object store (the base's objects as alternates), so the
agent's own ``.git`` is never trusted and nothing of the agent's configures git: no ``.git/config``
of the agent's is read (``core.fsmonitor``, ``core.hooksPath``, filter and diff drivers), the
workspace's ``.gitattributes`` are overridden (``$GIT_DIR/info/attributes``: no filter, no eol or
text conversion, no textconv), so the patch is the workspace's bytes exactly; a nested repository
(with commits or none, a ``.git`` folder or a ``.git`` file pointing anywhere, declared in
``.gitmodules`` or not) is captured as its files (its own ignore rules kept), never as a gitlink,
at most 8 levels deep and 1,000 of them.

:data:`CAPTURE` arguments: ``$1`` the work tree, ``$2`` the base commit, ``$3`` the patch cap in
bytes. Output: ``/tmp/capture.patch`` (``git diff --binary`` of every change, new files included)
and ``/tmp/capture.names`` (the changed paths, NUL-separated).

Who is at fault when a capture fails (:func:`controlled`, both backends): a limit the agent's
files pass (:class:`CaptureLimit`: bytes, the patch cap, a hard link out of the workdir, the
600 s) is the agent's by itself. Any other failure (git cannot write, the disk under the scratch
space is full or unwritable, the engine fails, the sandbox does not start) could be the
agent's files or this machine: the same capture runs again, the same way and in the same scratch
space, on the pristine base (the task's unchanged repository). When that control fails too, the
machine or the harness is at fault (:class:`SandboxError` with ``control`` set: ``invalid``, or
the docker backend's capture in a container); when it works, the agent's work made the capture
fail (:class:`WorkspaceError` with ``control`` set: ``unresolved``, the control recorded). No
threshold (free bytes, an errno) decides it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from lancebench.errors import SandboxError, WorkspaceError
from lancebench.sandbox.backend import PreparedEnvironment
from lancebench.sandbox.base import CapturedPatch, Sandbox
from lancebench.task.model import Task


class CaptureLimit(WorkspaceError):
    """A capture limit the agent's files passed (the bytes of its files or of their archive, the
    patch cap, a hard link out of the workdir, the capture's 600 s): decided by the files alone,
    whatever the machine, so no control runs (:func:`controlled`)."""


CAPTURE = r"""
set -uo pipefail
export GIT_DIR=/tmp/capture.git GIT_WORK_TREE="$1" GIT_INDEX_FILE=/tmp/capture.index
export GIT_ALTERNATE_OBJECT_DIRECTORIES=/lancebench/base.git/objects GIT_CONFIG_GLOBAL=/dev/null
git() { command git -c core.fsmonitor=false -c core.hooksPath=/dev/null -c core.autocrlf=false \
  -c core.safecrlf=false -c core.quotePath=false "$@"; }
fail() { echo "$2" >&2; exit "$1"; }
{ env -u GIT_DIR -u GIT_WORK_TREE -u GIT_INDEX_FILE git init -q --bare /tmp/capture.git \
    && git cat-file -e "$2^{commit}" && git read-tree "$2"; } \
  || fail 90 "the pristine base repository cannot be read"
cat /lancebench/base.git/info/exclude > "$GIT_DIR/info/exclude" 2>/dev/null
# the workspace's .gitattributes never change what is captured: no filter, eol or text conversion
printf '* !diff -text -eol -filter -ident -working-tree-encoding\n' > "$GIT_DIR/info/attributes"
nested=0
# add_tree ROOT INDEX DEPTH: stage every file of ROOT (ignore rules kept) into INDEX; a nested
# repository (with or without commits, a .git folder or file) is staged as its files, not a gitlink
add_tree() {
  local root=$1 index=$2 depth=$3 p rec sub; local -a inner=() skip=()
  while IFS= read -r -d '' p; do
    case "$p" in */) inner+=("${p%/}"); skip+=(":(exclude,literal)${p%/}") ;; esac
  done < <(GIT_WORK_TREE="$root" GIT_INDEX_FILE="$index" git ls-files -z --others --exclude-standard)
  GIT_WORK_TREE="$root" GIT_INDEX_FILE="$index" git add -A -- . "${skip[@]}" || return 1
  for p in "${inner[@]}"; do
    nested=$((nested + 1))
    [ "$depth" -lt 8 ] && [ "$nested" -le 1000 ] || { echo "nested repositories too many or too deep" >&2; return 1; }
    sub=$(mktemp -u /tmp/capture-sub.XXXXXXXX)
    add_tree "$root/$p" "$sub" $((depth + 1)) || return 1
    GIT_INDEX_FILE="$sub" git ls-files -s -z | while IFS= read -r -d '' rec; do
      printf '%s\t%s/%s\0' "${rec%%$'\t'*}" "$p" "${rec#*$'\t'}"; done \
      | GIT_WORK_TREE="$root" GIT_INDEX_FILE="$index" git update-index -z --index-info || return 1
  done
}
add_tree "$1" "$GIT_INDEX_FILE" 0 || fail 91 "git could not read the workspace (git add failed)"
git diff --cached --no-renames --name-only -z "$2" > /tmp/capture.names || fail 91 "git diff failed on the workspace"
( ulimit -f $(( $3 / 1024 + 1 )); exec git diff --cached --no-renames --binary --no-color --no-ext-diff \
    --no-textconv "$2" > /tmp/capture.patch ) 2>/tmp/capture.err
code=$?
[ "$(stat -c %s /tmp/capture.patch)" -le "$3" ] ||
  fail 92 "the patch is over the cap of $3 bytes ([lancebench.limits] patch_mb)"
[ $code -eq 0 ] || fail 91 "git diff failed on the workspace: $(tail -c 500 /tmp/capture.err)"
"""


async def run_capture(box: Sandbox, tree: str, task: Task, env: PreparedEnvironment, scratch: Path) -> CapturedPatch:
    """Run :data:`CAPTURE` in ``box`` (a sandbox holding the workspace at ``tree`` and the pristine
    base repository at ``/lancebench/base.git``) and read the patch and its NUL-separated paths.

    The patch is capped at ``[lancebench.limits] patch_mb`` inside the sandbox, before the harness
    reads a byte of it. Raises :class:`SandboxError` when the base repository cannot be read (the
    harness's fault) and :class:`WorkspaceError` when the workspace cannot be captured (the agent's)."""
    cap = task.lb.limits.patch_mb * 1024 * 1024
    res = await box.exec(["bash", "-c", CAPTURE, "capture", tree, env.base_commit, str(cap)], timeout=600)
    if res.exit_code == 90 or (res.exit_code is None and not res.timed_out):
        raise SandboxError(f"patch capture failed (exit {res.exit_code}): {res.stderr[-1500:]}")
    if res.timed_out:
        raise CaptureLimit("the workspace could not be captured within 600 s (too many or too large files)")
    if res.exit_code == 92:  # the patch cap: its own message, without the shell's note on the killed git
        raise CaptureLimit(res.stderr.strip().splitlines()[-1])
    if not res.ok:
        raise WorkspaceError(f"the workspace could not be captured (exit {res.exit_code}): "
                             f"{res.stderr.strip()[-1000:]}")
    scratch.mkdir(parents=True, exist_ok=True)
    out, names = scratch / "capture.patch", scratch / "capture.names"
    await box.get("/tmp/capture.patch", out)
    await box.get("/tmp/capture.names", names)
    if out.stat().st_size > cap or names.stat().st_size > cap:
        raise CaptureLimit(f"the patch is over the cap of {cap} bytes ([lancebench.limits] patch_mb)")
    paths = names.read_bytes().decode("utf-8", errors="surrogateescape").split("\0")
    # bytes decoded as they are: read_text would turn CRLF into LF (universal newlines) and break the patch
    return CapturedPatch(out.read_bytes().decode("utf-8", errors="surrogateescape"), [p for p in paths if p])


async def controlled(capture: Callable[[], Awaitable[CapturedPatch]],
                     control: Callable[[], Awaitable[CapturedPatch]], base: str) -> CapturedPatch:
    """``capture()`` (the agent's work), blamed by a control when it fails (see the module
    docstring): ``control()`` captures the pristine base (``base`` names it, for the record) the
    same way, in the same scratch space, and must return an empty patch.

    Returns the work's patch. Raises :class:`CaptureLimit` as it came (no control);
    :class:`WorkspaceError` with ``control`` set when the control worked (the agent's work made the
    capture fail; a :class:`WorkspaceError` of the capture is kept as it is, any other failure is
    wrapped); :class:`SandboxError` with ``control`` set when the control failed too (or captured
    changes on the pristine base). ``OSError`` of the harness's own file handling counts as a
    failure like the others."""
    try:
        return await capture()
    except CaptureLimit:
        raise
    except (SandboxError, WorkspaceError, OSError) as exc:
        failure = exc
    said = f"{type(failure).__name__}: {failure}"[:2000]
    try:
        patch = await control()
        problem = f"it captured changes of the pristine base: {list(patch.paths or ())[:5]}" if patch else None
    except (SandboxError, WorkspaceError, OSError) as exc:
        problem = f"{type(exc).__name__}: {exc}"[:1000]
    if problem is not None:
        err = SandboxError(f"the capture failed: {said}")
        err.control = f"the same capture of the pristine base ({base}) fails too: {problem}"
        raise err from failure
    cleared = (f"the same capture of the pristine base ({base}), in the same scratch space, worked: "
               "the agent's work made the capture fail")
    if isinstance(failure, WorkspaceError):
        failure.control = cleared
        raise failure
    fault = WorkspaceError(f"the agent's work could not be captured: {said}")
    fault.control = cleared
    raise fault from failure

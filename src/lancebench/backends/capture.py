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
"""

from __future__ import annotations

from pathlib import Path

from lancebench.errors import SandboxError, WorkspaceError
from lancebench.sandbox.backend import PreparedEnvironment
from lancebench.sandbox.base import CapturedPatch, Sandbox
from lancebench.task.model import Task

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
        raise WorkspaceError("the workspace could not be captured within 600 s (too many or too large files)")
    if res.exit_code == 92:  # the patch cap: its own message, without the shell's note on the killed git
        raise WorkspaceError(res.stderr.strip().splitlines()[-1])
    if not res.ok:
        raise WorkspaceError(f"the workspace could not be captured (exit {res.exit_code}): "
                             f"{res.stderr.strip()[-1000:]}")
    scratch.mkdir(parents=True, exist_ok=True)
    out, names = scratch / "capture.patch", scratch / "capture.names"
    await box.get("/tmp/capture.patch", out)
    await box.get("/tmp/capture.names", names)
    if out.stat().st_size > cap or names.stat().st_size > cap:
        raise WorkspaceError(f"the patch is over the cap of {cap} bytes ([lancebench.limits] patch_mb)")
    paths = names.read_bytes().decode("utf-8", errors="surrogateescape").split("\0")
    # bytes decoded as they are: read_text would turn CRLF into LF (universal newlines) and break the patch
    return CapturedPatch(out.read_bytes().decode("utf-8", errors="surrogateescape"), [p for p in paths if p])

"""``--repo-path``: a local clone of Expensify/App that SWE-Lancer manager tasks may browse.

The paper's manager setup resets the product repository to the parent of ``manager_commit`` (the
state the manager reviewed the proposals in). :func:`parents` checks that the clone holds every
needed commit and returns each task's parent commit, which the task folder names in its
``[lancebench.local.checkout]``: the agent's workdir is then that tree, without history.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from lancebench.datasets.swelancer.table import SwelancerRow
from lancebench.errors import DatasetError

UPSTREAM = "https://github.com/Expensify/App"


def _batch_check(repo: Path, exprs: list[str]) -> list[str | None]:
    """The object id each revision expression names in ``repo`` (None when it names nothing)."""
    try:
        proc = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(repo), "cat-file", "--batch-check"],
                              input="".join(e + "\n" for e in exprs), capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DatasetError(f"{repo}: --repo-path: cannot run git ({exc}); "
                           "install git or leave --repo-path out") from None
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) != len(exprs):
        raise DatasetError(f"{repo}: --repo-path is not a git repository ({proc.stderr.strip()[-300:]}); "
                           f"pass a clone of {UPSTREAM}")
    return [None if line.endswith(" missing") or " " not in line else line.split(" ", 1)[0] for line in lines]


def parents(repo: Path, rows: list[SwelancerRow], answer_file: str) -> dict[str, str]:
    """question_id -> the full id of the parent of the row's ``manager_commit`` in ``repo``.

    Raises :class:`DatasetError` (naming the tasks and the fix) when ``repo`` is not a git
    repository, lacks some of the commits (a shallow or old clone), or when a parent's tree
    already holds ``answer_file`` (an answer the agent did not write would be graded)."""
    repo = repo.expanduser().resolve()
    if not repo.is_dir():
        raise DatasetError(f"{repo}: --repo-path names no folder; pass a clone of {UPSTREAM}")
    ids = _batch_check(repo, [f"{r.manager_commit}^1^{{commit}}" for r in rows])
    missing = [r for r, oid in zip(rows, ids, strict=True) if oid is None]
    if missing:
        names = ", ".join(f"{r.question_id} ({r.manager_commit[:12]})" for r in missing[:5])
        raise DatasetError(f"{repo}: --repo-path lacks the parent of manager_commit for {len(missing)} of "
                           f"{len(rows)} tasks, e.g. {names}; fetch the full history (git -C {repo} fetch --unshallow "
                           f"origin, or clone {UPSTREAM} again), or select tasks with -t")
    found = dict(zip((r.question_id for r in rows), ids, strict=True))
    held = _batch_check(repo, [f"{oid}:{answer_file}" for oid in ids])
    clashes = [q for q, oid in zip(found, held, strict=False) if oid]
    if clashes:
        raise DatasetError(f"{repo}: the tree of {clashes[0]}'s base commit already holds {answer_file}, the file the "
                           "agent answers in; such a task cannot be graded with --repo-path")
    return found  # type: ignore[return-value]

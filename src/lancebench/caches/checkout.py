"""A snapshot of a host git repository at one revision, for ``[lancebench.local.checkout]``.

The tree is written the way ``git checkout`` writes it (attributes, line endings and filters of
the repository apply) through a throw-away index, so the repository itself (its index, HEAD,
work tree) is left untouched, and no object, ref or log of it reaches the snapshot: the agent
gets the files of that revision and no history, in particular none of the commits after it.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from lancebench.errors import EnvironmentBuildError

TIMEOUT_SEC = 1800
ALLOWED_ENV = "LANCEBENCH_CHECKOUT_REPOS"  # named in errors; read by lancebench.backends.options


def check_allowed(repo: Path, allowed: Iterable[Path]) -> None:
    """Raise :class:`EnvironmentBuildError` unless ``repo`` is one of ``allowed`` (the repositories
    the user named for this run: ``--repo-path``, ``$LANCEBENCH_CHECKOUT_REPOS``); checked before a
    cached snapshot is reused, too. A task folder alone cannot make the harness read a
    repository of this machine."""
    if repo.resolve() not in {Path(p).resolve() for p in allowed}:
        raise EnvironmentBuildError(f"{repo}: this run was not given that repository; pass --repo-path {repo} "
                                    f"(or list it in {ALLOWED_ENV}) to let tasks start from it")


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    # safe.directory: the user named this repository; it may belong to another uid than ours.
    cmd = ["git", "-c", "safe.directory=*", "-C", str(repo), *args]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_SEC,
                              env={**os.environ, **(env or {})})
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EnvironmentBuildError(f"{repo}: git {args[0]} failed: {exc}") from None
    if proc.returncode != 0:
        raise EnvironmentBuildError(f"{repo}: git {' '.join(args)} exited {proc.returncode}: "
                                    f"{proc.stderr.strip()[-500:]}")
    return proc.stdout


def export_tree(repo: Path, rev: str, dest: Path, allowed: Iterable[Path]) -> str:
    """Write the files of ``rev`` in the git repository ``repo`` into the existing folder ``dest``
    and return the full commit id ``rev`` names. Raises :class:`EnvironmentBuildError` when
    ``repo`` is not among ``allowed`` (:func:`check_allowed`), is not a git repository, ``rev``
    names no commit there, or the checkout fails."""
    check_allowed(repo, allowed)
    if not repo.is_dir():
        raise EnvironmentBuildError(f"{repo}: the checkout's repository is not a folder on this machine")
    commit = _git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip()
    with tempfile.TemporaryDirectory(prefix="lancebench-index-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        _git(repo, "read-tree", commit, env=env)
        _git(repo, "checkout-index", "--all", "--force", f"--prefix={dest.resolve()}/", env=env)
    return commit

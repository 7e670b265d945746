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
from pathlib import Path

from lancebench.errors import EnvironmentBuildError

TIMEOUT_SEC = 1800
ALLOWED_ENV = "LANCEBENCH_CHECKOUT_REPOS"  # os.pathsep-separated repositories this run may read (--repo-path sets it)


def allow(repo: Path) -> None:
    """Let this process (and the ones it starts) snapshot ``repo``: a task folder alone cannot make
    the harness read a repository of this machine that the user did not name."""
    known = [p for p in os.environ.get(ALLOWED_ENV, "").split(os.pathsep) if p]
    os.environ[ALLOWED_ENV] = os.pathsep.join(dict.fromkeys([*known, str(repo.expanduser().resolve())]))


def check_allowed(repo: Path) -> None:
    """Raise :class:`EnvironmentBuildError` unless ``repo`` was allowed (:func:`allow`); checked
    before a cached snapshot is reused, too."""
    if str(repo.resolve()) not in {str(Path(p).resolve()) for p in os.environ.get(ALLOWED_ENV, "").split(os.pathsep) if p}:
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


def export_tree(repo: Path, rev: str, dest: Path) -> str:
    """Write the files of ``rev`` in the git repository ``repo`` into the existing folder ``dest``
    and return the full commit id ``rev`` names. Raises :class:`EnvironmentBuildError` when
    ``repo`` was not allowed (:func:`allow`), is not a git repository, ``rev`` names no commit
    there, or the checkout fails."""
    check_allowed(repo)
    if not repo.is_dir():
        raise EnvironmentBuildError(f"{repo}: the checkout's repository is not a folder on this machine")
    commit = _git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip()
    with tempfile.TemporaryDirectory(prefix="lancebench-index-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        _git(repo, "read-tree", commit, env=env)
        _git(repo, "checkout-index", "--all", "--force", f"--prefix={dest.resolve()}/", env=env)
    return commit

"""Where lancebench keeps its caches and scratch folders.

``LANCEBENCH_HOME`` (default ``/var/tmp/lancebench`` as root, ``~/.cache/lancebench`` otherwise)
holds ``envs/`` (built environments), ``scratch/`` (trial workspaces) and ``downloads/``. As root
the default avoids ``/root``, which the unprivileged sandbox user cannot traverse.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def home() -> Path:
    """The cache home (see the module docstring), made first if missing; as root its mode is 0755
    (the sandbox users traverse it). Raises ``OSError`` when it cannot be made."""
    env = os.environ.get("LANCEBENCH_HOME")
    if env:
        path = Path(env)
    elif os.geteuid() == 0:
        path = Path("/var/tmp/lancebench")
    else:
        path = Path.home() / ".cache" / "lancebench"
    _folder(path, fix_mode=os.geteuid() == 0)
    return path


def sub(name: str) -> Path:
    """The folder ``name`` of the cache home, made first if missing, mode 0755. Raises ``OSError``
    when it cannot be made."""
    path = home() / name
    _folder(path, fix_mode=True)
    return path


def _folder(path: Path, *, fix_mode: bool) -> None:
    """Make ``path`` (and its parents) unless it is a folder already, and give it mode 0755 when
    ``fix_mode`` and it has another: one ``stat`` when both hold, rather than a ``mkdir`` and a
    ``chmod`` that writes the inode again on every call (issue 29: twice per trial)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is None or not stat.S_ISDIR(st.st_mode):
        path.mkdir(parents=True, exist_ok=True)  # a file there raises FileExistsError, as before
    if fix_mode and (st is None or stat.S_IMODE(st.st_mode) != 0o755):
        os.chmod(path, 0o755)

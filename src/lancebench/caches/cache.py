"""Where lancebench keeps its caches and scratch folders.

``LANCEBENCH_HOME`` (default ``/var/tmp/lancebench`` as root, ``~/.cache/lancebench`` otherwise)
holds ``envs/`` (built environments), ``scratch/`` (trial workspaces) and ``downloads/``. As root
the default avoids ``/root``, which the unprivileged sandbox user cannot traverse.
"""

from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    env = os.environ.get("LANCEBENCH_HOME")
    if env:
        path = Path(env)
    elif os.geteuid() == 0:
        path = Path("/var/tmp/lancebench")
    else:
        path = Path.home() / ".cache" / "lancebench"
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        os.chmod(path, 0o755)
    return path


def sub(name: str) -> Path:
    path = home() / name
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, 0o755)
    return path

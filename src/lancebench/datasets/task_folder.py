"""Writing a generated task folder (an adapter's output) atomically, and reusing it when unchanged."""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

from lancebench.errors import DatasetError

Files = dict[str, tuple[bytes, int]]  # relative path -> (content, mode)


def _matches(dest: Path, files: Files) -> bool:
    try:
        present = {p.relative_to(dest).as_posix() for p in dest.rglob("*") if not p.is_dir()}
        return present == set(files) and all(
            (dest / rel).read_bytes() == body and bool((dest / rel).stat().st_mode & 0o111) == bool(mode & 0o111)
            for rel, (body, mode) in files.items())
    except OSError:
        return False


def write_task(files: Files, dest: Path) -> Path:
    """Write ``files`` as the folder ``dest`` and return it: reused untouched when it already holds
    exactly them, else written beside it and renamed into place (readers see the old folder or the
    whole new one). Raises :class:`DatasetError`."""
    if dest.is_dir() and _matches(dest, files):
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tag = uuid.uuid4().hex[:8]
    tmp, old = dest.parent / f".{dest.name}.{tag}.tmp", dest.parent / f".{dest.name}.{tag}.old"
    try:
        for rel, (body, mode) in files.items():
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(body)
            os.chmod(path, mode)
        for d in (tmp, *(p for p in tmp.rglob("*") if p.is_dir())):
            os.chmod(d, 0o755)
        if dest.exists():
            os.rename(dest, old)
        try:
            os.rename(tmp, dest)
        except OSError:
            if not (dest.is_dir() and _matches(dest, files)):  # not a race with another writer of the same folder
                raise
    except OSError as exc:
        raise DatasetError(f"cannot write the SWE-Lancer task folder {dest}: {exc.strerror or exc} "
                           f"(check that {dest.parent} is writable, or set LANCEBENCH_HOME)") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
    return dest



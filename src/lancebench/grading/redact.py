"""Secrets out of the job folder: every occurrence of a secret value in the text files a verifier
run left is replaced by ``***`` (see :func:`lancebench.task.settings.secret_values`)."""

from __future__ import annotations

from pathlib import Path

MASK = "***"
MAX_BYTES = 50_000_000  # larger files are left alone (verifier logs are capped far below this)


def redact_files(root: Path, secrets: set[str]) -> int:
    """Replace each secret in every regular file under ``root`` (``root`` may be a file); links
    are not followed. Returns how many files changed."""
    if not secrets:
        return 0
    changed = 0
    paths = [root] if root.is_file() else [p for p in root.rglob("*")]
    for path in paths:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_BYTES:
            continue
        data = path.read_bytes()
        new = data
        for secret in sorted(secrets, key=len, reverse=True):
            new = new.replace(secret.encode(), MASK.encode())
        if new != data:
            path.write_bytes(new)
            changed += 1
    return changed

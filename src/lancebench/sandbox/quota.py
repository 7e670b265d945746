"""A storage quota for the ``local`` backend: the sandbox's host folders live on a filesystem of
their own, exactly ``storage_mb`` MiB large.

``RLIMIT_FSIZE`` bounds one file; only a filesystem bounds the sum of everything a sandbox
writes (workspace, ``/tmp``, ``$HOME``). When the harness runs as root, :func:`mount_quota`
makes a sparse image (it takes only what is written), formats it ext4 without a journal and
mounts it through a loop device at the sandbox's scratch folder; the image file is unlinked at
once, so unmounting (:func:`lancebench.sandbox.fstree.unmount_below`, called by every tree removal)
frees everything. Not root, or no loop device free: no mount, and the per-file limit is all that
holds (the returned reason says so; docs/security.md).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

MKFS = ["mkfs.ext4", "-q", "-F", "-m", "0", "-O", "^has_journal", "-E", "lazy_itable_init=1,nodiscard"]


def mount_quota(folder: Path, size_mb: int) -> str | None:
    """Mount a fresh ``size_mb`` MiB filesystem at ``folder`` (created, must be empty). Returns
    None when mounted, else why not (never raises)."""
    if os.geteuid() != 0:
        return "not root: storage_mb bounds each file only"
    folder.mkdir(parents=True, exist_ok=True)
    image = folder.with_name(f".{folder.name}.quota.img")
    try:
        with open(image, "wb") as fh:
            fh.truncate(size_mb * 1024 * 1024)
        for argv in (MKFS + [str(image)], ["mount", "-o", "loop,nosuid,nodev", str(image), str(folder)]):
            res = subprocess.run(argv, capture_output=True, text=True, timeout=120)
            if res.returncode != 0:
                return f"{argv[0]} failed: {res.stderr.strip()[-300:]}; storage_mb bounds each file only"
        os.chmod(folder, 0o755)
        return None
    except (OSError, subprocess.SubprocessError) as exc:
        return f"no storage quota ({exc}); storage_mb bounds each file only"
    finally:
        try:
            image.unlink()
        except OSError:
            pass

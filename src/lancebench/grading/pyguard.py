"""The verifier's Python guard, harness side: the files of ``/lancebench/pyboot`` and the ``.pth``
file that loads the guard in every interpreter of a grading sandbox.

Why a ``.pth`` file: a ``tests/test.sh`` that sets ``PYTHONPATH`` itself (``PYTHONPATH=/app
python -m pytest``, ``export PYTHONPATH=...``) replaces lancebench's, so a guard reached only
through ``PYTHONPATH`` would not run, and the repository (first on that path) could shadow the
runner's modules. Python reads the ``.pth`` files of its site folders at every start-up whatever
the environment says (all but ``python -S``), and the grading sandbox is the harness's own before
the patch is applied: the backend writes :data:`PTH_NAME` (:data:`PTH_TEXT`) into every
``site-packages`` / ``dist-packages`` folder it can (``guard_python``), and the patch cannot
change it (``*.pth`` and site folders are protected paths). The guard itself
(``grading/tools/sitecustomize.py``) is mounted read-only; it also stays first on ``PYTHONPATH``
for interpreters whose site folders the backend cannot write (the host's ``/usr`` on the local
backend).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

PYBOOT_INSIDE = "/lancebench/pyboot"
GUARD = Path(__file__).resolve().parent / "tools" / "sitecustomize.py"
PTH_NAME = "00-lancebench-guard.pth"
PTH_TEXT = ("import os; p = '/lancebench/pyboot/sitecustomize.py'; os.path.isfile(p) and "
            "exec(compile(open(p, 'rb').read(), p, 'exec'), {'__name__': '__lancebench_guard__'})\n")
SITE_FOLDERS = ("site-packages", "dist-packages")
# Modules a test runner imports (besides what importing pytest pulls in): imported by the guard
# from the environment before the repository can shadow them. The last four are standard modules
# pytest imports only after start-up (so after the guard): readline (capture plugin, pytest 8.4+),
# getpass and termios (tmp_path's user name), tracemalloc (warnings); a readline.py first on a
# test.sh's PYTHONPATH forged a pass (attack pass after issue 14).
GUARDED_MODULES = ("pytest", "_pytest.junitxml", "_pytest.unittest", "_pytest.doctest", "_pytest.reports", "pluggy",
                   "iniconfig", "packaging.version", "unittest", "doctest", "xml.etree.ElementTree", "json", "pdb",
                   "readline", "getpass", "termios", "tracemalloc")
# Folders a search for site folders never enters (huge, or never an interpreter's).
SKIP_NAMES = ("node_modules", ".git", "__pycache__")
MAX_DEPTH = 8
MAX_ENTRIES = 200_000


def write_pyboot(folder: Path, *, on: bool, workdir: str, plugins: list[str]) -> None:
    """Write the guard and its configuration into ``folder`` (mounted at :data:`PYBOOT_INSIDE`):
    ``sitecustomize.py`` and ``guard.cfg`` (``on``, ``workdir``, the ``modules`` to guard:
    :data:`GUARDED_MODULES` and the task's pytest ``plugins``)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(GUARD, folder / "sitecustomize.py")
    modules = ",".join([*GUARDED_MODULES, *(p.strip() for p in plugins if p.strip())])
    (folder / "guard.cfg").write_text(f"on={int(on)}\nworkdir={workdir}\nmodules={modules}\n")


def find_site_folders(root: Path) -> list[Path]:
    """The ``site-packages`` / ``dist-packages`` folders under host folder ``root``, found without
    following links, at most :data:`MAX_DEPTH` levels down and :data:`MAX_ENTRIES` entries read
    (iterative; never raises: an unreadable folder is skipped)."""
    found: list[Path] = []
    stack: list[tuple[Path, int]] = [(root, 0)]
    seen = 0
    while stack and seen < MAX_ENTRIES:
        folder, depth = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        seen += len(entries)
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False) or entry.name in SKIP_NAMES:
                continue
            if entry.name in SITE_FOLDERS:
                found.append(Path(entry.path))
            elif depth + 1 < MAX_DEPTH:
                stack.append((Path(entry.path), depth + 1))
    return sorted(found)


def write_pth(folder: Path) -> bool:
    """Write :data:`PTH_NAME` into host folder ``folder`` (a site folder of a sandbox not yet
    running anything of the agent's), replacing any file of that name without following a link.
    Returns whether it was written."""
    tmp = folder / f".{PTH_NAME}.{os.getpid()}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o444)
        with os.fdopen(fd, "w") as fh:
            fh.write(PTH_TEXT)
        os.replace(tmp, folder / PTH_NAME)
        return True
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False


# The same search inside a container (``find`` prints NUL-separated paths; -xdev keeps it off
# bound folders such as /tests and /logs/verifier).
FIND_SITE_FOLDERS = (
    f"find / -xdev -maxdepth {MAX_DEPTH} \\( -path /proc -o -path /sys -o -path /dev "
    + " ".join(f"-o -name {n}" for n in SKIP_NAMES)
    + " \\) -prune -o -type d \\( " + " -o ".join(f"-name {n}" for n in SITE_FOLDERS) + " \\) -print0 -prune"
    + " 2>/dev/null; true")

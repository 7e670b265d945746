"""The ``dev`` extra (what CI and ``scripts/setup.sh tests`` install) holds every optional
dependency of every other extra: a dependency added to one extra only is missing on a clean
machine (dnspython was: the docker allowlist's resolver could not parse a query in CI)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_dev_extra_holds_every_other_extra():
    extras = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    dev = {_name(r) for r in extras["dev"]}
    missing = {f"{extra}: {_name(r)}" for extra, reqs in extras.items() if extra != "dev"
               for r in reqs if _name(r) not in dev}
    assert not missing, f"add to [project.optional-dependencies] dev in pyproject.toml: {sorted(missing)}"

"""lancebench's start-up module for the verifier's Python (on ``PYTHONPATH`` during grading).

``python -m pytest`` (and ``-c``) puts the working directory, the repository, first on
``sys.path`` *after* this module runs. So when the process is a test runner, the modules the
runner and its named plugins import are imported here first, from the environment: a module of
the repository with the same name (``iniconfig.py``, ``pluggy/``, ``unittest.py``) can no longer
replace them, while the repository still comes first for everything else (its own package wins
over an installed copy, as before). Off when ``LANCEBENCH_RUNNER_GUARD`` is not ``1`` (a task on
a test tool's own repository: ``[lancebench] scan_patch = false``). Never raises.
"""

import os
import sys

RUNNERS = ("pytest", "py.test", "unittest", "nose2", "xmlrunner")
FIRST = ("pytest", "_pytest.junitxml", "_pytest.unittest", "_pytest.doctest", "_pytest.reports", "pluggy",
         "iniconfig", "packaging.version", "unittest", "doctest", "xml.etree.ElementTree", "json", "pdb")


def _is_runner(argv):
    for i, arg in enumerate(argv[1:], 1):
        if arg == "-m":
            return i + 1 < len(argv) and argv[i + 1].split(".")[0] in RUNNERS
        if not arg.startswith("-"):
            return os.path.basename(arg) in RUNNERS
    return False


def _guard():
    if os.environ.get("LANCEBENCH_RUNNER_GUARD") != "1" or not _is_runner(list(getattr(sys, "orig_argv", []))):
        return
    plugins = [p.strip() for p in os.environ.get("PYTEST_PLUGINS", "").split(",") if p.strip()]
    for name in FIRST + tuple(plugins):
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - a module the environment lacks is simply not guarded
            pass


_guard()

"""lancebench's guard for the verifier's Python: a test runner's modules come from the environment,
never from the repository under test, whatever ``tests/test.sh`` does with ``PYTHONPATH``.

It reaches every interpreter of the grading sandbox two ways (``grading/pyguard.py``):

- ``00-lancebench-guard.pth``, which lancebench writes into every ``site-packages`` and
  ``dist-packages`` folder of the fresh grading sandbox before the patch is applied, runs this
  file (mounted read-only at ``/lancebench/pyboot``) at start-up whatever the environment says.
  From there it only installs a one-shot import hook: the guard itself runs when start-up looks
  for ``sitecustomize``, its last step, when every site folder and ``.pth`` path is on ``sys.path``;
- as ``sitecustomize`` itself, first on the ``PYTHONPATH`` lancebench gives ``tests/test.sh`` (for
  an interpreter whose site folders lancebench could not write: the host's ``/usr`` on the local
  backend).

When the process is a test runner (a ``pytest``, ``py.test``, ``unittest``, ``nose2`` or
``xmlrunner`` word in its command line: ``python -m pytest``, ``pytest``, ``coverage run -m pytest``),
the guard imports the modules the runner and its named plugins use (``guard.cfg``: ``modules``)
with ``sys.path`` cut down to what the patch cannot write: no relative entry (the working
directory), nothing under the repository (``workdir``) except site folders, whether it came from
``PYTHONPATH``, a ``.pth`` file or ``python -m``. Then ``sys.path`` is restored: a module of the
repository with the same name (``iniconfig.py``, ``pluggy/``, ``unittest.py``) can no longer
replace them, while the repository still comes first for everything else (its own package wins
over an installed copy, as before). Off when ``guard.cfg`` has ``on=0`` (``[lancebench]
scan_patch = false``: a task on a test tool's own repository). Before that it imports nothing by
name (``os`` and ``sys`` are loaded by then), and it never raises.

A test runner also makes itself undumpable (``prctl(PR_SET_DUMPABLE, 0)``, guard on or off; ``ctypes``
imported with the same cut-down ``sys.path``): a process of the same uid without ``CAP_SYS_PTRACE``
(a browser task's app server, a daemon the code under test left) can then neither ``ptrace`` it
nor open its ``/proc/<pid>/mem``. Defence in depth only: the interpreter's start-up before this
runs, and the processes the runner ``exec``s (Playwright's driver, Chromium: ``exec`` makes them
dumpable again), stay open to a same-uid attacker; the separate uid of ``grading.app_server`` is
what closes them.
"""

import os
import sys

CONFIG = "/lancebench/pyboot/guard.cfg"
RUNNERS = ("pytest", "py.test", "unittest", "nose2", "xmlrunner")
SITE_FOLDERS = ("site-packages", "dist-packages")


def _config():
    try:
        with open(CONFIG, "rb") as fh:
            text = fh.read().decode("utf-8")
    except Exception:  # noqa: BLE001 - no configuration: no guard
        return {}
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def _is_runner(argv):
    for i, arg in enumerate(argv[1:], 1):
        name = os.path.basename(arg)
        if name.endswith(".py"):
            name = name[:-3]
        if name in RUNNERS or (argv[i - 1] == "-m" and arg.split(".")[0] in RUNNERS):
            return True
    return False


def _trusted(entry, workdir):
    """May ``entry`` of ``sys.path`` serve the runner's modules (can the patch not write there)?"""
    if not entry or not os.path.isabs(entry):
        return False
    entry = os.path.normpath(entry)
    if entry == workdir or entry.startswith(workdir.rstrip(os.sep) + os.sep):
        return any(part in SITE_FOLDERS for part in entry.split(os.sep))
    return True


def _undumpable():
    """``prctl(PR_SET_DUMPABLE, 0)``: no ``ptrace`` or ``/proc/<pid>/mem`` for a same-uid process."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    except BaseException:  # noqa: BLE001 - defence in depth; never stop the runner
        pass


def _guard(cfg):
    if getattr(sys, "_lancebench_guarded", False):
        return
    setattr(sys, "_lancebench_guarded", True)  # noqa: B010 - one guard per process
    argv = list(getattr(sys, "orig_argv", None) or sys.argv)
    if not _is_runner(argv):
        return
    workdir = os.path.normpath(cfg.get("workdir") or "/nonexistent")
    saved = sys.path[:]
    sys.path[:] = [entry for entry in saved if _trusted(entry, workdir)]
    try:
        _undumpable()
        if cfg.get("on") != "1":
            return
        for name in cfg.get("modules", "").split(","):
            if name.strip():
                try:
                    __import__(name.strip())
                except BaseException:  # noqa: BLE001 - a module the environment lacks is simply not guarded
                    pass
    finally:
        sys.path[:] = saved


class _AtSitecustomize:
    """A one-shot finder: runs the guard when start-up looks for ``sitecustomize``, finds nothing."""

    def __init__(self, cfg):
        self.cfg = cfg

    def find_spec(self, name, path=None, target=None):
        if name == "sitecustomize":
            try:
                sys.meta_path.remove(self)
            except ValueError:
                pass
            _guard(self.cfg)
        return None


def _main():
    try:
        cfg = _config()
        if __name__ == "sitecustomize":
            _guard(cfg)
        elif not getattr(sys, "_lancebench_guarded", False):
            sys.meta_path.insert(0, _AtSitecustomize(cfg))
    except BaseException:  # noqa: BLE001 - start-up must never fail because of the guard
        pass


_main()

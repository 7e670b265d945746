"""The verifier's runs of one trial look alike from inside the sandbox (attack pass round 4's
left-open hole, ``docs/security.md``: "Runs that look alike").

Code under test could tell the graded run, the canary run and the untouched base's run apart by
the host folders ``/proc/self/mountinfo`` (and the sandbox's own command line, ``/proc/1/cmdline``
on the local backend) shows for ``/tests``, ``/logs/verifier`` and the workspace
(``.../grade-0/``, ``.../grade-canary/``, ``.../grade-base/``; ``break_run_when_wrong.sh`` read
it), and by the age of the hidden test files (the graded run's kept the task's mtime, the canary
run's edited file was seconds old). Code right in the graded run only could then skew a verdict.

One trial per backend: a task derived from ``calc`` whose P2P list holds a test the hidden tests
skip (so the base is graded: ``verifier._skipped_p2p``; it skips there too, so grading goes on to
the canary run). A recorder writes what a process can see of its run (mountinfo without its
counters, environment, host name, cwd, ids, cgroup, every visible process's command line, the
names and ages of the files under ``/tests`` and ``/logs/verifier``) into the verifier's folder:
from the hidden tests' module (every run, the base's included) and from the code under test
(``calc.py``, written by the agent: the graded and the canary run). The records of the runs must be
equal once random tokens (hexadecimal runs) and the kernel's counters are blanked (mount ids and
loop device numbers move with whatever else the machine mounts), the old readable names must not
show, and each run's host folder must be a new random name.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest
from lbtest import TASKS, derive_task, job_dir, lb, results

from lancebench.sandbox.uid_lease import FIRST_UID, PAIRS

LAST_UID = FIRST_UID + 2 * PAIRS

# Writes what the process sees of its run to /logs/verifier/seen-<WHO>.json (paths assembled at
# run time: the static scan refuses a patch whose code names the verifier's folder).
RECORDER = '''
def _lb_seen(who):
    import glob, json, os, socket, time
    def read(path):
        try:
            with open(path, errors="replace") as fh:
                return fh.read()
        except OSError as exc:
            return "error %s" % exc.errno
    root = os.sep
    tests, logs = root + "te" + "sts", os.path.join(root + "lo" + "gs", "veri" + "fier")
    files = {}
    for top in (tests, logs):
        for path in sorted(glob.glob(os.path.join(top, "**"), recursive=True)):
            st = os.lstat(path)
            files[path] = round(time.time() - st.st_mtime)
    seen = {"mountinfo": read("/proc/self/mountinfo"), "env": dict(os.environ), "host": socket.gethostname(),
            "cwd": os.getcwd(), "ids": [os.getuid(), os.getgid(), sorted(os.getgroups())],
            "cgroup": read("/proc/self/cgroup"), "files": files,
            "cmdlines": sorted(read(p + "/cmdline").replace(chr(0), " ") for p in glob.glob("/proc/[0-9]*"))}
    with open(os.path.join(logs, "seen-%s.json" % who), "w") as fh:
        json.dump(seen, fh)


_lb_seen(WHO)
'''

SKIPPED = '''

import pytest


@pytest.mark.skip(reason="an optional extension")
def test_optional():
    assert calc.mul(1, 1) == 1
'''


def _agent(shared: Path) -> Path:
    """A script agent: fixes ``calc.add`` and puts the recorder into ``calc.py``."""
    code = ("def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
            + RECORDER.replace("WHO", '"code"'))
    script = shared / "agent.sh"
    script.write_text(f"#!/bin/bash\ncat > calc.py <<'PY'\n{code}PY\n")
    script.chmod(0o755)
    return script


def _task(shared: Path) -> Path:
    hidden = (TASKS / "calc" / "tests" / "test_calc.py").read_text() + SKIPPED + RECORDER.replace("WHO", '"tests"')
    task = derive_task(TASKS / "calc", shared / "tasks" / "seen", files={"tests/test_calc.py": hidden},
                       toml={r"^p2p = .*$": 'p2p = ["test_calc::test_mul", "test_calc::test_optional"]'})
    day_ago = time.time() - 86400  # the task's files are old, as a dataset's are
    for path in (task / "tests").iterdir():
        os.utime(path, (day_ago, day_ago))
    return task


HEX = re.compile(r"[0-9a-f]{8,}")
BASE32 = re.compile(r"\b[A-Z2-7]{26}\b")  # docker's short names of overlay layers (a container's own layer)


def _normal(seen: dict) -> dict:
    """A record with what differs between any two sandboxes blanked: mount ids, device numbers and
    peer groups of each mountinfo line (the kernel's counters), loop device numbers, hexadecimal
    runs of 8 or more (random names: container ids, the runs' folders), docker's layer names,
    bubblewrap's info descriptor, a local sandbox's leased host uid, and file ages (kept only as
    'under an hour' or not)."""
    lines = []
    for line in seen["mountinfo"].splitlines():
        fields, _, rest = line.partition(" - ")
        parts = fields.split()  # id parent major:minor root point options [optional...]
        lines.append(" ".join([*parts[3:6], "-", rest]))
    out = {k: v for k, v in seen.items() if k not in ("mountinfo", "files", "cmdlines")}
    out["mountinfo"] = sorted(lines)
    # bubblewrap's --info-fd is the harness's next free descriptor: the graded and the canary run
    # start together, in an order drawn at random (verifier._beside_canary), and the canary run's
    # tests run after the graded run's (round 10), so it may say which came later, as the clock
    # does, never which tests are canaries
    out["cmdlines"] = [sorted(re.sub(r"--info-fd \d+", "--info-fd N", line).split())  # bwrap's /etc binds: in
                       for line in seen["cmdlines"]]  # listing order
    out["files"] = {k: v < 3600 for k, v in seen["files"].items() if "/seen-" not in k}
    text = re.sub(r"/dev/loop\d+", "/dev/loopN", json.dumps(out, sort_keys=True))
    # a local sandbox's host uid is leased per sandbox from a random start (sandbox/uid_lease.py):
    # it shows in its tmpfs mounts' options, and says nothing of which run it is
    text = re.sub(r"\b([ug]id=)(6[01]\d\d\d)\b",
                  lambda m: m.group(1) + ("<leased>" if FIRST_UID <= int(m.group(2)) < LAST_UID else m.group(2)), text)
    text = BASE32.sub("<b32>", HEX.sub("<hex>", text))
    return json.loads(text)


def _source(seen: dict, point: str) -> str:
    """The host folder mounted at ``point``, as the record's mountinfo shows it (its root field)."""
    (root,) = [line.split()[3] for line in seen["mountinfo"].splitlines() if line.split()[4] == point]
    return root


@pytest.mark.slow
def test_the_graded_canary_and_base_runs_look_alike(jobs, shared, backend):
    task = _task(shared)
    lb("run", "-p", task, "-a", f"script:{_agent(shared)}", "-o", jobs, "--backend", backend, check=True, timeout=600)
    (got,) = results(job_dir(jobs))
    assert got["status"] == "resolved", (got["reason"], got.get("scan_notes"))
    verifier = job_dir(jobs) / "trials" / got["trial_id"] / "verifier"
    runs = {"graded": "run-0", "canary": "canary", "base": "base"}  # the readable layout stays
    seen = {(run, who): json.loads((verifier / folder / "logs" / f"seen-{who}.json").read_text())
            for run, folder in runs.items() for who in ("tests", "code") if (run, who) != ("base", "code")}
    raw = json.dumps(list(seen.values()))
    assert not re.search(r"grade-(\d|canary|base)|canary-tests|verifier/base", raw), \
        sorted(set(re.findall(r"[^ \"]*(?:grade-|canary-tests|verifier/base)[^ \"]*", raw)))
    sources = {run: _source(seen[run, "tests"], "/tests") for run in runs}  # each run a fresh random name
    assert len(set(sources.values())) == 3 and all(re.search(r"/[0-9a-f]{16}/tests$", p) for p in sources.values()), \
        sources
    assert all(age < 3600 for s in seen.values() for age in s["files"].values()), \
        {k: s["files"] for k, s in seen.items()}
    for who in ("tests", "code"):
        graded = _normal(seen["graded", who])
        differ = {run: {k: (graded[k], _normal(seen[run, who])[k]) for k in graded
                        if graded[k] != _normal(seen[run, who])[k]}
                  for run in runs if (run, who) in seen and run != "graded"}
        assert differ == {run: {} for run in differ}, (who, differ)

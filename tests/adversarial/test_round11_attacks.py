"""Attack pass round 11 (docs/security.md, "Attack pass round 11"): round 10's ordering of the
verifier runs of one graded work (``grading/verifier.py``: ``_beside_canary``,
``_grade_once(after=...)``, ``Grading.beside``), round 9's per-sandbox uid lease
(``sandbox/uid_lease.py``) and the model gateway's usage records (``llm/gateway_hooks.py``; its
test is ``tests/llm/test_gateway_cut_calls.py::test_a_request_cannot_turn_off_its_own_usage_record``,
beside the gateway that module starts once).

1. ``round11_compare_runs_by_page_cache``: the runs no longer run code at once, but they read the
   same files (the host's ``/usr`` on the local backend, the image's layers on docker), and a page
   one run read stays in the host's page cache after it, where the next run can ask for it
   without reading it (``preadv2(RWF_NOWAIT)``). The graded run leaves a few pages per hidden test
   body it holds; the canary run finds the pages of the real tests and not of the canaries, and
   forges exactly around them. Found, not fixed (docs/security.md: no small change closes it, and
   the same channel reaches across trials): an xfail on both backends.
2. Round 9's uid lease held: a sandbox's processes (``setsid``, double forks) do not outlive it,
   and a sandbox that fills its host uid's key quota (the kernel counts keys per uid, across
   namespaces) leaves another sandbox's quota whole.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
from pathlib import Path

import pytest
from verify_calc import calc_on, patch_of, verify

from lancebench.backends.local import LocalBackend
from lancebench.sandbox.fstree import remove_tree
from lancebench.task.load import load_task

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tasks"
AGENTS = Path(__file__).resolve().parent / "agents"


# not strict: the attack reads the host's page cache, which other processes on a CI machine may
# warm or drop (local marks pages of a cold host file by reading them); a pass there is no fix
@pytest.mark.xfail(strict=False, reason="open (docs/security.md, round 11): the page cache outlives a run; "
                   "the canary run learns which tests the graded run held")
def test_the_canary_run_cannot_read_the_graded_runs_tests_from_the_page_cache(shared: Path, backend: str,
                                                                              monkeypatch):
    task, box = calc_on(backend, shared, monkeypatch)
    attack = (AGENTS / "round11_compare_runs_by_page_cache.py").read_text().replace("@SALT@", secrets.token_hex(8))
    patch = patch_of(task.paths.root / "environment" / "repo", {"calc.py": attack}, shared)
    assert "return a - b" in patch  # calc.add stays broken
    verdict = verify(task, box, backend, patch, shared)
    assert verdict.status == "unresolved", (verdict.status, verdict.reason)
    assert "forged verdict (canary)" in (verdict.reason or ""), verdict.reason


# fills the key quota of its host uid (the kernel's, per uid whatever the namespace), leaves
# processes meant to outlive the sandbox (a new session, a double fork), says so, then waits
KEYS_AND_DAEMONS = r"""
import ctypes, os, subprocess, time
libc = ctypes.CDLL(None, use_errno=True)
n = 0
while libc.syscall(248, b"user", b"k%d" % n, b"x" * 64, 64, ctypes.c_long(-4)) >= 0:  # add_key(@u)
    n += 1
subprocess.Popen(["setsid", "sleep", "300"], start_new_session=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(300)
    os._exit(0)
open("held.tmp", "w").write(f"{n} {ctypes.get_errno()}")
os.replace("held.tmp", "held")  # whole when seen
time.sleep(300)
"""
ONE_KEY = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
           "r = libc.syscall(248, b'user', b'one', b'x', 1, ctypes.c_long(-4))\n"
           "print('ok' if r >= 0 else os.strerror(ctypes.get_errno()))\n")


def _live_processes_of(uids: set[int]) -> list[str]:
    """This host's processes (not zombies) owned by one of ``uids``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if int(fields["Uid"].split()[1]) in uids and not fields["State"].strip().startswith("Z"):
            found.append(f"{pid} {fields['Name'].strip()}")
    return found


@pytest.mark.skipif(os.geteuid() != 0, reason="the leased sandbox uids need root")
def test_a_sandboxs_keys_and_processes_stay_with_its_own_uid_and_life(shared: Path, monkeypatch):
    """Round 9's lease, attacked: a sandbox fills its uid's key quota (200 keys here) and leaves
    daemons; another sandbox open at the same time still adds a key (its own uid's quota), and
    once the first stops no process of its uid pair is left on the host."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    monkeypatch.setenv("LANCEBENCH_HOME", str(shared / "home"))
    task = load_task(FIXTURES / "pick")
    box = LocalBackend()

    async def go():
        env = await box.prepare(task)
        a, b = box.open(task, env, shared / "a"), box.open(task, env, shared / "b")
        await a.start()
        await b.start()
        try:
            hog = asyncio.ensure_future(a.exec(["python3", "-c", KEYS_AND_DAEMONS], timeout=60))
            for _ in range(400):
                if (a.workspace / "held").is_file() or hog.done():
                    break
                await asyncio.sleep(0.025)
            held = (a.workspace / "held").read_text() if (a.workspace / "held").is_file() else (await hog).output
            other = await b.exec(["python3", "-c", ONE_KEY], timeout=60)
            uids = {a.uid, a.app_uid}
        finally:
            await a.stop()
            await b.stop()
            for folder in (shared / "a", shared / "b"):  # their storage quotas' mounts too
                remove_tree(folder)
        await asyncio.gather(hog, return_exceptions=True)
        return held, other.stdout.strip(), uids

    held, other, uids = asyncio.run(go())
    count, errno = held.split()
    assert int(count) >= 100 and int(errno) == 122, held  # EDQUOT: the uid's quota is full
    assert other == "ok"
    assert _live_processes_of(uids) == []

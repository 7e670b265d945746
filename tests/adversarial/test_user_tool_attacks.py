"""Attacks on the user tool (issue 12, kind 7), on both backends: the replayed code copies the
hidden tests into the trace, raw and wrapped in real image and HTML files; the agent swaps a
folder for a link to a root-owned host file while the harness snapshots its workspace, and makes
``user_tool/`` a link to a host folder. The agent must never see a hidden-test line, and no host
file may change."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from lbtest import derive_task, job_dir, lb, one_result

REPO = Path(__file__).resolve().parents[2]
INVOICE = REPO / "src" / "lancebench" / "datasets" / "mini" / "tasks" / "invoice-app-tax-rounding"
AGENT = Path(__file__).resolve().parent / "agents" / "user_tool_attacks.sh"


@pytest.mark.browser
@pytest.mark.slow
def test_user_tool_leaks_nothing_and_changes_no_host_file(jobs, shared, backend):
    host_file = shared / "root-secret"
    host_file.write_text("host\n")
    os.chmod(host_file, 0o600)
    host_dir = shared / "host-dir"
    host_dir.mkdir()
    before = os.stat(host_file)
    task = derive_task(INVOICE, shared / "invoice", append_instruction=f"HOSTFILE={host_file}\nHOSTDIR={host_dir}")
    lb("run", "-p", task, "-a", f"script:{AGENT}", "-o", jobs, "--backend", backend, check=True, timeout=1800)
    r = one_result(jobs)
    trial = job_dir(jobs) / "trials" / r["trial_id"]
    log = (trial / "agent" / "script.log").read_text(errors="replace")
    assert "exit=0" in log.split("== run2")[1].split("== files")[0], log[-3000:]
    # (a, b) nothing of the hidden tests reached the agent: raw copies and mistyped files are
    # withheld, wrapped copies are re-encoded (PNG) or withheld for quoting the tests (HTML)
    files = log.split("== files")[1].split("== contents")[0].split()
    assert not [f for f in files if "leak" in f], files
    assert [f for f in files if f.endswith("-wrap.png")], files  # real images, re-encoded
    secrets = [line.strip() for line in (INVOICE / "tests" / "test_e2e.py").read_text().splitlines()
               if len(line.strip()) >= 24]
    assert secrets
    for line in secrets:
        assert line not in log, line
    records = [json.loads(x) for x in (trial / "agent" / "user_tool.jsonl").read_text().splitlines()]
    record = next(x for x in records if x.get("removed"))
    assert any(name.endswith("-leak.html") for name in record["removed"]), record
    assert any(name.endswith("-wrap.html") for name in record["removed"]), record
    # (c, d) no host file changed, nothing landed in the host folder
    after = os.stat(host_file)
    assert (stat.S_IMODE(after.st_mode), after.st_uid, after.st_gid) == (0o600, before.st_uid, before.st_gid)
    assert host_file.read_text() == "host\n"
    assert list(host_dir.iterdir()) == []
    assert r["status"] == "unresolved", r["reason"]

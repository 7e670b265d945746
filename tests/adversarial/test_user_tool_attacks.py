"""Attacks on the user tool (issue 12, kinds 6 and 7), on both backends: the replayed code (the
task's app server) copies the hidden tests into the trace, raw and wrapped in real image and HTML
files, forges trace files, links to the tests, a folder beside the trace folder or renames it (all
refused: it runs under a uid of its own, ``grading.app_server``); the agent swaps a
folder for a link to a root-owned host file while the harness snapshots its workspace, and makes
``user_tool/`` a link to a host folder. The agent must never see a hidden-test line, and no host
file may change."""

from __future__ import annotations

import json
import os
import re
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
    # (a, b) nothing of the hidden tests, and no forged trace, reached the agent: the app server runs
    # under a uid of its own (grading.app_server), for which the trace folder is not writable (local:
    # not even there) and whose parent takes no new folder
    files = log.split("== files")[1].split("== contents")[0].split()
    assert not [f for f in files if "leak" in f or "wrap" in f or "forged" in f or "link" in f], files
    assert "actions.log" in files and "forged" not in log.split("== contents")[1].split("== run3")[0]
    secrets = [line.strip() for line in (INVOICE / "tests" / "test_e2e.py").read_text().splitlines()
               if len(line.strip()) >= 24]
    assert secrets
    for line in secrets:
        assert line not in log, line
    records = [json.loads(x) for x in (trial / "agent" / "user_tool.jsonl").read_text().splitlines()]
    app_logs = "".join(x["app_log"] for x in records if "app_log" in x)
    attempts = re.findall(r"^ATTACK (.+?): (\S+)", app_logs, flags=re.M)
    assert "ATTACK uid=" in app_logs and {"write 9400-forged.png", "write actions.log", "write trace sibling",
                                          "write trace rename"} <= {what for what, _ in attempts}, app_logs[-3000:]
    assert all(outcome == "denied" for _, outcome in attempts), attempts
    # (c, d) no host file changed, nothing landed in the host folder
    after = os.stat(host_file)
    assert (stat.S_IMODE(after.st_mode), after.st_uid, after.st_gid) == (0o600, before.st_uid, before.st_gid)
    assert host_file.read_text() == "host\n"
    assert list(host_dir.iterdir()) == []
    assert r["status"] == "unresolved", r["reason"]

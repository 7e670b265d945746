"""Issue 20, isolation between trials: the local backend gives a phase with the whole network
(``network_mode = "public"``) the harness's own network namespace, so code run there reaches what
the host serves on 127.0.0.1: the model gateway of installed agents, a local model server,
another trial's server (docs/security.md, known limits). ``reach_host_loopback.sh`` asks a
server the test runs on the host's loopback and keeps its answer in the patch. A strict xfail
until public phases get a namespace of their own with outbound access only (slirp4netns or
pasta); ``tasks show`` and the run already say so (tests/task/test_network_plan.py)."""

from __future__ import annotations

import http.server
import secrets
import threading
from pathlib import Path

import pytest
from lbtest import TASKS, derive_task, lb, one_result, patch_text

AGENTS = Path(__file__).resolve().parent / "agents"
PUBLIC_AGENT = '[agent]\nnetwork_mode = "public"'


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="the local backend shares the host's network namespace with public phases "
                   "(docs/security.md, known limits)")
def test_a_public_trial_on_the_local_backend_cannot_reach_the_hosts_loopback(jobs, shared):
    secret = f"host-only-{secrets.token_hex(8)}"

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the stdlib's name
            self.send_response(200)
            self.end_headers()
            self.wfile.write(secret.encode())

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        task = derive_task(TASKS / "calc", shared / "calc-public", toml={r"^\[agent\]$": PUBLIC_AGENT},
                           append_instruction=f"HOST_PORT={server.server_address[1]}")
        lb("run", "-p", task, "-a", f"script:{AGENTS / 'reach_host_loopback.sh'}", "-o", jobs, "--backend", "local",
           check=True, timeout=600)
    finally:
        server.shutdown()
    r = one_result(jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    patch = patch_text(jobs, r)
    assert "reached.txt" in patch  # the agent ran and kept what it got
    assert secret not in patch

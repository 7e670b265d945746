"""Issue 20, isolation between trials: on the local backend a phase with the whole network
(``network_mode = "public"``) gets, per command, a network namespace of its own with outbound
access only (slirp4netns with host loopback disabled, :mod:`lancebench.sandbox.local_net`), so
code run there cannot reach what the host serves on 127.0.0.1: the model gateway of installed
agents, a local model server, another trial's server. ``reach_host_loopback.sh`` asks a server
the test runs on the host's loopback (directly and through slirp's gateway 10.0.2.2) and keeps
the answers in the patch; as a control it fetches from a server on one of the host's other
addresses, which it must reach (the outbound access a public phase is for)."""

from __future__ import annotations

import http.server
import secrets
import threading
from pathlib import Path

import pytest
from lbtest import TASKS, derive_task, host_address, lb, one_result, patch_text

AGENTS = Path(__file__).resolve().parent / "agents"
PUBLIC_AGENT = '[agent]\nnetwork_mode = "public"'


def _serve(host: str, body: str) -> http.server.ThreadingHTTPServer:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the stdlib's name
            self.send_response(200)
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer((host, 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.mark.slow
def test_a_public_trial_on_the_local_backend_cannot_reach_the_hosts_loopback(jobs, shared):
    secret, control = f"host-only-{secrets.token_hex(8)}", f"outbound-{secrets.token_hex(8)}"
    local, other = _serve("127.0.0.1", secret), _serve(host_address(), control)
    try:
        url = f"http://{other.server_address[0]}:{other.server_address[1]}/"
        task = derive_task(TASKS / "calc", shared / "calc-public", toml={r"^\[agent\]$": PUBLIC_AGENT},
                           append_instruction=f"HOST_PORT={local.server_address[1]}\nOUTBOUND_URL={url}")
        lb("run", "-p", task, "-a", f"script:{AGENTS / 'reach_host_loopback.sh'}", "-o", jobs, "--backend", "local",
           check=True, timeout=600)
    finally:
        local.shutdown()
        other.shutdown()
    r = one_result(jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    patch = patch_text(jobs, r)
    assert "reached.txt" in patch and "Connection refused" in patch  # the agent ran and kept what it got
    assert secret not in patch
    assert control in patch  # the public phase still reaches the host's other addresses

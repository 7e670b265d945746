"""Issue 20, isolation between trials: on the local backend a phase with the whole network
(``network_mode = "public"``) gets, per command, a network namespace of its own with outbound
access only (slirp4netns with host loopback disabled, :mod:`lancebench.sandbox.local_net`), so
code run there cannot reach what the host serves on 127.0.0.1: the model gateway of installed
agents, a local model server, another trial's server. ``reach_host_loopback.sh`` asks a server
the test runs on the host's loopback (directly and through slirp's gateway 10.0.2.2) and keeps
the answers in the patch; as a control it fetches from a server on one of the host's other
addresses, which it must reach (the outbound access a public phase is for).

Attack pass round 4: slirp4netns connects from the host's own namespace, so a public local trial
reached every address the host reaches, the networks of Docker's bridges included: another
trial's container on ``lancebench-public`` (whose containers docker keeps apart) answered it, and
so does a server on the host's bridge address (where the harness's filtering resolver listens).
Now the namespace refuses the host's bridge networks (``local_net.OutboundNet._fence``)."""

from __future__ import annotations

import http.server
import json
import os
import secrets
import subprocess
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


def _reach(jobs, shared, loopback: tuple[str, str], outbound: tuple[str, str]) -> str:
    """Serve ``loopback`` and ``outbound`` ((address, body) each), run ``reach_host_loopback.sh``
    in a public local trial told the loopback server's port and the outbound server's URL, and
    return the trial's patch (what the agent got) after checking the trial is unresolved."""
    local, other = _serve(*loopback), _serve(*outbound)
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
    return patch_text(jobs, r)


@pytest.mark.slow
def test_a_public_trial_on_the_local_backend_cannot_reach_the_hosts_loopback(jobs, shared):
    secret, control = f"host-only-{secrets.token_hex(8)}", f"outbound-{secrets.token_hex(8)}"
    patch = _reach(jobs, shared, ("127.0.0.1", secret), (host_address(), control))
    assert "reached.txt" in patch and "Connection refused" in patch  # the agent ran and kept what it got
    assert secret not in patch
    assert control in patch  # the public phase still reaches the host's other addresses


def _bridge_address() -> str | None:
    """An IPv4 address the host holds on a bridge interface (docker0, br-*), or None."""
    bridges = {n for n in os.listdir("/sys/class/net") if os.path.isdir(f"/sys/class/net/{n}/bridge")}
    links = json.loads(subprocess.run(["ip", "-j", "-4", "addr", "show"], capture_output=True, check=True).stdout)
    return next((a["local"] for link in links if link["ifname"] in bridges for a in link.get("addr_info", [])
                 if a.get("family") == "inet"), None)


@pytest.mark.slow
def test_a_public_trial_on_the_local_backend_cannot_reach_the_hosts_bridge_networks(jobs, shared):
    bridge = _bridge_address()
    if bridge is None:
        pytest.skip("no bridge interface on this host (Docker makes docker0)")
    secret = f"bridge-only-{secrets.token_hex(8)}"
    patch = _reach(jobs, shared, ("127.0.0.1", "unused"), (bridge, secret))
    assert "outbound.txt" in patch and "No route to host" in patch  # refused in the sandbox's namespace
    assert secret not in patch


@pytest.mark.slow
@pytest.mark.parametrize("late", ["bridge", "address"])
def test_a_bridge_made_while_a_public_command_runs_is_fenced_too(jobs, shared, late):
    # Attack pass round 5: the fence was read once, before the command started; a command that
    # waited for a new bridge (Docker makes `lancebench-public` at a docker job's first public
    # trial) reached a server on it. Now the harness adds a new bridge's network to a running
    # command's fence within half a second (local_net.OutboundNet._follow).
    # Round 6 (`address`): the watch looked addresses up only when the bridges' names changed, so
    # a network given to a bridge that existed, without an address, before the command started was
    # never fenced: the secret in the patch without the fix (checked). Now the host's routes count.
    if os.geteuid() != 0:
        pytest.skip("making a bridge interface needs root")
    name, net = f"lbt{secrets.token_hex(4)}", "198.18.213"
    secret = f"new-bridge-{secrets.token_hex(8)}"
    made = threading.Event()
    if late == "address":
        subprocess.run(["ip", "link", "add", name, "type", "bridge"], check=True)

    def make_bridge() -> None:
        if late == "bridge":
            subprocess.run(["ip", "link", "add", name, "type", "bridge"], check=True)
        subprocess.run(["ip", "addr", "add", f"{net}.1/24", "dev", name], check=True)
        subprocess.run(["ip", "link", "set", name, "up"], check=True)
        made.set()

    class Signal(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the stdlib's name
            if not made.is_set():
                make_bridge()  # the agent's command is running: the bridge (or its address) comes after it started
                on_bridge.append(_serve(f"{net}.1", secret))
            self.send_response(200)
            self.end_headers()
            self.wfile.write(f"go:{on_bridge[0].server_address[1]}".encode())

        def log_message(self, *args):
            pass

    on_bridge: list[http.server.ThreadingHTTPServer] = []
    signal = http.server.ThreadingHTTPServer((host_address(), 0), Signal)
    threading.Thread(target=signal.serve_forever, daemon=True).start()
    try:
        url = f"http://{signal.server_address[0]}:{signal.server_address[1]}/"
        task = derive_task(TASKS / "calc", shared / "calc-public", toml={r"^\[agent\]$": PUBLIC_AGENT},
                           append_instruction=f"SIGNAL_URL={url}\nBRIDGE_HOST={net}.1")
        lb("run", "-p", task, "-a", f"script:{AGENTS / 'wait_for_new_bridge.sh'}", "-o", jobs, "--backend", "local",
           check=True, timeout=600)
    finally:
        signal.shutdown()
        for server in on_bridge:
            server.shutdown()
        subprocess.run(["ip", "link", "del", name], check=False)
    assert made.is_set()
    r = one_result(jobs)
    patch = patch_text(jobs, r)
    assert "bridge.txt" in patch and "No route to host" in patch, patch  # refused in the sandbox's namespace
    assert secret not in patch

"""Isolation between trials with the whole network on docker (issue 20, item 4): two trials with
``network_mode = "public"`` shared the default bridge, and one fetched a secret the other was
serving. Now no trial's container reaches another's, whatever the two networks (public, an
allowlist lifted for a step with the whole network, an allowlist), while the network and the host
stay reachable for a public one (:mod:`lancebench.sandbox.docker_public`).

Servers are bound inside the containers' own network namespaces by the test process
(:mod:`docker_net_support`), so it needs root and an engine on this machine.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from docker_support import docker_skip_reason

pytest.importorskip("docker", reason="the Docker SDK is missing: pip install 'lancebench[docker]'")

from docker_net_support import BridgeHost, fetch, in_netns  # noqa: E402

from lancebench.sandbox.base import SandboxSpec  # noqa: E402
from lancebench.sandbox.docker import DockerSandbox  # noqa: E402
from lancebench.sandbox.docker_engine import client  # noqa: E402
from lancebench.sandbox.docker_network import enforce_problem  # noqa: E402
from lancebench.sandbox.docker_public import NETWORK, public_network  # noqa: E402

_REASON = docker_skip_reason() or enforce_problem()
pytestmark = [pytest.mark.docker, pytest.mark.skipif(_REASON is not None, reason=_REASON or "")]
JOB = f"pytest-public-{uuid.uuid4().hex[:6]}"


class _Body(BaseHTTPRequestHandler):
    body = b""

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)


def _serve(body: str, bind: str = "0.0.0.0", pid: int | None = None) -> ThreadingHTTPServer:
    """An HTTP server answering ``body``, bound in the network namespace of process ``pid`` (a
    container's; None: the host's)."""
    handler = type("Handler", (_Body,), {"body": body.encode()})
    server = in_netns(pid, lambda: ThreadingHTTPServer((bind, 0), handler)) if pid else ThreadingHTTPServer(
        (bind, 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server


def _net(box: DockerSandbox) -> tuple[int, str, str]:
    """(pid, address, gateway) of a started container on its one network."""
    attrs = client().api.inspect_container(box.name)
    (net,) = attrs["NetworkSettings"]["Networks"].values()
    return attrs["State"]["Pid"], net["IPAddress"], net["Gateway"]


def _box(trial: str, allow=None) -> DockerSandbox:
    return DockerSandbox(SandboxSpec(image="debian:bookworm-slim", network=True, allow_hosts=allow,
                                     labels={"job": JOB, "trial": trial}))


def test_two_public_trials_do_not_reach_each_other_but_reach_the_host():
    host = _serve("the-host")
    port = host.server_address[1]

    async def go():
        a, b = _box("a"), _box("b")
        await asyncio.gather(a.start(), b.start())
        try:
            pid_a, ip_a, _ = _net(a)
            _, _, gateway_b = _net(b)
            secret = _serve("secret-of-a", pid=pid_a)
            sport = secret.server_address[1]
            try:
                own = await fetch(a, ip_a, sport)  # the control: the secret answers at a's address
                other = await fetch(b, ip_a, sport)
                out = await fetch(b, gateway_b, port)  # public: the host (and the network) answer
            finally:
                secret.shutdown()
                secret.server_close()
            return own, other, out
        finally:
            await asyncio.gather(a.stop(), b.stop())

    try:
        own, other, out = asyncio.run(go())
    finally:
        host.shutdown()
        host.server_close()
    assert own.stdout.strip() == "secret-of-a", own.output
    assert other.exit_code != 0 and "secret-of-a" not in other.stdout, other.output
    assert out.stdout.strip() == "the-host", out.output


def test_a_lifted_allowlist_reaches_no_other_container_of_the_bridge():
    # a multi-step task whose steps' networks differ starts on the default bridge with an
    # allowlist; a step with the whole network lifts it (before: nothing stopped it reaching
    # every container there), and a restart of the container keeps the isolation
    other = BridgeHost(f"{JOB}-other")
    try:
        other.serve_http("secret-of-other")
        host = _serve("the-host")

        async def go():
            box = _box("lifted", allow=(other.ip,))
            await box.start()
            try:
                before = await fetch(box, other.ip)  # the control: allowed, it answers
                await box.set_allow_hosts(None)
                lifted = await fetch(box, other.ip)
                await asyncio.to_thread(box._restart_sync)
                restarted = await fetch(box, other.ip)
                out = await fetch(box, _net(box)[2], host.server_address[1])
                return before, lifted, restarted, out
            finally:
                await box.stop()

        try:
            before, lifted, restarted, out = asyncio.run(go())
        finally:
            host.shutdown()
            host.server_close()
    finally:
        other.close()
    assert before.stdout.strip() == "secret-of-other", before.output
    for res in (lifted, restarted):
        assert res.exit_code != 0 and "secret-of-other" not in res.stdout, res.output
    assert out.stdout.strip() == "the-host", out.output


def test_the_public_network_keeps_its_containers_apart():
    attrs = client().networks.get(public_network()).attrs
    assert attrs["Name"] == NETWORK and attrs["Options"]["com.docker.network.bridge.enable_icc"] == "false"

"""The network tests' :class:`BridgeHost` reads its bridge's gateway from the container's own
network settings, as the product does (``sandbox/docker.py``), never from the network's IPAM
configuration: on a freshly started engine that lists only the subnet, and
``test_dns_attacks_through_the_cli`` failed with ``KeyError: 'Gateway'`` on a new machine
(issue 30). The expected value is computed independently: the default route of the container's
own network namespace, read from ``/proc/<pid>/net/route``."""

from __future__ import annotations

import socket
import struct
import uuid
from pathlib import Path

import pytest
from docker_support import docker_skip_reason

pytest.importorskip("docker", reason="the Docker SDK is missing: pip install 'lancebench[docker]'")

from docker_net_support import BridgeHost  # noqa: E402

_REASON = docker_skip_reason()
pytestmark = [pytest.mark.docker, pytest.mark.skipif(_REASON is not None, reason=_REASON or "")]


def _default_gateway(pid: int) -> str:
    """The gateway of the default route in process ``pid``'s network namespace (the kernel's
    route table: destination 0, gateway as a little-endian hexadecimal IPv4 address)."""
    for line in Path(f"/proc/{pid}/net/route").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == "00000000":
            return socket.inet_ntoa(struct.pack("<I", int(fields[2], 16)))
    raise AssertionError(f"no default route in process {pid}'s namespace")


def test_the_gateway_is_the_containers_default_route():
    host = BridgeHost(f"lbtest-bridge-{uuid.uuid4().hex[:8]}")
    try:
        assert host.gateway == _default_gateway(host.pid)
    finally:
        host.close()

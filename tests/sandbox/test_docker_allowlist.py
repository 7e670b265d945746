"""``network_mode = "allowlist"`` on the docker backend, against real servers on the default bridge
(:mod:`docker_net_support`): an allowed address answers and any other is refused; CIDR, exact
host-name and ``*.`` wildcard entries; DNS answers only for listed names; a restarted container
gets its rules back; a step's policy replaces the previous one.

Needs a Docker engine on this machine, ``debian:bookworm-slim`` and root (``.ci/docker-setup.sh``);
without them every test skips and says why.
"""

from __future__ import annotations

import asyncio
import ipaddress
import subprocess
import uuid

import pytest
from docker_support import docker_skip_reason

pytest.importorskip("docker", reason="the Docker SDK is missing: pip install 'lancebench[docker]'")

import docker_net_support as net_support  # noqa: E402
from docker_net_support import ZoneServer, fetch, two_hosts  # noqa: E402

from lancebench.sandbox.docker_network import enforce_problem  # noqa: E402

_REASON = docker_skip_reason() or enforce_problem()
pytestmark = [pytest.mark.docker, pytest.mark.skipif(_REASON is not None, reason=_REASON or "")]
JOB = f"pytest-allow-{uuid.uuid4().hex[:6]}"


@pytest.fixture(scope="module")
def hosts():
    with two_hosts(JOB) as both:
        yield both


def run_box(allow, body, **kw):
    return net_support.run_box(JOB, allow, body, **kw)


def test_allowed_address_answers_and_any_other_is_refused(hosts):
    a, b = hosts

    async def body(box):
        ok, other = await fetch(box, a.ip), await fetch(box, b.ip)
        assert ok.exit_code == 0 and ok.stdout.strip() == "server-a", ok.output
        assert other.exit_code != 0 and "server-b" not in other.stdout
        assert "refused" in other.stderr.lower(), other.stderr  # rejected at once, not a silent time-out
        assert (await fetch(box, a.ip, 9)).exit_code != 0  # every port of an allowed host is reachable, but
        # nothing listens on 9: the refusal comes from the host itself (the allowlist did not hide it)
    run_box((a.ip,), body)


def test_empty_allowlist_reaches_nothing_but_public_reaches_both(hosts):
    a, b = hosts

    async def nothing(box):
        assert (await fetch(box, a.ip)).exit_code != 0
        assert (await fetch(box, b.ip)).exit_code != 0
    run_box((), nothing)

    async def both(box):
        assert (await fetch(box, a.ip)).stdout.strip() == "server-a"
        assert (await fetch(box, b.ip)).stdout.strip() == "server-b"
    run_box((a.ip, b.ip), both)  # the control: listed, both answer (a public container is on a network
    # of its own, where no other container is reachable: tests/sandbox/test_docker_public.py)


def test_cidr_entry_allows_its_range_only(hosts):
    a, b = hosts
    ip_a, ip_b = ipaddress.ip_address(a.ip), ipaddress.ip_address(b.ip)
    prefix = next(p for p in range(8, 33) if ip_b not in ipaddress.ip_network(f"{ip_a}/{p}", strict=False))
    cidr = str(ipaddress.ip_network(f"{ip_a}/{prefix}", strict=False))

    async def body(box):
        assert (await fetch(box, a.ip)).stdout.strip() == "server-a"
        assert (await fetch(box, b.ip)).exit_code != 0
    run_box((cidr,), body)


def test_host_names_and_wildcards_resolve_only_when_listed(hosts, monkeypatch):
    a, b = hosts
    zone = ZoneServer({"named.test": a.ip, "api.wild.test": a.ip, "wild.test": b.ip, "other.test": b.ip})
    monkeypatch.setenv("LANCEBENCH_ALLOWLIST_DNS", zone.address)
    try:
        async def body(box):
            assert (await fetch(box, "named.test")).stdout.strip() == "server-a"
            assert (await fetch(box, "api.wild.test")).stdout.strip() == "server-a"
            denied = await box.exec("getent hosts other.test; echo rc=$?; getent hosts wild.test; echo rc=$?")
            assert denied.stdout.count("rc=2") == 2, denied.output  # not found: the filter refused both names
            assert (await fetch(box, b.ip)).exit_code != 0  # and its address stays closed
            # a resolver of the agent's choice is no way out either: port 53 anywhere reaches the filter
            direct = await box.exec(f"timeout 5 bash -c 'exec 3<>/dev/tcp/{b.ip}/53' ; echo rc=$?")
            assert "rc=0" not in direct.stdout
        run_box(("named.test", "*.wild.test"), body)
        assert "other.test" not in zone.asked and "wild.test" not in zone.asked  # never even forwarded
    finally:
        zone.close()


def test_restart_and_step_change_keep_the_container_filtered(hosts):
    a, b = hosts

    async def body(box):
        await asyncio.to_thread(box._restart_sync)  # what a runaway command costs: a fresh namespace
        assert (await fetch(box, a.ip)).stdout.strip() == "server-a"
        assert (await fetch(box, b.ip)).exit_code != 0
        await box.set_allow_hosts((b.ip,))  # the next step's policy replaces the previous one
        assert (await fetch(box, a.ip)).exit_code != 0
        assert (await fetch(box, b.ip)).stdout.strip() == "server-b"
        await box.set_allow_hosts(None)  # public: the network, but no other container of the bridge
        assert (await fetch(box, a.ip)).exit_code != 0  # (test_docker_public.py: the host still answers)
    run_box((a.ip,), body)


def test_the_harness_never_filters_its_own_or_a_missing_namespace():
    from lancebench.errors import SandboxError
    from lancebench.sandbox.docker_network import ContainerFilter
    flt = ContainerFilter(("10.1.2.3",))
    with pytest.raises(SandboxError, match="own network namespace"):
        flt.apply("/proc/self/ns/net", "172.17.0.250", "172.17.0.1")
    with pytest.raises(SandboxError, match="not on this machine"):
        flt.apply("/var/run/docker/netns/lancebench-missing", "172.17.0.250", "172.17.0.1")
    flt.release()
    listed = subprocess.run(["nft", "list", "tables"], capture_output=True, text=True, check=True).stdout
    assert "inet lancebench" not in listed  # nothing reached the host's own rules

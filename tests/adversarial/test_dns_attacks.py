"""Attacks on the network allowlist's filtering resolver from inside docker containers (attack
pass after the DNS rate limit, commit 5d2fa6e): what an allowed wildcard name can make the
harness open or do, look-ups the resolver can never finish, and what the rate limit does to an
honest agent's resolver. Names resolve through a test DNS server (``LANCEBENCH_ALLOWLIST_DNS``);
the queries are built by hand in perl (the minimal image has no DNS tools besides ``getent``).

Needs a Docker engine on this machine, ``debian:bookworm-slim`` and root; skipped otherwise.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest
from docker_support import docker_skip_reason

pytest.importorskip("docker", reason="the Docker SDK is missing: pip install 'lancebench[docker]'")

from docker_net_support import BridgeHost, ZoneServer  # noqa: E402
from lbtest import FIXTURES, job_dir, lb, results  # noqa: E402

from lancebench.sandbox import dns_filter, docker_network  # noqa: E402
from lancebench.sandbox.base import SandboxSpec  # noqa: E402
from lancebench.sandbox.docker import DockerSandbox  # noqa: E402
from lancebench.sandbox.docker_engine import client  # noqa: E402

_REASON = docker_skip_reason() or docker_network.enforce_problem()
pytestmark = [pytest.mark.docker, pytest.mark.skipif(_REASON is not None, reason=_REASON or "")]
JOB = f"pytest-dnsattack-{uuid.uuid4().hex[:6]}"

# ASK name[:2q|:big|:edns] ...: one query each (type A) to 192.0.2.53:53 (redirected to the
# filter), one at a time; prints "ARG rcode=N A,A,..." or "ARG none" (no answer within 2 s).
# :2q sends the question twice in one query, :big pads the query to 60,000 bytes, :edns adds an
# OPT record (EDNS0, 4,096-byte payload); %2E in a name is a dot inside a label.
_ASK = r"""cat > /tmp/ask.pl <<'PERL'
use strict; use Socket;
socket(my $s, PF_INET, SOCK_DGRAM, 0) or die "socket: $!";
my $to = sockaddr_in(53, inet_aton("192.0.2.53")); my $id = 0;
sub skip { my ($b, $o) = @_; while (1) { my $l = ord substr($b, $o, 1);
  return $o + 2 if $l >= 192; $o += 1 + $l; return $o if $l == 0 } }
for my $arg (@ARGV) {
  my ($name, $how) = split /:/, $arg; $how //= ""; $id++;
  my $qn = join("", map { s/%2E/./g; chr(length $_) . $_ } split /\./, $name) . "\0" . pack("n2", 1, 1);
  my $q = pack("n6", $id, 0x0100, $how eq "2q" ? 2 : 1, 0, 0, $how eq "edns" ? 1 : 0)
    . ($how eq "2q" ? $qn x 2 : $qn);
  $q .= "\0" x 60000 if $how eq "big";
  $q .= "\0" . pack("n2 N n", 41, 4096, 0, 0) if $how eq "edns";
  unless (send($s, $q, 0, $to)) { print "$arg send-failed\n"; next }
  my ($buf, $got) = ("", 0); my $end = time + 2;
  while (!$got && time <= $end) { my $rin = ""; vec($rin, fileno($s), 1) = 1;
    next unless select(my $r = $rin, undef, undef, 0.5); recv($s, $buf, 4096, 0);
    $got = 1 if unpack("n", $buf) == $id }
  unless ($got) { print "$arg none\n"; next }
  my (undef, $flags, $qd, $an) = unpack("n4", $buf); my $o = 12;
  $o = skip($buf, $o) + 4 for 1..$qd;
  my @a; for (1..$an) { $o = skip($buf, $o); my ($t, undef, undef, $len) = unpack("n2 N n", substr($buf, $o, 10));
    $o += 10; push @a, inet_ntoa(substr($buf, $o, 4)) if $t == 1; $o += $len }
  print "$arg rcode=", $flags & 15, " ", join(",", @a), "\n";
}
PERL
perl /tmp/ask.pl"""


def _answers(output: str) -> dict[str, tuple[int | None, set[str]]]:
    """ASK's output as {arg: (rcode or None for no answer, addresses)}."""
    out: dict[str, tuple[int | None, set[str]]] = {}
    for line in output.splitlines():
        arg, _, rest = line.partition(" ")
        if rest.startswith("rcode="):
            code, _, addrs = rest[len("rcode="):].partition(" ")
            out[arg] = (int(code), set(filter(None, addrs.split(","))))
        elif rest in ("none", "send-failed"):
            out[arg] = (None, set())
    return out


def _boxes(n: int, allow: tuple[str, ...]) -> list[DockerSandbox]:
    spec = {"image": "debian:bookworm-slim", "network": True, "allow_hosts": allow}
    return [DockerSandbox(SandboxSpec(**spec, labels={"job": JOB, "trial": f"t{i}"})) for i in range(n)]


async def _heir_at(address: str, tries: int = 4) -> list[DockerSandbox]:
    """Containers started one at a time (each kept running) until one has ``address`` or
    ``tries`` were started: the engine gives a freed address to the next container it starts, which
    under ``pytest -n`` or beside another run may be another test's; the last one is the heir."""
    heirs: list[DockerSandbox] = []
    for _ in range(tries):
        [heir] = _boxes(1, ("*.fine.test",))
        await heir.start()
        heirs.append(heir)
        if _net(heir)["IPAddress"] == address:
            break
    return heirs


def _net(box: DockerSandbox) -> dict:
    return client().api.inspect_container(box.name)["NetworkSettings"]


def _nft_json(box: DockerSandbox, *what: str) -> dict:
    res = subprocess.run(["nsenter", f"--net={_net(box)['SandboxKey']}", "nft", "-j", "list", *what],
                         capture_output=True, text=True, check=True)
    return json.loads(res.stdout)


def test_a_wildcard_name_opens_neither_the_host_nor_another_trial_nor_without_bound(monkeypatch):
    """``*.evil.test`` allowed; the attacker controls that zone. Its names pointing at the bridge's
    gateway (the harness's host: a server listening there), cloud metadata, loopback and another
    trial's container were answered and opened before (the docs called it a known limit); names
    resolving to fresh addresses without end cost the harness an ``nft`` run each, without
    bound. Now: those names are refused (a name with one good address among them gets only that
    one), the host's server is refused, and the container learns at most ``MAX_LEARNED``
    addresses. Held variants, in the same container: odd case, the bare suffix, a longer name
    ending elsewhere, two questions in one query, a 60,000-byte query, EDNS. Found here too: a
    label holding a dot (``x\\.evil.test``, one label "x.evil" under "test") was taken for a
    name under ``evil.test`` (its text ends like one) and looked up; now refused."""
    blocks = {f"b{k}.evil.test": [f"10.77.{k}.{2 * i + 1}" for i in range(28)] for k in range(40)}
    zone = ZoneServer({"ok.evil.test": "192.0.2.10", "evil.test": "192.0.2.11", "xevil.test": "192.0.2.11",
                       "ok.evil.test.other.test": "192.0.2.11", "meta.evil.test": "169.254.169.254",
                       "lo.evil.test": "127.0.0.1", "x\\.evil.test": "192.0.2.13", **blocks})
    monkeypatch.setenv("LANCEBENCH_ALLOWLIST_DNS", zone.address)
    held = ["OK.Evil.TEST", "evil.test", "xevil.test", "ok.evil.test.other.test", "ok.evil.test:2q",
            "ok.evil.test:big", "ok.evil.test:edns"]
    opened = ["gw.evil.test", "meta.evil.test", "lo.evil.test", "peer.evil.test", "x%2Eevil.test", "mixed.evil.test"]

    async def go():
        attacker, victim = _boxes(2, ("*.evil.test",))
        await asyncio.gather(attacker.start(), victim.start())
        try:
            gateway, peer = _net(attacker)["Gateway"], _net(victim)["IPAddress"]
            zone.zone.update({"gw.evil.test": [gateway], "peer.evil.test": [peer],
                              "mixed.evil.test": [gateway, "192.0.2.12"]})
            with socket.create_server((gateway, 0)) as host_server:  # a service of the host
                asked = await attacker.exec(" ".join([_ASK, "ok.evil.test", *held, *opened, *blocks, "b0.evil.test"]))
                reach = await attacker.exec(f"timeout 5 bash -c 'exec 3<>/dev/tcp/$0/$1' {gateway} "
                                            f"{host_server.getsockname()[1]} && echo reached || echo refused")
            allowed = _nft_json(attacker, "set", "inet", docker_network.TABLE, "allow4")
            other = await victim.exec(" ".join([_ASK, "ok.evil.test"]))
            return gateway, peer, asked, reach, allowed, other
        finally:
            await asyncio.gather(attacker.stop(), victim.stop())

    gateway, peer, asked, reach, allowed, other = asyncio.run(go())
    got = _answers(asked.stdout)
    assert got["ok.evil.test"] == got["OK.Evil.TEST"] == (0, {"192.0.2.10"}), asked.output
    for name in ("evil.test", "xevil.test", "ok.evil.test.other.test", *opened[:5]):
        assert got[name] == (5, set()), (name, asked.output)  # REFUSED
    assert got["mixed.evil.test"] == (0, {"192.0.2.12"}), asked.output  # the gateway left out
    assert got["ok.evil.test:2q"][0] == 1 and got["ok.evil.test:big"][0] is None, asked.output  # FORMERR, dropped
    assert got["ok.evil.test:edns"] == (0, {"192.0.2.10"}), asked.output
    assert reach.stdout.strip().endswith("refused"), reach.output
    # the blocks: 1,120 fresh addresses offered; the container learns up to the bound (2 learned
    # before them), a block past it is refused, and one already learned is answered again
    room = docker_network.MAX_LEARNED - 2
    sizes = [len(got[b][1]) for b in blocks]
    assert sizes == [28] * (room // 28) + [room % 28] + [0] * (40 - room // 28 - 1), sizes
    for b, size in zip(blocks, sizes, strict=True):  # answered (NOERROR) or REFUSED, only its own addresses
        assert got[b][0] == (0 if size else 5) and got[b][1] <= set(blocks[b]), (b, got[b])
    assert got["b0.evil.test"] == (0, set(blocks["b0.evil.test"])), asked.output
    # what the container may reach is exactly what it was answered: no gateway, peer, metadata
    elements = {e for item in allowed["nftables"] if "set" in item for e in item["set"].get("elem", [])}
    answered = {a for code, addrs in got.values() for a in addrs}
    assert elements == answered and len(elements) == docker_network.MAX_LEARNED, len(elements)
    assert not {gateway, peer, "169.254.169.254", "127.0.0.1"} & elements
    assert _answers(other.stdout)["ok.evil.test"] == (0, {"192.0.2.10"}), other.output  # the victim is answered


@pytest.mark.slow
def test_an_honest_agents_parallel_look_ups_outlast_the_limits(monkeypatch):
    """Look-ups at a time (a package manager's parallel downloads) of names under an allowed
    wildcard, each answered by the harness: every one succeeds. 16 at a time, 320 names: at 50
    queries a second after a burst of 100, the rate limit dropped queries in the container's
    namespace, which fails the sender's ``send()`` (EPERM), and glibc's resolver gives up at once
    instead of retrying: 94 of 320 look-ups failed within 6 s (now the bound is above what
    honest look-ups ask). 64 at a time, 640 names: with 8 queries held per container the rest
    were dropped, and glibc's one retry was dropped too while the other 63 kept the queue full:
    45 failed (now 64 are held, waiting their turn)."""
    zone = ZoneServer({f"pkg{i}.pkg.test": "192.0.2.20" for i in range(1, 641)})
    monkeypatch.setenv("LANCEBENCH_ALLOWLIST_DNS", zone.address)

    def look_ups(parallel: int, count: int) -> str:
        return (f"seq {count} | xargs -P {parallel} -I{{}} sh -c 'getent ahosts pkg{{}}.pkg.test >/dev/null "
                "&& echo ok || echo FAIL' | sort | uniq -c")

    async def go():
        [box] = _boxes(1, ("*.pkg.test",))
        await box.start()
        try:
            sixteen = await box.exec(look_ups(16, 320))
            await asyncio.sleep(2)  # the look-up budget's burst again
            return sixteen, await box.exec(look_ups(64, 640))
        finally:
            await box.stop()

    sixteen, sixty_four = asyncio.run(go())
    assert sixteen.stdout.split() == ["320", "ok"], sixteen.output
    assert sixty_four.stdout.split() == ["640", "ok"], sixty_four.output


# 50 queries a second for names under silent.test (the test DNS server never answers them: the
# harness's look-up of each takes its whole timeout), each a new name, for SECONDS
_STALL = r"""perl -MSocket -e '
socket(my $s, PF_INET, SOCK_DGRAM, 0) or die; my $to = sockaddr_in(53, inet_aton("192.0.2.53"));
my $n = 0; my $end = time + SECONDS;
while (time < $end) { my $l = "x$n"; my $q = pack("n6", $n & 0xffff, 0x0100, 1, 0, 0, 0) . "\x05stall"
  . pack("C", length $l) . "$l\x06silent\x04test\x00\x00\x01\x00\x01"; send($s, $q, 0, $to) and $n++;
  select(undef, undef, undef, 0.02) }
print "sent=$n\n";'"""


@pytest.mark.slow
def test_names_that_never_resolve_starve_no_other_container(monkeypatch):
    """Four containers each keep as many queries as the resolver holds for one container waiting
    on names whose DNS never answers. The resolver's 32 shared workers were all taken, and a fifth
    container's look-up waited 9 s. Each held query now has its own thread (still at most
    ``WORKERS_PER_CONTAINER`` per container): the fifth container's five look-ups each succeed
    within one 2-second try of its resolver. Then a new container gets a stalling one's address
    while that one's queries are still held: the held queries were counted by address, and the
    new container's look-ups were dropped (found when the next test's container failed); they
    are counted by container now."""
    zone = ZoneServer({f"n{i}.fine.test": "192.0.2.30" for i in range(5)}, silent=".silent.test")
    monkeypatch.setenv("LANCEBENCH_ALLOWLIST_DNS", zone.address)
    honest = ("for i in 0 1 2 3 4; do RES_OPTIONS='timeout:2 attempts:1' getent ahostsv4 n$i.fine.test "
              ">/dev/null && echo ok || echo FAIL; sleep 0.5; done")

    async def go():
        boxes = _boxes(5, ("*.silent.test", "*.fine.test"))
        await asyncio.gather(*(b.start() for b in boxes))
        try:
            stalls = [asyncio.ensure_future(b.exec(_STALL.replace("SECONDS", "12"))) for b in boxes[:4]]
            await asyncio.sleep(3)  # every stalling container has its queries held
            held = sum(t.name.startswith("lancebench-dnsq-") for t in threading.enumerate())
            answered = await boxes[4].exec(honest)
            stalled = [await s for s in stalls]
            # a new container on a stalling one's address, while that one's queries are still held
            await boxes[0].exec(_STALL.replace("SECONDS", "1"))
            address = _net(boxes[0])["IPAddress"]
            await boxes[0].stop()
            heirs = await _heir_at(address)  # the engine's next address may go to another test's container
            try:
                inherited = _net(heirs[-1])["IPAddress"], await heirs[-1].exec(honest)
            finally:
                await asyncio.gather(*(h.stop() for h in heirs))
            return answered, held, stalled, address, inherited
        finally:
            await asyncio.gather(*(b.stop() for b in boxes))

    answered, held, stalls, address, (heir_address, heir) = asyncio.run(go())
    assert all(int(s.stdout.split("=")[1]) > 400 for s in stalls), [s.output for s in stalls]
    assert held == 4 * dns_filter.WORKERS_PER_CONTAINER, held  # the stall was on, and bounded
    assert answered.stdout.split() == ["ok"] * 5, answered.output
    # the engine gave the stopped container's address to the next one (the case under test)...
    assert heir_address == address, (heir_address, address)
    assert heir.stdout.split() == ["ok"] * 5, heir.output  # ...which was answered, not counted as it
    # the held look-ups end with the resolver's timeout (two 5-s tries): no thread is left behind
    # (nor counted by the next test in this process)
    for _ in range(150):
        if not any(t.name.startswith("lancebench-dnsq-") for t in threading.enumerate()):
            break
        time.sleep(0.1)
    assert not any(t.name.startswith("lancebench-dnsq-") for t in threading.enumerate())


@pytest.mark.slow
def test_dns_attacks_through_the_cli(monkeypatch, shared, jobs):
    """Two trials at once of a task allowing ``*.evil.test`` (a zone the attacker chose: one name
    points at the harness's host, one at cloud metadata), each agent flooding the resolver from
    16 sockets, asking for those names and probing the host's server, then doing the task
    (``dns_attacks.sh``, through ``lancebench run --backend docker -k 2 -n 2``). Both trials are
    recorded and resolved (never invalid: the agent's doing), the names are refused, the host's
    server refused, and the allowed name reached."""

    allowed = BridgeHost(f"{JOB}-cli")
    gateway = allowed.gateway
    try:
        allowed.serve_http("server-a")
        zone = ZoneServer({"ok.evil.test": allowed.ip, "gw.evil.test": gateway, "meta.evil.test": "169.254.169.254"})
        task = shared / "net-tools"
        shutil.copytree(FIXTURES / "harbor" / "net-tools", task)
        toml = task / "task.toml"
        toml.write_text(toml.read_text().replace("allowed_hosts = []", 'allowed_hosts = ["*.evil.test"]'))
        with socket.create_server((gateway, 0)) as host_server:  # a service of the harness's host
            with (task / "instruction.md").open("a") as f:
                f.write(f"\nGATEWAY={gateway}:{host_server.getsockname()[1]}\nALLOWED=ok.evil.test:8080\n")
            lb("run", "-p", task, "-a", f"script:{Path(__file__).resolve().parent / 'agents' / 'dns_attacks.sh'}",
               "-o", jobs, "--backend", "docker", "-k", "2", "-n", "2", check=True, timeout=900,
               env={"LANCEBENCH_ALLOWLIST_DNS": zone.address})
    finally:
        allowed.close()
    rs = results(job_dir(jobs))
    assert [r["status"] for r in rs] == ["resolved", "resolved"], rs
    for r in rs:
        patch = (job_dir(jobs) / "trials" / r["trial_id"] / "patch.diff").read_text()
        net = dict(line[1:].split("=", 1) for line in patch.splitlines()
                   if line.startswith("+") and not line.startswith("+++") and "=" in line)
        assert int(net["flood"]) > 10_000, net  # the flood ran
        assert (net["gw"], net["meta"], net["host"], net["allowed"]) == ("", "", "refused", "reached"), net


# garbage to the filtering resolver's own address and port, from 8 sockets, for SECONDS
_RAW_FLOOD = r"""perl -MSocket -e '
my @s; for (1..8) { socket(my $s, PF_INET, SOCK_DGRAM, 0) or die; push @s, $s }
my $to = sockaddr_in(PORT, inet_aton("GATEWAY")); my $n = 0; my $end = time + SECONDS;
while (time < $end) { for my $s (@s) { send($s, "x" x 40, 0, $to) and $n++ } }
print "sent=$n\n";'"""


def test_containers_with_the_whole_network_cannot_flood_the_resolver():
    """Two containers with the whole network (no allowlist, so no rate limit in their namespace)
    on the same bridge send to the resolver's own address and port from 8 sockets each (found
    by scanning the gateway's UDP ports). Every datagram was queued and read by the resolver:
    the harness spent a third of a core and an allowlisted container lost 3 of 40 queries. The
    kernel now queues only datagrams from registered containers (a BPF socket filter): it drops
    the flood (the socket's drop counter in ``/proc/net/udp``) and the allowlisted container's 20
    queries are each answered within 2 s."""
    query = r"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x05exfil\x07example\x00\x00\x01\x00\x01"
    ask = (f"printf '{query}' > /tmp/q; ok=0; for i in $(seq 20); do exec 3<>/dev/udp/192.0.2.53/53; cat /tmp/q >&3; "
           "r=$(timeout 2 head -c 2 <&3 | od -An -tx1); exec 3<&-; [ \"$r\" = ' 12 34' ] && ok=$((ok+1)); "
           "sleep 0.1; done; echo ok=$ok")

    async def go():
        [allowed] = _boxes(1, ("192.0.2.1",))
        public = [DockerSandbox(SandboxSpec(image="debian:bookworm-slim", network=True,
                                            labels={"job": JOB, "trial": f"public{i}"})) for i in range(2)]
        await asyncio.gather(allowed.start(), *(p.start() for p in public))
        try:
            gateway = _net(allowed)["Gateway"]
            flood = (_RAW_FLOOD.replace("PORT", str(dns_filter.filters[gateway].port))
                     .replace("GATEWAY", gateway).replace("SECONDS", "8"))
            inode = os.fstat(dns_filter.filters[gateway].sock.fileno()).st_ino
            before = _socket_drops(inode)
            floods = [asyncio.ensure_future(p.exec(flood)) for p in public]
            await asyncio.sleep(1)
            answered, sent = await allowed.exec(ask), [await f for f in floods]
            return answered, sent, _socket_drops(inode) - before
        finally:
            await asyncio.gather(allowed.stop(), *(p.stop() for p in public))

    answered, floods, dropped = asyncio.run(go())
    sent = [int(f.stdout.split("=")[1]) for f in floods]
    assert min(sent) > 100_000, [f.output for f in floods]
    assert dropped >= 0.95 * sum(sent), (dropped, sent)  # the kernel dropped the flood; the harness never read it
    assert answered.stdout.strip() == "ok=20", answered.output


def _socket_drops(inode: int) -> int:
    """The kernel's count of datagrams dropped for the UDP socket with ``inode`` (its last column
    in ``/proc/net/udp``)."""
    for line in Path("/proc/net/udp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[9]) == inode:
            return int(fields[-1])
    raise AssertionError(f"no UDP socket with inode {inode}")


# a new name under many.test in each query, as fast as the container lets them out, for SECONDS
_UNIQUE = r"""perl -MSocket -e '
socket(my $s, PF_INET, SOCK_DGRAM, 0) or die; my $to = sockaddr_in(53, inet_aton("192.0.2.53"));
my $n = 0; my $end = time + SECONDS;
while (time < $end) { my $l = "u$n"; my $q = pack("n6", $n & 0xffff, 0x0100, 1, 0, 0, 0)
  . pack("C", length $l) . "$l\x04many\x04test\x00\x00\x01\x00\x01"; send($s, $q, 0, $to); $n++ }
print "sent=$n\n";'"""


def test_unique_names_cannot_make_the_harness_flood_its_resolver(monkeypatch):
    """``*.many.test`` allowed: the agent asks for a new name under it in every query, as fast as
    its rate limit lets them out (no cache helps). Each was looked up by the harness's resolver
    (two queries, A and AAAA): 400 a second from one container, a share of the quota a cloud
    resolver gives the harness's own look-ups. Now each container has a look-up budget
    (``LOOKUP_RATE`` a second after ``LOOKUP_BURST``; the rest wait, held, or are dropped past
    the queries held): what reached the test's DNS server stays within it, and a name asked
    after the flood is answered."""
    zone = ZoneServer({"after.many.test": "192.0.2.40"})
    monkeypatch.setenv("LANCEBENCH_ALLOWLIST_DNS", zone.address)
    seconds = 5

    async def go():
        [box] = _boxes(1, ("*.many.test",))
        await box.start()
        try:
            flood = await box.exec(_UNIQUE.replace("SECONDS", str(seconds)))
            upstream = len(zone.asked)  # the harness's look-ups so far (A and AAAA each)
            await asyncio.sleep(2)
            return flood, upstream, await box.exec(" ".join([_ASK, "after.many.test"]))
        finally:
            await box.stop()

    flood, upstream, after = asyncio.run(go())
    assert int(flood.stdout.split("=")[1]) > 10_000, flood.output
    budget = docker_network.LOOKUP_BURST + docker_network.LOOKUP_RATE * (seconds + 1)  # 1 s of slack
    assert 2 * docker_network.LOOKUP_BURST <= upstream <= 2 * budget, upstream
    assert _answers(after.stdout)["after.many.test"] == (0, {"192.0.2.40"}), after.output


def test_a_free_bridge_address_learned_by_name_closes_when_a_trial_gets_it(monkeypatch):
    """The attacker's zone (``*.evil.test`` allowed) points a name at a free address of the
    bridge (here the one a stopped container just left); the next trial's container is given
    that address by the engine. The attacker kept it and reached the new trial; now the address
    leaves the attacker's set when the new container starts, and the name is refused after."""
    zone = ZoneServer({})
    monkeypatch.setenv("LANCEBENCH_ALLOWLIST_DNS", zone.address)

    async def go():
        attacker, leaving = _boxes(2, ("*.evil.test",))
        await asyncio.gather(attacker.start(), leaving.start())
        try:
            free = _net(leaving)["IPAddress"]
            await leaving.stop()
            zone.zone["next.evil.test"] = [free]
            before = await attacker.exec(" ".join([_ASK, "next.evil.test"]))
            learned = _nft_json(attacker, "set", "inet", docker_network.TABLE, "allow4")
            [heir] = _boxes(1, ("192.0.2.1",))
            await heir.start()
            try:
                given = _net(heir)["IPAddress"]
                kept = _nft_json(attacker, "set", "inet", docker_network.TABLE, "allow4")
                after = await attacker.exec(" ".join([_ASK, "next.evil.test"]))
            finally:
                await heir.stop()
            return free, given, before, learned, kept, after
        finally:
            await asyncio.gather(attacker.stop(), leaving.stop())

    free, given, before, learned, kept, after = asyncio.run(go())

    def elements(listing: dict) -> set[str]:
        return {e for item in listing["nftables"] if "set" in item for e in item["set"].get("elem", [])}

    assert _answers(before.stdout)["next.evil.test"] == (0, {free}), before.output  # free: answered, opened
    assert free in elements(learned), learned
    assert given == free, (given, free)  # the engine gave the freed address to the next container (the case)
    assert free not in elements(kept), kept  # ...and the attacker lost it
    assert _answers(after.stdout)["next.evil.test"] == (5, set()), after.output


def test_a_name_opens_no_container_the_resolver_does_not_serve(monkeypatch):
    """The attacker's zone points a name at a lancebench container the resolver does not serve:
    a trial with the whole network (or one of another job running at once, in another harness
    process). It was answered and opened (only the resolver's own containers were refused); now
    every container lancebench runs on the engine is refused, asked of the engine by label."""
    zone = ZoneServer({})
    monkeypatch.setenv("LANCEBENCH_ALLOWLIST_DNS", zone.address)

    async def go():
        [attacker] = _boxes(1, ("*.evil.test",))
        public = DockerSandbox(SandboxSpec(image="debian:bookworm-slim", network=True,
                                           labels={"job": f"{JOB}-other", "trial": "public"}))
        await asyncio.gather(attacker.start(), public.start())
        try:
            zone.zone["other.evil.test"] = [next(iter(_net(public)["Networks"].values()))["IPAddress"]]
            asked = await attacker.exec(" ".join([_ASK, "other.evil.test"]))
            return asked, _nft_json(attacker, "set", "inet", docker_network.TABLE, "allow4")
        finally:
            await asyncio.gather(attacker.stop(), public.stop())

    asked, allowed = asyncio.run(go())
    assert _answers(asked.stdout)["other.evil.test"] == (5, set()), asked.output
    assert not any("elem" in item.get("set", {}) for item in allowed["nftables"]), allowed  # nothing opened

"""The filtering resolver of the network allowlist (:mod:`lancebench.sandbox.docker_network`):
one UDP socket per bridge gateway address, in the harness, to which each allowlisted
container's DNS is redirected. It answers only the names the container's list allows, resolving
them on the host and widening the container's rules (``client.add``) *before* it answers; every
other name is refused. Bounds, each found by an attack pass (docs/security.md): the kernel
queues only the registered containers' datagrams (a BPF socket filter on the source address);
each container has at most ``PENDING_PER_CONTAINER`` queries held and ``WORKERS_PER_CONTAINER``
threads answering them; look-ups of allowed names follow the container's own budget
(``client.look_up_delay``).

Names are resolved with the host's resolver (``getaddrinfo``: ``/etc/hosts``, then DNS), or, when
``LANCEBENCH_ALLOWLIST_DNS`` is ``IP`` or ``IP:PORT``, by asking that DNS server (dnspython).
"""

from __future__ import annotations

import collections
import ctypes
import ipaddress
import os
import socket
import struct
import threading
import time
from typing import Protocol

from lancebench.errors import SandboxError

_DNS_TTL = 60  # seconds: how long a container may cache an answer of the filtering resolver
# Queries of one container the filtering resolver holds at once (being answered or waiting); the
# rest are dropped, as a busy resolver drops them (clients retry, after 5 s by glibc's default).
# Without it a flood from one container queued without bound in the harness and starved every
# other container's DNS. 64: with 8, an honest agent's 64 parallel look-ups lost 45 of 640 names
# (glibc tries twice; both were dropped while the other 63 kept the queue full).
PENDING_PER_CONTAINER = 64
# Threads answering one container's queries at once (each its own: with a shared pool of 32, four
# containers asking for names whose DNS never answers held every worker, and a fifth container's
# look-up waited 9 s).
WORKERS_PER_CONTAINER = 8
# The resolver's socket buffer (bytes, SO_RCVBUFFORCE as root): the bursts of several containers
# at once (a small query takes about 768 bytes of it) fit, so none is lost there.
_RCVBUF = 4 << 20


class Client(Protocol):
    """What the resolver needs of a container's allowlist (:class:`~lancebench.sandbox.docker_network.Client`)."""

    def allows_name(self, name: str) -> bool: ...

    def look_up_delay(self) -> float: ...

    def add(self, addresses: list[str], never: set[str]) -> list[str]: ...

    def forget(self, address: str) -> None: ...


def resolve(name: str) -> list[str]:
    """The addresses (IPv4 and IPv6 text) of host name ``name`` as the harness sees them; [] when
    it does not resolve. Uses ``LANCEBENCH_ALLOWLIST_DNS`` (``IP`` or ``IP:PORT``) when set, else
    the host's resolver."""
    server = os.environ.get("LANCEBENCH_ALLOWLIST_DNS", "").strip()
    if not server:
        try:
            infos = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError):
            return []
        return sorted({str(info[4][0]) for info in infos if info[0] in (socket.AF_INET, socket.AF_INET6)})
    import dns.exception  # noqa: PLC0415 (optional: only with LANCEBENCH_ALLOWLIST_DNS)
    import dns.resolver  # noqa: PLC0415

    address, port = server, 53
    if server.count(":") == 1:
        address, _, port_text = server.partition(":")
        port = int(port_text)
    resolver = dns.resolver.Resolver(configure=False)
    resolver.nameservers, resolver.port, resolver.lifetime = [address.strip("[]")], port, 5.0
    found: set[str] = set()
    for rdtype in ("A", "AAAA"):
        try:
            found.update(r.to_text() for r in resolver.resolve(name, rdtype, search=False))
        except dns.exception.DNSException:
            continue
    return sorted(found)


class DnsFilter:
    """The filtering resolver on one bridge gateway address: a UDP socket answering the containers
    registered with it (by source address), see the module docstring."""

    def __init__(self, gateway: str):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self.sock.bind((gateway, 0))
        except OSError as exc:
            self.sock.close()
            raise SandboxError(f"could not listen on the bridge gateway {gateway} for the allowlist's DNS: "
                               f"{exc}") from exc
        self.sock.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_RCVBUFFORCE", 33), _RCVBUF)
        self.port = self.sock.getsockname()[1]
        self.clients: dict[str, Client] = {}
        # container -> its queries waiting, and its threads answering them; by container, not
        # address: a new container reusing a stopped one's address started with its queries still
        # held (those of names that never resolve), and its own were dropped for seconds
        self._queues: dict[Client, collections.deque[tuple[bytes, tuple[str, int]]]] = {}
        self._workers: dict[Client, int] = {}
        self._pending_lock = threading.Lock()
        self._filtered = False
        with self._pending_lock:
            self._admit()
        threading.Thread(target=self._serve, name=f"lancebench-dns-{gateway}", daemon=True).start()

    def register(self, address: str, client: Client, previous: str | None) -> None:
        with self._pending_lock:
            if previous is not None and self.clients.get(previous) is client:
                del self.clients[previous]
            self.clients[address] = client
            self._admit()

    def unregister(self, address: str, client: Client) -> None:
        with self._pending_lock:
            if self.clients.get(address) is client:
                del self.clients[address]
                self._admit()
            self._queues.pop(client, None)  # its waiting queries are dropped; its threads end

    def others(self, client: Client) -> list[Client]:
        """The registered containers other than ``client``."""
        with self._pending_lock:
            return [c for c in self.clients.values() if c is not client]

    def _admit(self) -> None:
        """Let the kernel queue only datagrams from the registered containers (a classic BPF
        socket filter on the source address). A container with the whole network on the same
        bridge can send to this port without any rate limit: two flooding it cost the harness a
        third of a core and lost 3 of 40 queries of an allowlisted container. Past 255 clients
        (the filter's jump range) every source is queued, as without it."""
        if len(self.clients) > 255:
            if self._filtered:
                self.sock.setsockopt(socket.SOL_SOCKET, _SO_DETACH_FILTER, 0)
            self._filtered = False
            return
        program = _source_filter(sorted(self.clients))
        code = ctypes.create_string_buffer(program, len(program))
        fprog = struct.pack("HL", len(program) // 8, ctypes.addressof(code))
        self.sock.setsockopt(socket.SOL_SOCKET, _SO_ATTACH_FILTER, fprog)
        self._filtered = True

    def _serve(self) -> None:
        while True:
            try:
                data, peer = self.sock.recvfrom(4096)
            except OSError:
                return
            client = self.clients.get(peer[0])
            if client is not None:
                self._hold(client, data, peer)

    def _hold(self, client: Client, data: bytes, peer: tuple[str, int]) -> None:
        """Queue one query of ``client`` (dropped when it has ``PENDING_PER_CONTAINER`` held) and
        start a thread for it while it has fewer than ``WORKERS_PER_CONTAINER``."""
        with self._pending_lock:
            queue, workers = self._queues.setdefault(client, collections.deque()), self._workers.get(client, 0)
            if len(queue) + workers >= PENDING_PER_CONTAINER:
                return
            queue.append((data, peer))
            if workers >= WORKERS_PER_CONTAINER:
                return
            self._workers[client] = workers + 1
        threading.Thread(target=self._work, args=(client,), daemon=True, name=f"lancebench-dnsq-{peer[0]}").start()

    def _work(self, client: Client) -> None:
        """Answer ``client``'s queued queries until none is left."""
        while True:
            with self._pending_lock:
                queue = self._queues.get(client)
                if not queue:
                    self._queues.pop(client, None)
                    workers = self._workers.pop(client, 1) - 1
                    if workers:
                        self._workers[client] = workers
                    return
                data, peer = queue.popleft()
            self._reply(client, data, peer)

    def _reply(self, client: Client, data: bytes, peer) -> None:
        try:
            answer = _answer(client, data, never={self.sock.getsockname()[0], *self.clients})
            if answer is not None and self.clients.get(peer[0]) is client:  # not to a new owner of the address
                self.sock.sendto(answer, peer)
        except (SandboxError, OSError):
            pass  # rules not widened (the name stays unreachable) or the reply not sent: no answer


def _sandbox_addresses() -> set[str]:
    """The bridge addresses of every container lancebench runs on this engine (label
    ``lancebench.owner``): those of any harness process (another job at once) and of trials
    without an allowlist, which the resolver does not know. Raises ``OSError`` (the engine did
    not answer: the name gets no answer)."""
    from lancebench.sandbox import docker_engine  # noqa: PLC0415 (the docker SDK, only when needed)

    listed = docker_engine.client().api.containers(filters={"label": docker_engine.LABEL_OWNER})
    return {net.get("IPAddress") for c in listed
            for net in ((c.get("NetworkSettings") or {}).get("Networks") or {}).values() if net.get("IPAddress")}


_SO_ATTACH_FILTER, _SO_DETACH_FILTER = 26, 27  # <asm-generic/socket.h>


def _source_filter(sources: list[str]) -> bytes:
    """A classic BPF program (``struct sock_filter`` array, <linux/filter.h>) accepting IPv4
    datagrams whose source is one of ``sources`` (at most 255) and dropping the rest."""
    n = len(sources)
    program = [(0x20, 0, 0, 0xFFF0000C)]  # BPF_LD|BPF_W|BPF_ABS of SKF_NET_OFF + 12: the source
    program += [(0x15, n - i, 0, int(ipaddress.IPv4Address(a))) for i, a in enumerate(sources)]  # BPF_JEQ
    program += [(0x06, 0, 0, 0), (0x06, 0, 0, 0xFFFFFFFF)]  # BPF_RET: drop, accept
    return b"".join(struct.pack("HBBI", *insn) for insn in program)


def _answer(client: Client, data: bytes, never: set[str]) -> bytes | None:
    """The reply to DNS query ``data`` from ``client``'s container (None: not a query); addresses
    in ``never`` are neither answered nor opened (see :meth:`Client.add`)."""
    import dns.exception  # noqa: PLC0415 (a dependency of the docker extra)
    import dns.message  # noqa: PLC0415
    import dns.rcode  # noqa: PLC0415
    import dns.rdatatype  # noqa: PLC0415
    import dns.rrset  # noqa: PLC0415

    try:
        query = dns.message.from_wire(data)
    except dns.exception.DNSException:
        return None
    response = dns.message.make_response(query)
    if len(query.question) != 1:
        response.set_rcode(dns.rcode.FORMERR)
        return response.to_wire()
    question = query.question[0]
    name = question.name.to_text(omit_final_dot=True).lower()
    # a backslash is an escaped byte in a label (a dot, a space, ...): x\.evil.test is one label
    # "x.evil" under "test", not a name under "evil.test", though its text ends like one
    if "\\" in name or not client.allows_name(name):
        response.set_rcode(dns.rcode.REFUSED)
        return response.to_wire()
    time.sleep(client.look_up_delay())  # the container's look-up budget
    found = resolve(name)
    if not found:
        response.set_rcode(dns.rcode.NXDOMAIN)
        return response.to_wire()
    if any(ipaddress.ip_address(a).is_private for a in found):
        never = never | _sandbox_addresses()
    addresses = client.add(found, never)  # before the answer: the container may connect at once
    if not addresses:
        response.set_rcode(dns.rcode.REFUSED)
        return response.to_wire()
    family = {dns.rdatatype.A: 4, dns.rdatatype.AAAA: 6}.get(question.rdtype)
    chosen = [a for a in addresses if ipaddress.ip_address(a).version == family]
    if chosen:
        response.answer.append(dns.rrset.from_text_list(question.name, _DNS_TTL, "IN", question.rdtype, chosen))
    return response.to_wire()


filters: dict[str, DnsFilter] = {}
_filters_lock = threading.Lock()


def on_gateway(gateway: str) -> DnsFilter:
    """The filtering resolver on bridge gateway ``gateway`` (started on first use). Raises
    :class:`SandboxError` when it cannot listen there."""
    with _filters_lock:
        if gateway not in filters:
            filters[gateway] = DnsFilter(gateway)
        return filters[gateway]


def serving() -> list[DnsFilter]:
    """The filtering resolvers this process runs."""
    with _filters_lock:
        return list(filters.values())

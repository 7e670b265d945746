"""Network allowlists for docker containers (``network_mode = "allowlist"``): the container
reaches the listed hosts, on every port, and nothing else.

How it is enforced. The container runs on the engine's default bridge with every capability
dropped. Each time it starts (and again when a multi-step task's next step changes the policy),
the harness, root on the engine's machine, installs an nftables table in the container's network
namespace with ``nsenter --net=SANDBOXKEY`` (:meth:`ContainerFilter.apply`; the namespace file
the engine names, never a pid that could have been reused, and never the harness's own):

- output is dropped (TCP answered with a reset, the rest with ICMP "administratively
  prohibited") except loopback, replies of allowed connections, and destinations in two address
  sets (IPv4, IPv6); input is dropped except loopback and replies;
- IP and CIDR entries are in the sets from the start; host-name entries are resolved on the host
  at that moment and their addresses added;
- DNS over UDP (to any server) is redirected to a filtering resolver in the harness
  (:mod:`lancebench.sandbox.dns_filter`, on the bridge's gateway address), at most ``DNS_RATE``
  queries a second per container (the rest are dropped in the container's namespace). It answers only names on the list
  (``api.example.com`` exactly, ``*.example.com`` for any name ending in ``.example.com``,
  not ``example.com`` itself), resolving them on the host and adding the addresses to the sets
  *before* it answers; every other name is refused, so DNS is no way out. DNS over TCP is rejected
  like any connection to an unlisted address. A name never opens the host (the bridge's gateway),
  another container of the harness, loopback, link-local (cloud metadata), multicast or
  unspecified addresses, and one container learns at most ``MAX_LEARNED`` addresses. The kernel
  queues only the registered containers' datagrams for the resolver (a BPF socket filter).

A process in the container cannot lift the rules: changing netfilter tables or routes needs
CAP_NET_ADMIN over the namespace, which belongs to the host's user namespace; the container never
has it, nor CAP_NET_RAW (:data:`lancebench.sandbox.docker.CAPABILITIES`), root included.

Known limits (docs/docker.md): an address learned stays allowed for the container's life (a name
that moves keeps its old address too); filtering is by address, so other sites sharing an allowed
address (a CDN) are reachable as well; TLS SNI and HTTP Host are not inspected.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import os
import shutil
import subprocess
import threading
import time

from lancebench.errors import SandboxError
from lancebench.sandbox import dns_filter
from lancebench.sandbox.dns_filter import resolve

TABLE = "lancebench"
# DNS queries a second one container may send to the filtering resolver (nftables ``limit``, in
# the container's own namespace, so the bound is per container and costs the harness nothing);
# beyond a burst of DNS_BURST the excess is dropped before it leaves the container. Without it, a
# flood from one container (50,000 queries a second from perl) filled the resolver's socket
# buffer, and the kernel dropped the queries of every other container on that bridge.
# A query dropped there is no lost packet to the sender: its send() fails (EPERM; ENOBUFS on the
# interface's egress, since glibc asks for errors with IP_RECVERR), and glibc's resolver then
# gives up at once instead of retrying after its timeout. So the bound must stay above what an
# honest agent asks: at 50 a second after 100, 16 parallel look-ups (a package manager's
# downloads) lost 94 of 320 names within 6 s. The resolver answers at most
# dns_filter.WORKERS_PER_CONTAINER at once anyway (about 20 ms each); the rate only bounds what a
# flood makes the harness parse.
DNS_RATE = 200
DNS_BURST = 400
# Addresses one container may learn through allowed names (beyond those its exact names have when
# it starts); past it, a name is answered with the addresses it already has, or refused. Each new
# address costs the harness an ``nsenter`` + ``nft`` (about 10 ms of CPU): a wildcard whose names
# resolve to addresses the agent picks (ip-10-9-1-2.example) made 42 of them a second, half a core.
MAX_LEARNED = 1024
# Allowed names one container may have the harness look up, a second after a burst (each is one
# or two queries of the host's resolver, for a name the agent may make unique, so no cache helps);
# the rest wait their turn, held (PENDING_PER_CONTAINER bounds them; dropping them instead lost
# 7 of an honest agent's 320 parallel look-ups, when glibc's one retry was dropped too). Without
# it a container at DNS_RATE made the host's resolver ask 400 names a second, which a cloud
# resolver's quota (1,024 packets a second per interface on AWS) shares with the harness's own
# look-ups (the model's API).
LOOKUP_RATE = 50
LOOKUP_BURST = 100
# Never learned through a name: they are the container itself or the host, not the network.
_NEVER = tuple(ipaddress.ip_network(n) for n in (
    "0.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "224.0.0.0/3", "::/128", "::1/128", "fe80::/10", "ff00::/8",
    "::ffff:0:0/96"))


def enforce_problem() -> str | None:
    """Why an allowlist cannot be enforced on this machine (one line), or None when it can: the
    harness must be root, with ``nsenter`` and ``nft``, on the same machine as the engine, and
    have dnspython (the filtering resolver's parser: ``pip install 'lancebench[docker]'``)."""
    host = os.environ.get("DOCKER_HOST", "")
    if host and not host.startswith("unix://"):
        return f"the engine is remote (DOCKER_HOST={host}); its containers' namespaces are out of reach"
    if os.geteuid() != 0:
        return "lancebench is not running as root, so it cannot install the container's firewall rules"
    missing = [tool for tool in ("nsenter", "nft") if shutil.which(tool) is None]
    if missing:
        return f"{' and '.join(missing)} not found (apt-get install util-linux nftables)"
    if importlib.util.find_spec("dns") is None:
        return "dnspython is missing, so listed names cannot be resolved (pip install 'lancebench[docker]')"
    return None


def _nft(netns: str, script: str) -> None:
    """Run ``nft -f -`` with ``script`` in the network namespace file ``netns`` (the container's
    ``SandboxKey``). Raises :class:`SandboxError` when it is missing (an engine in a VM) or is the
    harness's own namespace."""
    try:
        own, target = os.stat("/proc/self/ns/net"), os.stat(netns)
    except OSError as exc:
        raise SandboxError(f"the container's network namespace {netns} is not on this machine: {exc}") from exc
    if (own.st_dev, own.st_ino) == (target.st_dev, target.st_ino):
        raise SandboxError(f"{netns} is the harness's own network namespace; refusing to filter it")
    try:
        res = subprocess.run(["nsenter", f"--net={netns}", "nft", "-f", "-"], input=script.encode(),
                             capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxError(f"could not install the network allowlist: {exc}") from exc
    if res.returncode != 0:
        raise SandboxError(f"could not install the network allowlist (nft exit {res.returncode}): "
                           f"{res.stderr.decode(errors='replace').strip()[:500]}")


class ContainerFilter:
    """The allowlist of one container: ``entries`` as :func:`lancebench.task.harbor.check_hosts`
    leaves them (host names, ``*.suffix``, IP addresses, CIDR ranges). Raises ``ValueError`` for an
    entry that is none of these."""

    def __init__(self, entries: tuple[str, ...]):
        self.entries = entries
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        self.names: set[str] = set()
        self.suffixes: list[str] = []
        for entry in entries:
            if entry.startswith("*."):
                self.suffixes.append(entry[1:])  # ".example.com"
                continue
            try:
                self.networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                if "/" in entry or ":" in entry:
                    raise ValueError(f"allowed_hosts entry {entry!r} is not a valid address or range") from None
                self.names.add(entry)
        self.learned: set[str] = set()  # addresses of allowed names (kept across restarts)
        self.netns: str | None = None
        self.address: str | None = None
        self._lock = threading.Lock()
        self._tokens, self._refilled = float(LOOKUP_BURST), time.monotonic()

    def look_up_delay(self) -> float:
        """Take one look-up of an allowed name from the container's budget (``LOOKUP_RATE`` a
        second after ``LOOKUP_BURST``, a token bucket); returns the seconds to wait before it
        (0 while the budget lasts; the token may be owed, by at most the queries held)."""
        with self._lock:
            now = time.monotonic()
            self._tokens = min(LOOKUP_BURST, self._tokens + (now - self._refilled) * LOOKUP_RATE) - 1
            self._refilled = now
            return max(0.0, -self._tokens / LOOKUP_RATE)

    def allows_name(self, name: str) -> bool:
        """Whether DNS name ``name`` (lower case, no trailing dot) is on the list."""
        return name in self.names or any(name.endswith(s) for s in self.suffixes)

    def apply(self, netns: str, address: str, gateway: str) -> None:
        """Install (or replace) the rules in the network namespace file ``netns`` (the container's
        ``NetworkSettings.SandboxKey``), whose bridge address is ``address`` and gateway
        ``gateway``. Raises :class:`SandboxError`."""
        resolver = dns_filter.on_gateway(gateway)
        for name in sorted(self.names):
            self.learned.update(resolve(name))
        with self._lock:
            never = {gateway, *resolver.clients} - {address}
            self.learned = {a for a in self.learned if _may_learn(a, never)}
            self.netns = netns
            resolver.register(address, self, previous=self.address)
            self.address = address
            _nft(netns, self._ruleset(gateway, resolver.port))
        # an address learned by another container while it was free is now this container's
        for other in resolver.others(self):
            other.forget(address)

    def forget(self, address: str) -> None:
        """Stop allowing ``address``, learned through a name, in the running container: it now
        belongs to another container of the harness (an agent controlling a wildcard's zone had
        its names resolve to free bridge addresses, and reached the trials started on them).
        An address also inside one of the container's own ranges stays."""
        with self._lock:
            if address not in self.learned:
                return
            self.learned.discard(address)
            ip = ipaddress.ip_address(address)
            if self.netns is None or any(ip.version == n.version and ip in n for n in self.networks):
                return
            try:
                _nft(self.netns, f"delete element inet {TABLE} {_set_of(address)} {{ {address} }}\n")
            except SandboxError:
                pass  # its namespace is gone (being stopped)

    def release(self) -> None:
        """Forget the container (its DNS queries are no longer answered)."""
        if self.address is not None:
            for resolver in dns_filter.serving():
                resolver.unregister(self.address, self)
        self.netns = None

    def add(self, addresses: list[str], never: set[str]) -> list[str]:
        """Allow ``addresses`` (just resolved for an allowed name) in the running container, except
        those in ``never`` (the gateway, the harness's other containers), the ranges no name may
        open (loopback, link-local, multicast, unspecified) and those past ``MAX_LEARNED``; returns
        the ones of ``addresses`` the container may now reach. Raises :class:`SandboxError`."""
        with self._lock:
            fit = [a for a in addresses if _may_learn(a, never)]
            new = [a for a in fit if a not in self.learned][:max(0, MAX_LEARNED - len(self.learned))]
            if new and self.netns is not None:
                script = "".join(f"add element inet {TABLE} {_set_of(a)} {{ {a} }}\n" for a in new)
                _nft(self.netns, script)
            self.learned.update(new)
            return [a for a in fit if a in self.learned]

    def _ruleset(self, gateway: str, port: int) -> str:
        v4 = [str(n) for n in self.networks if n.version == 4] + [a for a in self.learned if ":" not in a]
        v6 = [str(n) for n in self.networks if n.version == 6] + [a for a in self.learned if ":" in a]

        def elements(items: list[str]) -> str:
            return f" elements = {{ {', '.join(sorted(set(items)))} }};" if items else ""

        return (f"{_DELETE}table inet {TABLE} {{\n"
                f"  set allow4 {{ type ipv4_addr; flags interval; auto-merge;{elements(v4)} }}\n"
                f"  set allow6 {{ type ipv6_addr; flags interval; auto-merge;{elements(v6)} }}\n"
                f"  chain dns {{ type nat hook output priority -100; policy accept;\n"
                f"    meta nfproto ipv4 udp dport 53 dnat ip to {gateway}:{port}\n  }}\n"
                f"  chain out {{ type filter hook output priority 0; policy drop;\n"
                f"    ip daddr {gateway} udp dport {port} limit rate over {DNS_RATE}/second burst "
                f"{DNS_BURST} packets drop\n"
                f"    oif \"lo\" accept\n    ct state established,related accept\n"
                f"    ip daddr {gateway} udp dport {port} accept\n"
                f"    ip daddr @allow4 accept\n    ip6 daddr @allow6 accept\n"
                f"    meta l4proto tcp reject with tcp reset\n    reject with icmpx type admin-prohibited\n  }}\n"
                f"  chain in {{ type filter hook input priority 0; policy drop;\n"
                f"    iif \"lo\" accept\n    ct state established,related accept\n  }}\n"
                f"}}\n")


def _set_of(address: str) -> str:
    return "allow6" if ":" in address else "allow4"


def _may_learn(address: str, never: set[str]) -> bool:
    """Whether a name may open ``address``: not in ``never`` nor in a range of ``_NEVER``."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return address not in never and not any(ip.version == n.version and ip in n for n in _NEVER)


# remove the table (``add`` first: deleting a missing table is an error)
_DELETE = f"add table inet {TABLE}\ndelete table inet {TABLE}\n"


def lift(netns: str) -> None:
    """Remove the allowlist from the network namespace file ``netns`` (the phase has the whole
    network)."""
    _nft(netns, _DELETE)

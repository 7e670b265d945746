"""The network of a local sandbox's command that has the whole network (``spec.network``): a
namespace of its own with outbound access only, served by slirp4netns (Debian package
``slirp4netns``), never the harness's own namespace.

bubblewrap unshares the network, reports its child's pid on ``--info-fd`` and waits on
``--block-fd``; :class:`OutboundNet` then starts ``slirp4netns --configure --mtu 65520
--disable-host-loopback PID tap0`` (as the sandbox's host uid) against that pid, waits for its
``--ready-fd``, and lets bubblewrap go on. Inside: ``tap0`` at 10.0.2.100, the gateway 10.0.2.2
leads nowhere (``--disable-host-loopback``: the host's 127.0.0.1 is out of reach, so are the
model gateway, local model servers and other trials' servers), DNS at 10.0.2.3 (the
``resolv.conf`` bound in the sandbox, :data:`RESOLV_CONF`). slirp4netns is stopped by pid when
the command ends, and exits by itself when the harness does (``--exit-fd``). Packets to the
networks of the host's bridges (Docker's, where other trials' containers are) are refused in the
namespace by nftables before the command starts (:meth:`OutboundNet._fence`), and a bridge made
(or a network given to a bridge) while the command runs is added within :data:`WATCH_SEC`
(:meth:`OutboundNet._follow`).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import ipaddress
import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable

from lancebench.errors import SandboxError

RESOLV_CONF = "nameserver 10.0.2.3\n"  # slirp4netns's built-in DNS forwarder
READY_TIMEOUT_SEC = 10.0
WATCH_SEC = 0.5  # how often a running public command's fence looks for a bridge made since it started
LOOKUP_SEC = 3.0  # how long after the bridges changed their addresses are looked up (Docker gives one at once)
NS_GET_USERNS = 0xB701  # ioctl: the user namespace owning a namespace (linux/nsfs.h, _IO(0xb7, 0x1))
NO_FENCE = ("nftables is not installed (it fences a public phase's network off the host's bridges, where "
            "Docker's containers are, on the local backend): apt-get install nftables")
MISSING = "slirp4netns is not installed (a public phase's network on the local backend): apt-get install slirp4netns"


@functools.cache
def slirp_missing() -> bool:
    """True when ``slirp4netns`` is not on PATH."""
    return shutil.which("slirp4netns") is None


class OutboundNet:
    """One command's outbound-only network (see the module docstring). Use: pass
    :meth:`bwrap_args` to bubblewrap and :attr:`block_r` to its ``pass_fds``, call
    :meth:`after_spawn` once bubblewrap started, then :meth:`attach` with bubblewrap's info,
    and always :meth:`close`."""

    def __init__(self, uid: int | None, enter: Callable[[], None] | None = None):
        self.uid = uid  # the host uid slirp4netns runs as (None: ours)
        # puts the calling process into the sandbox's cgroups (None: none): slirp4netns does the
        # command's network work (every packet, every DNS query it relays), so its CPU and memory
        # count against the sandbox's limits, not the harness's (attack pass round 9)
        self.enter = enter
        self.block_r, block_w = os.pipe()
        self.block_w: int | None = block_w
        self.proc: asyncio.subprocess.Process | None = None
        self._exit_w: int | None = None
        self._watch: asyncio.Task | None = None  # adds bridges made while the command runs (:meth:`_follow`)

    def bwrap_args(self) -> list[str]:
        """bubblewrap's options: wait on the block pipe until the network is up."""
        return ["--block-fd", str(self.block_r)]

    def after_spawn(self) -> None:
        """Close bubblewrap's end of the block pipe in this process."""
        os.close(self.block_r)

    async def attach(self, info: bytes) -> None:
        """Start slirp4netns against the child pid in ``info`` (bubblewrap's ``{"child-pid": N}``),
        wait until it is ready (at most :data:`READY_TIMEOUT_SEC` seconds), then release
        bubblewrap. Does nothing when ``info`` holds no pid (bubblewrap failed; its own error
        says why). Raises :class:`SandboxError` when slirp4netns is missing or not ready."""
        match = re.search(rb'"child-pid"\s*:\s*(\d+)', info)
        if match is None:
            return
        if slirp_missing():
            raise SandboxError(MISSING)
        pid = int(match.group(1))
        try:
            netns = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
        except OSError:
            return  # bubblewrap already failed; its own error says why
        try:
            userns = fcntl.ioctl(netns, NS_GET_USERNS)  # the owner of the netns, where slirp4netns needs to be
            try:
                if not await _set_up(pid, os.fstat(userns).st_ino):
                    return
                ready_r = await self._start(netns, userns)
                fenced = await self._fence(netns, userns)
                if fenced is not None:
                    self._watch = asyncio.create_task(self._follow(pid, os.dup(netns), os.dup(userns), fenced))
            finally:
                os.close(userns)
        finally:
            os.close(netns)
        try:
            ready = await asyncio.wait_for(asyncio.to_thread(_read_byte, ready_r), READY_TIMEOUT_SEC)
        except TimeoutError:
            ready = b""
        if ready != b"1":
            await self.close()
            assert self.proc is not None and self.proc.stderr is not None
            detail = (await self.proc.stderr.read()).decode(errors="replace")
            raise SandboxError(f"slirp4netns did not set up the sandbox's network: {detail.strip()[-500:]}")
        if self.block_w is not None:
            os.write(self.block_w, b"1")

    async def _start(self, netns: int, userns: int) -> int:
        """Start slirp4netns in the network namespace ``netns`` (an fd), joining the user
        namespace ``userns`` (an fd) that owns it; returns the read end of its ready pipe."""
        ready_r, ready_w = os.pipe()
        exit_r, self._exit_w = os.pipe()
        argv = ["slirp4netns", "--configure", "--mtu", "65520", "--disable-host-loopback", "--ready-fd",
                str(ready_w), "--exit-fd", str(exit_r), f"--userns-path=/proc/self/fd/{userns}",
                "--netns-type=path", f"/proc/self/fd/{netns}", "tap0"]
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE, pass_fds=(ready_w, exit_r, netns, userns),
                preexec_fn=self._slirp_preexec, start_new_session=True)
        except (OSError, subprocess.SubprocessError) as exc:  # SubprocessError: the cgroups could not be entered
            os.close(ready_r)
            raise SandboxError(f"could not start slirp4netns: {exc}") from exc
        finally:
            os.close(ready_w)
            os.close(exit_r)
        return ready_r

    async def _fence(self, netns: int, userns: int) -> tuple[tuple[frozenset[str], str], set[str]] | None:
        """Refuse, in the network namespace ``netns`` (owned by ``userns``; fds), every packet to
        the networks of the host's bridges (:func:`bridge_networks`: Docker's bridges, where other
        trials' containers are, and their gateway, the harness's resolver): slirp4netns connects
        from the host's own namespace, which reaches them all (attack pass round 4: a public
        local trial fetched what a docker trial's container served on ``lancebench-public``, whose
        containers are otherwise kept apart). nftables, run as slirp4netns is (the uid owning
        ``userns``); the sandbox's processes hold no capability there to undo it. Returns what
        :func:`_watched` saw before and the networks fenced (a set :meth:`_follow` adds to), or None
        when nftables is not installed and the host has no bridge. Raises :class:`SandboxError` when the rules cannot be
        installed (never runs the command open)."""
        names = _watched()
        nets = await asyncio.to_thread(bridge_networks)
        if shutil.which("nft") is None or shutil.which("nsenter") is None:
            if nets:
                raise SandboxError(NO_FENCE)
            return None
        elements = f"  elements = {{ {', '.join(nets)} }}\n" if nets else ""
        await self._nft(netns, userns, "table ip lancebench_fence {\n set bridges {\n  type ipv4_addr; "
                        f"flags interval;\n{elements} }}\n chain out {{\n  type filter hook output priority 0; "
                        "policy accept;\n  ip daddr @bridges reject with icmp type admin-prohibited\n }\n}\n")
        return names, set(nets)

    async def _follow(self, pid: int, netns: int, userns: int,
                      known: tuple[tuple[frozenset[str], str], set[str]]) -> None:
        """While the command runs, add to its fence every bridge network made since it started,
        within :data:`WATCH_SEC` (attack pass round 5: a command that waited for Docker to make a
        network, ``lancebench-public`` at a docker job's first public trial, then reached a server
        on it), or an address given since to a bridge that had none (attack pass round 6: the watch
        looked addresses up only when the bridges' names changed, so a network given to a bridge
        that already existed was never fenced). When the rules cannot be added, the command is
        ended (SIGKILL to bubblewrap's child ``pid``). ``known``: what :func:`_watched` saw and the
        networks :meth:`_fence` fenced. Closes the fds ``netns`` and ``userns``."""
        names, fenced = known
        try:
            changed = 0.0
            while True:
                now = _watched()
                if now != names:
                    names, changed = now, time.monotonic()
                if not now[0] or time.monotonic() - changed > LOOKUP_SEC:
                    await asyncio.sleep(WATCH_SEC)
                    continue  # addresses are looked up only for a while after the bridges changed
                new = sorted(set(await asyncio.to_thread(bridge_networks)) - fenced)
                if not new:
                    await asyncio.sleep(WATCH_SEC)
                    continue
                try:
                    await self._nft(netns, userns, f"add element ip lancebench_fence bridges {{ {', '.join(new)} }}\n")
                except SandboxError:
                    with contextlib.suppress(OSError):  # the command's process still, not a pid used again
                        if os.stat(f"/proc/{pid}/ns/net").st_ino == os.fstat(netns).st_ino:
                            os.kill(pid, signal.SIGKILL)
                    return
                fenced.update(new)
                await asyncio.sleep(WATCH_SEC)
        finally:
            os.close(netns)
            os.close(userns)

    async def _nft(self, netns: int, userns: int, rules: str) -> None:
        """Run ``nft -f -`` with ``rules`` in the namespace ``netns`` (fds; see :meth:`_fence`).
        Raises :class:`SandboxError` when it fails."""
        argv = ["nsenter", f"--user=/proc/self/fd/{userns}", f"--net=/proc/self/fd/{netns}", "--preserve-credentials",
                "nft", "-f", "-"]
        try:
            proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.PIPE,
                                                        stdout=asyncio.subprocess.DEVNULL,
                                                        stderr=asyncio.subprocess.PIPE, pass_fds=(netns, userns),
                                                        preexec_fn=self._as_uid)
            _, err = await proc.communicate(rules.encode())
        except OSError as exc:
            raise SandboxError(f"could not fence the sandbox's network off the host's bridges (nft): {exc}") from exc
        if proc.returncode != 0:
            raise SandboxError("could not fence the sandbox's network off the host's bridges (nft): "
                               f"{err.decode(errors='replace').strip()[-300:]}")

    def _slirp_preexec(self) -> None:
        """slirp4netns's ``preexec_fn``: the sandbox's cgroups (:attr:`enter`), then its uid."""
        if self.enter is not None:
            self.enter()
        self._as_uid()

    def _as_uid(self) -> None:
        if self.uid is not None:
            os.setgroups([])
            os.setgid(self.uid)
            os.setuid(self.uid)

    async def close(self) -> None:
        """Stop following new bridges, stop slirp4netns (by its pid) and close the pipes; safe to call twice."""
        if self._watch is not None:
            watch, self._watch = self._watch, None
            watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch
        for attr in ("block_w", "_exit_w"):
            fd = getattr(self, attr)
            if fd is not None:
                setattr(self, attr, None)
                os.close(fd)
        if self.proc is not None and self.proc.returncode is None:
            try:
                os.kill(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            await self.proc.wait()


def _watched() -> tuple[frozenset[str], str]:
    """What the fence's watch compares between looks (cheap: no subprocess): the host's bridges'
    names and its IPv4 routes (``/proc/net/route``, where an address given to a bridge adds the
    route of its network; empty when unreadable)."""
    try:
        with open("/proc/net/route") as f:
            routes = f.read()
    except OSError:
        routes = ""
    return _bridge_names(), routes


def _bridge_names() -> frozenset[str]:
    """Names of the host's bridge interfaces (``/sys/class/net/<name>/bridge``; empty when unreadable)."""
    try:
        return frozenset(n for n in os.listdir("/sys/class/net") if os.path.isdir(f"/sys/class/net/{n}/bridge"))
    except OSError:
        return frozenset()


def bridge_networks() -> list[str]:
    """The IPv4 networks (``a.b.c.d/n``) of the host's bridge interfaces (those with
    ``/sys/class/net/<name>/bridge``: Docker's ``docker0`` and ``br-*``, libvirt's ``virbr0``),
    sorted; empty when there is none or ``ip`` cannot tell."""
    names = _bridge_names()
    if not names:
        return []
    try:
        out = subprocess.run(["ip", "-j", "-4", "addr", "show"], capture_output=True, timeout=10, check=True).stdout
        links = json.loads(out)
    except (OSError, subprocess.SubprocessError, ValueError):
        return []
    nets = {str(ipaddress.ip_interface(f"{a['local']}/{a['prefixlen']}").network)
            for link in links if isinstance(link, dict) and link.get("ifname") in names
            for a in link.get("addr_info", []) if a.get("family") == "inet" and "local" in a}
    return sorted(nets)


async def _set_up(pid: int, owner: int) -> bool:
    """Wait (at most :data:`READY_TIMEOUT_SEC` seconds) until bubblewrap's child ``pid`` has set
    its sandbox up: it then enters a user namespace nested in ``owner`` (the inode of the one
    owning its network namespace) and waits on its block fd. slirp4netns configuring the
    namespace earlier races bubblewrap setting up ``lo`` (``bwrap: loopback: Failed
    RTM_NEWADDR``, seen within 40 commands). False when the child is gone (bubblewrap failed)."""
    deadline = time.monotonic() + READY_TIMEOUT_SEC
    while time.monotonic() < deadline:
        try:
            if os.stat(f"/proc/{pid}/ns/user").st_ino != owner:
                return True
        except OSError:
            return False
        await asyncio.sleep(0.001)
    return True  # let slirp4netns try; a failure is reported by bubblewrap or the ready pipe


def _read_byte(fd: int) -> bytes:
    """One byte of ``fd`` (b"" at its end); closes it."""
    try:
        return os.read(fd, 1)
    finally:
        os.close(fd)

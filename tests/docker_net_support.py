"""Real servers on Docker's default bridge for the network allowlist tests.

A :class:`BridgeHost` is a container (``debian:bookworm-slim`` running ``sleep``) on the default
bridge whose network namespace holds servers run by the test process: a thread joins the
namespace (``setns``), binds the listening socket there and leaves; the socket stays in the
container's namespace, so the server answers at the container's bridge address exactly as a
server process inside it would (the minimal image has no Python or HTTP server of its own).
Needs root (``setns``) and an engine on this machine, as the allowlist itself does.

:class:`ZoneServer` is a DNS server on 127.0.0.1 answering A records of a fixed zone
(dnspython), for ``LANCEBENCH_ALLOWLIST_DNS``: host names of the tests resolve to bridge hosts
without touching the machine's ``/etc/hosts``.
"""

from __future__ import annotations

import ctypes
import os
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def in_netns(pid: int, fn: Callable[[], Any]) -> Any:
    """``fn()`` run in a thread that joined the network namespace of process ``pid``."""
    box: dict[str, Any] = {}

    def run() -> None:
        fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
        try:
            if _libc.setns(fd, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns failed")
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 (handed to the caller)
            box["error"] = exc
        finally:
            os.close(fd)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


class BridgeHost:
    """A container on the default bridge (see the module docstring); ``ip`` is its address."""

    def __init__(self, name: str):
        from lancebench.sandbox.docker_engine import client
        self.container = client().containers.run("debian:bookworm-slim", ["sleep", "3600"], detach=True,
                                                 name=name, network_mode="bridge", cap_drop=["ALL"],
                                                 labels={"lancebench.managed": "true", "lancebench.job": name})
        self.container.reload()
        self.ip: str = self.container.attrs["NetworkSettings"]["IPAddress"]
        # the bridge's gateway as the product reads it (sandbox/docker.py): from the container's own
        # network settings; the network's IPAM configuration lists only the subnet on a freshly
        # started engine (issue 30)
        self.gateway: str = self.container.attrs["NetworkSettings"]["Gateway"]
        self.pid: int = self.container.attrs["State"]["Pid"]
        self._servers: list[ThreadingHTTPServer] = []
        self._listeners: list[socket.socket] = []

    def serve_http(self, body: str, port: int = 8080) -> int:
        """An HTTP server answering every GET with ``body`` at ``ip:port``; returns the port."""
        payload = body.encode()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                self.send_response(200)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        server = in_netns(self.pid, lambda: ThreadingHTTPServer(("0.0.0.0", port), Handler))
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self._servers.append(server)
        return server.server_address[1]

    def relay(self, target_port: int, port: int = 8080) -> int:
        """Forward every TCP connection to ``ip:port`` to ``127.0.0.1:target_port`` of the host (a
        server that listens on loopback only, like the local model's); returns the port."""
        listener = in_netns(self.pid, lambda: socket.create_server(("0.0.0.0", port)))
        self._listeners.append(listener)

        def pump(src: socket.socket, dst: socket.socket) -> None:
            try:
                while data := src.recv(65536):
                    dst.sendall(data)
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass

        def serve() -> None:
            while True:
                try:
                    conn, _ = listener.accept()
                    upstream = socket.create_connection(("127.0.0.1", target_port))
                except OSError:
                    return
                for src, dst in ((conn, upstream), (upstream, conn)):
                    threading.Thread(target=pump, args=(src, dst), daemon=True).start()
        threading.Thread(target=serve, daemon=True).start()
        return listener.getsockname()[1]

    def close(self) -> None:
        for listener in self._listeners:
            listener.close()
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self.container.remove(force=True)


class ZoneServer:
    """A DNS server on 127.0.0.1 answering ``zone`` (name -> IPv4, or a list of them) with A
    records, NXDOMAIN for any other name, and nothing at all for names ending in ``silent`` (a
    server that never answers); ``address`` is ``127.0.0.1:PORT``; ``asked`` lists the names it
    was asked."""

    def __init__(self, zone: dict[str, str | list[str]], silent: str | None = None):
        self.zone = {k.lower(): [v] if isinstance(v, str) else v for k, v in zone.items()}
        self.silent = silent
        self.asked: list[str] = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        import dns.exception
        import dns.message
        import dns.rcode
        import dns.rdatatype
        import dns.rrset
        while True:
            try:
                data, peer = self.sock.recvfrom(4096)
            except OSError:
                return
            try:  # a packet that is no query (an attack's, a stray one) is dropped, as a server would
                query = dns.message.from_wire(data)
                question = query.question[0]
            except (dns.exception.DNSException, IndexError):
                continue
            response = dns.message.make_response(query)
            name = question.name.to_text(omit_final_dot=True).lower()
            self.asked.append(name)
            if self.silent and name.endswith(self.silent):
                continue
            if name not in self.zone:
                response.set_rcode(dns.rcode.NXDOMAIN)
            elif question.rdtype == dns.rdatatype.A:
                response.answer.append(dns.rrset.from_text_list(question.name, 30, "IN", "A", self.zone[name]))
            self.sock.sendto(response.to_wire(), peer)

    def close(self) -> None:
        self.sock.close()


# GET / with bash's /dev/tcp (the minimal image has no curl); prints the body's last line or fails
FETCH = ('fetch() { timeout 5 bash -c \'exec 3<>"/dev/tcp/$0/$1" && printf "GET / HTTP/1.0\\r\\n\\r\\n" >&3 '
         '&& tail -n 1 <&3\' "$1" "$2"; }; ')


@contextmanager
def two_hosts(job: str) -> Iterator[tuple[BridgeHost, BridgeHost]]:
    """Two HTTP servers on the bridge: ``a`` answers "server-a", ``b`` "server-b", both on 8080."""
    a, b = BridgeHost(f"{job}-a"), BridgeHost(f"{job}-b")
    try:
        a.serve_http("server-a")
        b.serve_http("server-b")
        yield a, b
    finally:
        a.close()
        b.close()


def run_box(job: str, allow, body, **kw):
    """``await body(box)`` for a started ``debian:bookworm-slim`` :class:`DockerSandbox` with
    network allowlist ``allow`` (None: public), stopped afterwards; returns what ``body`` returns."""
    import asyncio

    from lancebench.sandbox.base import SandboxSpec
    from lancebench.sandbox.docker import DockerSandbox

    async def go():
        box = DockerSandbox(SandboxSpec(image="debian:bookworm-slim", network=True, allow_hosts=allow,
                                        labels={"job": job, "trial": "t"}, **kw))
        await box.start()
        try:
            return await body(box)
        finally:
            await box.stop()
    return asyncio.run(go())


async def fetch(box, host, port=8080, user=None):
    """The last line ``GET /`` on ``host:port`` returns from inside ``box`` (an ExecResult)."""
    return await box.exec(FETCH + f"fetch {host} {port}", user=user)

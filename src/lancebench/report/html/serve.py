"""Serving a built report site on 127.0.0.1 (``lancebench view``): the standard library's HTTP
server over the site's folder, read-only, one thread per request."""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HOST = "127.0.0.1"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


def make_server(site_dir: Path, port: int = 0) -> ThreadingHTTPServer:
    """An HTTP server for ``site_dir`` bound to 127.0.0.1:``port`` (0: any free port); its address
    is ``server.server_address``. Raises OSError when the port is taken."""
    handler = functools.partial(_Quiet, directory=str(site_dir))
    return ThreadingHTTPServer((HOST, port), handler)


def url(server: ThreadingHTTPServer) -> str:
    """``http://127.0.0.1:PORT/`` of a server from :func:`make_server`."""
    return f"http://{HOST}:{server.server_address[1]}/"

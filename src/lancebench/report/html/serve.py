"""Serving a built report site on 127.0.0.1 (``lancebench view``): the standard library's HTTP
server over the site's folder, read-only, one thread per request; a trials' data file not written
yet is written when first asked for (:class:`lancebench.report.html.site.TrialPages`)."""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from lancebench.report.html.site import TrialPages

HOST = "127.0.0.1"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


class _LazyTrials(_Quiet):
    pages: TrialPages

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        path = unquote(urlsplit(self.path).path).lstrip("/")
        if path.startswith("trials/") and path.endswith(".js"):
            try:
                self.pages.write(path)
            except OSError:
                self.send_error(500, "cannot write this trial data file")
                return
        super().do_GET()


def make_server(site_dir: Path, port: int = 0, pages: TrialPages | None = None) -> ThreadingHTTPServer:
    """An HTTP server for ``site_dir`` bound to 127.0.0.1:``port`` (0: any free port); its address
    is ``server.server_address``. With ``pages``, a trials' data file is written when first asked for.
    Raises OSError when the port is taken."""
    if pages is None:
        handler = functools.partial(_Quiet, directory=str(site_dir))
    else:
        lazy = type("_Handler", (_LazyTrials,), {"pages": pages})
        handler = functools.partial(lazy, directory=str(site_dir))
    return ThreadingHTTPServer((HOST, port), handler)


def url(server: ThreadingHTTPServer) -> str:
    """``http://127.0.0.1:PORT/`` of a server from :func:`make_server`."""
    return f"http://{HOST}:{server.server_address[1]}/"

"""Pocket Expenses: a small expense tracker served by Python's standard library.

Run ``python server.py --port 8000`` and open http://127.0.0.1:8000/.
"""

import argparse
import functools
import http.server
from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".js": "text/javascript"}

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, fmt, *args):  # keep the console quiet
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    handler = functools.partial(Handler, directory=str(STATIC))
    with http.server.ThreadingHTTPServer((args.host, args.port), handler) as httpd:
        print(f"Pocket Expenses on http://{args.host}:{args.port}/", flush=True)
        httpd.serve_forever()


if __name__ == "__main__":
    main()

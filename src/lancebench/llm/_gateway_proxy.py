"""Child-process entry of the model gateway (``python -m lancebench.llm._gateway_proxy ARGS``):
LiteLLM's proxy (its ``litellm`` command, same arguments) with :class:`.gateway_limits.RequestLimits`
as the outermost middleware of its app, added before the server starts, so that a trial key's
bounds are applied before LiteLLM reads a request's body. ``$LANCEBENCH_GATEWAY_DIR``: the
gateway's folder (keys, usage)."""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> None:
    from litellm.proxy import proxy_server
    from litellm.proxy.proxy_cli import run_server

    from lancebench.llm.gateway_limits import RequestLimits

    proxy_server.app.add_middleware(RequestLimits, root=os.environ["LANCEBENCH_GATEWAY_DIR"])
    run_server.main(args=sys.argv[1:] if argv is None else argv, prog_name="litellm")


if __name__ == "__main__":
    main()

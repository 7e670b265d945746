"""The model's lifetime around a job, in one call: :func:`model_endpoint` starts the local server
for ``local...`` models (stopped on exit, also on Ctrl-C) and checks any model with one tiny
request before a sandbox is built, so bad credentials stop the job early."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from lancebench.llm.client import preflight
from lancebench.llm.local import serve_model


@contextlib.contextmanager
def model_endpoint(model: str, api_base: str | None = None, *, check: bool = True,
                   **server_options: object) -> Iterator[tuple[str, str | None]]:
    """Yield ``(model, api_base)`` to build agents with: for ``local`` / ``local:/x.gguf`` the
    api_base is the local server's (``http://127.0.0.1:PORT/v1``), otherwise the one given.

    ``check``: run :func:`preflight` first. Raises :class:`ModelAuthError` (credentials refused:
    stop the job), :class:`ModelError` (model unreachable, or the local server did not start),
    :class:`ConfigError` (unusable name or path). ``server_options`` go to
    :class:`lancebench.llm.local.LocalModelServer` (``ctx_tokens``, ``threads``, ``log_path``).
    """
    with serve_model(model, api_base, **server_options) as base:
        if check:
            preflight(model, base)
        yield model, base

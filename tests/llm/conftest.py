"""Fixtures of the LLM tests: the scripted OpenAI-compatible server (real HTTP on 127.0.0.1)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from scripted_server import ScriptedServer, scripted  # noqa: F401  (the fixture)

from lancebench.llm.client import resolve_model
from lancebench.llm.gateway import Gateway

GATEWAY_MODEL = "openai/gpt-4o-mini"  # priced in LiteLLM's table; 128,000 input tokens


@pytest.fixture(scope="session")
def served() -> Iterator[tuple[ScriptedServer, Gateway]]:
    """The model gateway (LiteLLM's proxy on 127.0.0.1; its start costs about 20 s of CPU) in
    front of a scripted server, for :data:`GATEWAY_MODEL`; shared by the tests of a worker, each
    giving the server its own script (:meth:`ScriptedServer.rescript`)."""
    srv = ScriptedServer([]).start()
    gw = Gateway(resolve_model(GATEWAY_MODEL, srv.api_base)).start()
    try:
        yield srv, gw
    finally:
        gw.stop()
        srv.stop()


@pytest.fixture
def sandbox_dir() -> Iterator[Path]:
    """A scratch folder the sandbox user can reach (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="lancebench-llm-test-"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)

"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, over real HTTP.

Each POST to ``/v1/chat/completions`` (or ``/chat/completions``) takes the next item of the
script: a :class:`Reply` (an exact assistant answer with the usage to report), a :class:`Fail`
(an HTTP error status) or a :class:`Raw` (an exact JSON body, for answers no real model sends
twice: no choices, a null message). A request with ``"stream": true`` gets a Reply as
server-sent chunks (:func:`stream_chunks`). ``/v1/responses`` (OpenAI's Responses API) answers
from the same script (:meth:`ScriptedServer._response`, streamed as :func:`response_events`).
When the script is used up the server answers 500 "script exhausted" so a test that asks too
much fails loudly. ``requests`` keeps every request body received.

Usage::

    with ScriptedServer([Fail(500), Reply("hello", prompt_tokens=10, completion_tokens=2)]) as srv:
        client = LLMClient("openai/scripted", srv.api_base)
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from lancebench.llm.gateway import Gateway


@dataclass
class Reply:
    """An answer: ``content`` text and/or ``tool_calls`` (``[{"name", "arguments": dict|str}]``);
    the usage reported; ``finish_reason``; ``delay_sec``: seconds to wait before answering (a slow
    model, for timeout tests); ``stall_sec``: a streamed answer stops for that long after its
    first chunk (the content), as a model that goes silent mid-answer."""

    content: str | None = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 100
    completion_tokens: int = 20
    cached_tokens: int = 0
    finish_reason: str | None = None
    delay_sec: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    stall_sec: float = 0.0  # streamed: seconds to wait after the content's chunk (a model that stops sending)


@dataclass
class Fail:
    """An HTTP error answer (500, 503, 429, 401, 403, 400...) with an OpenAI-style error body;
    ``retry_after`` sets the Retry-After header (seconds, or any text such as an HTTP date);
    ``code``: the error's ``code`` field (default: the status); ``headers``: more headers."""

    status: int = 500
    message: str = "scripted failure"
    retry_after: float | str | None = None
    code: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Raw:
    """An exact answer: ``body`` (JSON) with HTTP ``status`` and ``headers``."""

    body: dict[str, Any]
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


class ScriptedServer:
    """See the module docstring. ``api_base`` is ``http://127.0.0.1:<port>/v1``."""

    def __init__(self, script: list[Reply | Fail | Raw], *, model: str = "scripted-model", host: str = "127.0.0.1"):
        self.script = list(script)
        self.host = host  # the address it listens on ("0.0.0.0" in a container's namespace)
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.served: list[Reply | Fail | Raw] = []
        self.times: list[float] = []  # time.monotonic() of each request
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def rescript(self, replies: list[Reply | Fail | Raw]) -> None:
        """A new script, and the requests of earlier ones forgotten (a server shared by a module)."""
        with self._lock:
            self.script, self.requests[:], self.served[:], self.times[:] = list(replies), [], [], []
    def start(self) -> ScriptedServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def _send(self, status: int, body: dict, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _send_stream(self, completion: dict, headers: dict[str, str], stall_sec: float = 0.0) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                for n, chunk in enumerate(stream_chunks(completion)):
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                    if n == 0 and stall_sec:
                        self.wfile.flush()
                        time.sleep(stall_sec)
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

            def _send_events(self, events: list[dict], headers: dict[str, str]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                for event in events:
                    self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
                self.close_connection = True

            def do_GET(self) -> None:
                if self.path.rstrip("/") in ("/v1/models", "/models"):
                    self._send(200, {"object": "list", "data": [{"id": server.model, "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": "not found", "type": "not_found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                route = self.path.split("?")[0].rstrip("/")
                if route not in ("/v1/chat/completions", "/chat/completions", "/v1/responses", "/responses"):
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                item = server._next(body, dict(self.headers))
                if item is None:
                    self._send(500, {"error": {"message": "scripted server: script exhausted", "type": "server_error"}})
                elif isinstance(item, Raw):
                    self._send(item.status, item.body, item.headers)
                elif isinstance(item, Fail):
                    headers = dict(item.headers)
                    if item.retry_after is not None:
                        headers["Retry-After"] = str(item.retry_after)
                    kind = {401: "invalid_request_error", 403: "permission_error", 429: "rate_limit_error"}
                    self._send(item.status, {"error": {"message": item.message,
                                                       "type": kind.get(item.status, "server_error"),
                                                       "code": item.code or str(item.status)}}, headers)
                else:
                    if item.delay_sec:
                        time.sleep(item.delay_sec)
                    try:
                        if route.endswith("/responses"):
                            answer = server._response(item)
                            if body.get("stream"):
                                self._send_events(response_events(answer), item.headers)
                            else:
                                self._send(200, answer, item.headers)
                        elif body.get("stream"):
                            self._send_stream(server._completion(item), item.headers, item.stall_sec)
                        else:
                            self._send(200, server._completion(item), item.headers)
                    except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
                        pass

        self._httpd = ThreadingHTTPServer((self.host, 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="scripted-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- script ------------------------------------------------------------------------------
    def _next(self, body: dict, headers: dict[str, str]) -> Reply | Fail | Raw | None:
        with self._lock:
            self.requests.append({"body": body, "headers": headers})
            self.times.append(time.monotonic())
            if not self.script:
                return None
            item = self.script.pop(0)
            self.served.append(item)
            return item

    def _completion(self, reply: Reply) -> dict:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            n = len(self.served)
            message["tool_calls"] = [
                {"id": tc.get("id", f"call_{n}_{i}"), "type": "function",
                 "function": {"name": tc["name"], "arguments": tc["arguments"] if isinstance(tc["arguments"], str)
                              else json.dumps(tc["arguments"])}}
                for i, tc in enumerate(reply.tool_calls)]
        finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
        return {
            "id": f"chatcmpl-scripted-{len(self.served)}", "object": "chat.completion", "created": int(time.time()),
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                      "total_tokens": reply.prompt_tokens + reply.completion_tokens,
                      "prompt_tokens_details": {"cached_tokens": reply.cached_tokens}},
        }

    def _response(self, reply: Reply) -> dict:
        """``reply`` as an OpenAI Responses API answer: a message item and/or function calls."""
        n = len(self.served)
        output: list[dict[str, Any]] = []
        if reply.content:
            output.append({"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                           "content": [{"type": "output_text", "text": reply.content, "annotations": []}]})
        for i, tc in enumerate(reply.tool_calls):
            args = tc["arguments"] if isinstance(tc["arguments"], str) else json.dumps(tc["arguments"])
            output.append({"type": "function_call", "id": f"fc_{n}_{i}", "call_id": tc.get("id", f"call_{n}_{i}"),
                           "name": tc["name"], "arguments": args, "status": "completed"})
        return {"id": f"resp_scripted_{n}", "object": "response", "created_at": int(time.time()),
                "status": "completed", "model": self.model, "output": output, "error": None,
                "incomplete_details": None, "instructions": None, "metadata": {}, "parallel_tool_calls": True,
                "temperature": 1.0, "top_p": 1.0, "tool_choice": "auto", "tools": [],
                "text": {"format": {"type": "text"}},
                "usage": {"input_tokens": reply.prompt_tokens, "output_tokens": reply.completion_tokens,
                          "total_tokens": reply.prompt_tokens + reply.completion_tokens,
                          "input_tokens_details": {"cached_tokens": reply.cached_tokens},
                          "output_tokens_details": {"reasoning_tokens": 0}}}


def response_events(response: dict) -> list[dict]:
    """A Responses API answer as the events of a streamed one (``stream: true``): created, each
    output item added (a message's text as one delta) and done, then completed with the usage."""
    events: list[dict[str, Any]] = [{"type": "response.created",
                                     "response": response | {"status": "in_progress", "output": []}}]
    for i, item in enumerate(response["output"]):
        events.append({"type": "response.output_item.added", "output_index": i,
                       "item": item | {"status": "in_progress"}})
        if item["type"] == "message":
            events.append({"type": "response.output_text.delta", "item_id": item["id"], "output_index": i,
                           "content_index": 0, "delta": item["content"][0]["text"]})
        events.append({"type": "response.output_item.done", "output_index": i, "item": item})
    events.append({"type": "response.completed", "response": response})
    return [e | {"sequence_number": n} for n, e in enumerate(events)]


def stream_chunks(completion: dict) -> list[dict]:
    """A chat completion as the chunks of a streamed answer (``stream: true``): the message in
    one delta, then the finish reason, then the usage (always sent, as with OpenAI's
    ``stream_options.include_usage``)."""
    choice = completion["choices"][0]
    base = {k: completion[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    delta = {k: v for k, v in choice["message"].items() if v is not None}
    if "tool_calls" in delta:
        delta["tool_calls"] = [dict(tc, index=i) for i, tc in enumerate(delta["tool_calls"])]
    return [base | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            base | {"choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]},
            base | {"choices": [], "usage": completion["usage"]}]


@pytest.fixture
def scripted() -> Iterator[Callable[..., ScriptedServer]]:
    """``scripted([Reply(...), Fail(500), ...])`` starts a server; all are stopped at teardown.
    Import it into a conftest.py to use it."""
    servers: list[ScriptedServer] = []

    def start(script: list[Reply | Fail | Raw], **kwargs: Any) -> ScriptedServer:
        srv = ScriptedServer(script, **kwargs).start()
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        srv.stop()


GATEWAY_MODEL = "openai/gpt-4o-mini"  # priced in LiteLLM's table; 128,000 input tokens


@pytest.fixture(scope="session")
def served() -> Iterator[tuple[ScriptedServer, Gateway]]:
    """The model gateway (LiteLLM's proxy on 127.0.0.1; its start costs about 20 s of CPU) in
    front of a scripted server, for :data:`GATEWAY_MODEL`; shared by the tests of a worker, each
    giving the server its own script (:meth:`ScriptedServer.rescript`)."""
    from lancebench.llm.client import resolve_model
    from lancebench.llm.gateway import Gateway

    srv = ScriptedServer([]).start()
    gw = Gateway(resolve_model(GATEWAY_MODEL, srv.api_base)).start()
    try:
        yield srv, gw
    finally:
        gw.stop()
        srv.stop()

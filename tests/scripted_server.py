"""A real HTTP server on 127.0.0.1 that speaks Ollama's and the OpenAI wire formats from a per-test script.

Each route has a queue of scripted ``Reply`` objects (consumed in order) and may have a standing reply
(used whenever its queue is empty). Every request is recorded (method, path, headers, JSON body, client
port), so tests assert what was actually sent over the socket. A route with nothing scripted answers 599,
which no provider treats as success, so a test that under-scripts fails loudly.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a status and body, optionally after a delay, or a dropped connection."""

    status: int = 200
    body: bytes = b""
    delay: float = 0.0
    """Seconds to wait before answering (interrupted when the server stops)."""
    close: bool = False
    """Close the connection without sending any response."""
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()
    """Extra response headers, e.g. ``(("Retry-After", "7"),)``."""
    stream: Callable[[], Iterable[bytes]] | None = None
    """Send these chunks (chunked transfer encoding) instead of ``body``; the server stops early when the
    client hangs up, and ``sent`` counts what went out."""
    drip: float = 0.0
    """Seconds to wait before each streamed chunk."""


@dataclass(frozen=True)
class Recorded:
    """One request as it arrived."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    client_port: int

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    def header(self, name: str) -> str | None:
        for key, value in self.headers.items():
            if key.lower() == name.lower():
                return value
        return None


def json_reply(data: Any, status: int = 200, *, delay: float = 0.0) -> Reply:
    return Reply(status=status, body=json.dumps(data).encode(), delay=delay)


def text_reply(text: str, status: int = 200, *, delay: float = 0.0) -> Reply:
    return Reply(status=status, body=text.encode(), delay=delay, content_type="text/plain; charset=utf-8")


def ollama_error(message: str, status: int) -> Reply:
    """Ollama's error shape: ``{"error": "..."}``."""
    return json_reply({"error": message}, status)


def openai_error(message: str, status: int, *, param: str | None = None) -> Reply:
    """The OpenAI error shape: ``{"error": {"message": ..., "type": ..., "param": ...}}``."""
    return json_reply({"error": {"message": message, "type": "invalid_request_error", "param": param}}, status)


def ollama_chat(content: str, *, done_reason: str = "stop", delay: float = 0.0, model: str = "m") -> Reply:
    """A non-streaming ``/api/chat`` answer as Ollama sends it."""
    return json_reply(
        {
            "model": model,
            "created_at": "2025-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": content},
            "done": True,
            "done_reason": done_reason,
            "prompt_eval_count": 321,
            "eval_count": 54,
        },
        delay=delay,
    )


def openai_chat(content: str | None, *, finish_reason: str = "stop", delay: float = 0.0,
                model: str = "m") -> Reply:
    """A ``/v1/chat/completions`` answer as OpenAI-compatible servers send it."""
    return json_reply(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": model,
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}
            ],
            "usage": {"prompt_tokens": 321, "completion_tokens": 54, "total_tokens": 375},
        },
        delay=delay,
    )


class _QuietServer(ThreadingHTTPServer):
    request_queue_size = 64  # a trial-sized burst of connections is accepted, not reset
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (a timeout under test) leaves a broken pipe behind; that is expected.
        pass


def _bind(port: int, handler: type[BaseHTTPRequestHandler], wait: float) -> _QuietServer:
    deadline = time.monotonic() + wait
    while True:
        try:
            return _QuietServer(("127.0.0.1", port), handler)
        except OSError:
            if port == 0 or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


class ScriptedServer:
    """The loopback server. ``base_url`` is what users write (``http://127.0.0.1:PORT/v1``)."""

    def __init__(self, port: int = 0, *, wait: float = 15.0) -> None:
        """``port`` 0 takes a free one. A fixed port (a recorded base URL that is hashed into a configuration)
        may be held for a moment by another test run on this machine: binding is retried for ``wait`` s."""
        self._queues: dict[str, deque[Reply]] = defaultdict(deque)
        self._standing: dict[str, Reply] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.requests: list[Recorded] = []
        self.sent = 0
        """Bytes of streamed bodies written so far."""
        self._httpd = _bind(port, self._handler_class(), wait)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01},
                                        daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.root}/v1"

    def script(self, path: str, *replies: Reply) -> None:
        """Queue replies for ``path``; each request consumes one."""
        with self._lock:
            self._queues[path].extend(replies)

    def always(self, path: str, reply: Reply) -> None:
        """Answer ``path`` with ``reply`` whenever its queue is empty."""
        with self._lock:
            self._standing[path] = reply

    def requests_to(self, path: str) -> list[Recorded]:
        with self._lock:
            return [request for request in self.requests if request.path == path]

    def pending(self, path: str) -> int:
        with self._lock:
            return len(self._queues[path])

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next(self, path: str) -> Reply:
        with self._lock:
            if self._queues[path]:
                return self._queues[path].popleft()
            if path in self._standing:
                return self._standing[path]
        return text_reply(f"nothing scripted for {path}", 599)

    def _record(self, request: Recorded) -> None:
        with self._lock:
            self.requests.append(request)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, so tests can see whether a client reuses its connection
            disable_nagle_algorithm = True  # no 40 ms delayed-ACK stall between headers and body

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                server._record(Recorded(self.command, self.path, dict(self.headers.items()), body,
                                        self.client_address[1]))
                reply = server._next(self.path)
                if reply.delay and server._stopping.wait(reply.delay):
                    self.close_connection = True
                    return
                if reply.close:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                if reply.stream is not None:
                    self._stream(reply)
                    return
                self.send_header("Content-Length", str(len(reply.body)))
                for name, value in reply.headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(reply.body)

            def _stream(self, reply: Reply) -> None:
                for name, value in reply.headers:
                    self.send_header(name, value)
                self.send_header("Transfer-Encoding", "chunked")
                # It closes after a stream, so it says so (as real servers do): a client must not reuse the
                # connection, which would race the close and read nothing.
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                try:
                    for chunk in reply.stream():  # type: ignore[misc]
                        if reply.drip and server._stopping.wait(reply.drip):
                            return
                        self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                        with server._lock:
                            server.sent += len(chunk)
                    self.wfile.write(b"0\r\n\r\n")
                except OSError:
                    return  # the client hung up (a capped read): what was sent is counted

            do_GET = _serve
            do_POST = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output (and caplog) free of server chatter

        return Handler


@pytest.fixture(name="scripted_server")
def scripted_server_fixture() -> Iterator[ScriptedServer]:
    """A started ``ScriptedServer``, stopped after the test."""
    with ScriptedServer() as server:
        yield server


def closed_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class FullBacklog:
    """A loopback listener whose accept queue is full and never drained: new connects hang (SYN dropped),
    which is how an unreachable-but-routed host looks to a client. Stays on 127.0.0.1."""

    def __init__(self) -> None:
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(0)
        self.port = int(self._listener.getsockname()[1])
        self._fillers: list[socket.socket] = []
        # Linux keeps backlog + 1 connections queued; a couple more make sure the queue is full.
        for _ in range(3):
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", self.port))
            self._fillers.append(filler)

    def close(self) -> None:
        for filler in self._fillers:
            filler.close()
        self._listener.close()

    def __enter__(self) -> FullBacklog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- llama.cpp's streamed completions (server-sent events) ---------------------------------------------------

PROMPT_TOKENS = 321


def llamacpp_events(tokens: list[str], *, finish: str = "stop", prompt: int = PROMPT_TOKENS) -> list[dict[str, Any]]:
    """The events llama.cpp streams for one completion with ``return_progress`` and ``include_usage``."""
    opening = {"choices": [{"index": 0, "finish_reason": None, "delta": {"role": "assistant", "content": None}}]}
    return [
        {**opening, "prompt_progress": {"total": prompt, "cache": 0, "processed": 0, "time_ms": 0.1}},
        {**opening, "prompt_progress": {"total": prompt, "cache": 0, "processed": prompt, "time_ms": 900.0}},
        *({"choices": [{"index": 0, "finish_reason": None, "delta": {"content": token}}]} for token in tokens),
        {"choices": [{"index": 0, "finish_reason": finish, "delta": {}}]},
        {"choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": len(tokens)}},
    ]


def pieces(text: str, size: int = 7) -> list[str]:
    """The text as the tokens a server would stream."""
    return [text[index:index + size] for index in range(0, len(text), size)]


CACHE_REPLY = json.dumps({"requirements": [{"requirement": "Cache", "status": "supported", "evidence_refs": ["m1"],
                                            "explanation": "m1 names Redis."}], "reasoning": "Stated."})
"""A valid reply for PRME's reader bundle and its cache question."""


def sse_bytes(items: list[dict[str, Any] | str]) -> Iterator[bytes]:
    """Each item as one ``data:`` event."""
    for item in items:
        data = item if isinstance(item, str) else json.dumps(item)
        yield f"data: {data}\n\n".encode()


def sse(items: list[dict[str, Any] | str], *, done: bool = True) -> Reply:
    """A streamed reply of these events, ended by ``[DONE]`` unless ``done`` is False."""
    chunks = [*items, "[DONE]"] if done else items
    return Reply(content_type="text/event-stream", stream=lambda: sse_bytes(chunks))

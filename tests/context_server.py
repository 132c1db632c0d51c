"""A loopback OpenAI-compatible/Ollama server whose replies depend on the context it receives (sweep tests, bench).

It is given requirements, each with a phrase that states it. For every request it reads the exact context in
the user message and marks a requirement supported only when a record line containing its phrase is there,
citing that line the way its format cites: ``mN`` from a reader line's ``[mN]``, a compact line's ``"mN"`` ref,
an auditable line's ``"id"``. A requirement whose line is absent (cut, or uncitable) is unsupported, uncited.

Given ``slots``, it also plays a llama.cpp server that serves that many requests at once: ``/props`` says so
(``total_slots``), further requests wait in its queue, and every reply carries llama.cpp's ``timings``
(``TIMINGS``), so a run can fit its concurrency and timeout to it.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_READER_REF = re.compile(r"- \[(m[0-9]+)\]")
TIMINGS = {"prompt_n": 400, "prompt_ms": 2000.0, "prompt_per_second": 200.0, "predicted_n": 16,
           "predicted_ms": 800.0, "predicted_per_second": 20.0}
"""What the llama.cpp stand-in says of its speed: 200 prompt tokens a second, 20 reply tokens a second."""


def citation_of(line: str) -> str | None:
    """The token that cites this record line in its own format, or None (reader without citations, not a record)."""
    if line.startswith("- "):
        match = _READER_REF.match(line)
        return match.group(1) if match else None
    if line.startswith("[") and line.endswith("]") and line.count('"') >= 2:
        try:
            row = json.loads(line)
        except ValueError:
            return None  # a [section] line
        return row[0] if isinstance(row, list) and row and isinstance(row[0], str) else None
    if line.startswith("{"):
        try:
            return str(json.loads(line)["id"])
        except (ValueError, KeyError):
            return None
    return None


def reply_for(context: str, requirements: Mapping[str, str]) -> dict[str, Any]:
    lines = context.split("\n")
    items = []
    for text, phrase in requirements.items():
        token = next((citation_of(line) for line in lines if phrase in line and citation_of(line)), None)
        items.append({"requirement": text, "status": "supported" if token else "unsupported",
                      "evidence_refs": [token] if token else [],
                      "explanation": f"stated by {token}" if token else "no record states it"})
    return {"requirements": items, "reasoning": "context-dependent scripted judgement"}


class ContextServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, requirements: Mapping[str, str], delay: float, hold_after: int | None,
                 slots: int | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.slots = slots
        self.serving = threading.Semaphore(slots or 1_000)
        self.at_server = 0
        """Requests received and not yet answered (waiting for a slot, or served)."""
        self.most_at_server = 0
        self.probes = 0
        """Measuring calls (``max_tokens`` ≤ 16) among the calls."""
        self.requirements = dict(requirements)
        self.delay = delay
        self.calls = 0
        self.contexts: list[str] = []
        self.hold_after = hold_after
        self.release = threading.Event()
        self._changed = threading.Condition()
        self.held = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def arrived(self, context: str) -> bool:
        with self._changed:
            self.calls += 1
            self.contexts.append(context)
            hold = self.hold_after is not None and self.calls > self.hold_after and not self.release.is_set()
            if hold:
                self.held += 1
                self._changed.notify_all()
            return hold

    def wait_held(self, count: int, timeout: float = 30) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self.held >= count, timeout)


class _Handler(BaseHTTPRequestHandler):
    server: ContextServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        if self.path == "/props" and self.server.slots:
            self._send({"default_generation_settings": {"n_ctx": 32768}, "total_slots": self.server.slots})
        elif self.path == "/props":
            self._send({"error": "not found"}, status=404)
        elif self.path.endswith("/models"):
            self._send({"object": "list", "data": [{"id": "context-oracle", "object": "model"}]})
        else:
            self._send({"models": [{"name": "context-oracle"}]})

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        context = user.split("RETRIEVED MEMORY DATA:\n", 1)[1]
        server = self.server
        with server._changed:
            server.at_server += 1
            server.most_at_server = max(server.most_at_server, server.at_server)
            server.probes += int((body.get("max_tokens") or 10**6) <= 16)
        try:
            with server.serving:
                self._answer(context)
        finally:
            with server._changed:
                server.at_server -= 1

    def _answer(self, context: str) -> None:
        if self.server.arrived(context):
            self.server.release.wait()
        if self.server.delay:
            time.sleep(self.server.delay)
        content = json.dumps(reply_for(context, self.server.requirements))
        if self.path.endswith("/api/chat"):
            self._send({"message": {"role": "assistant", "content": content}, "done": True, "done_reason": "stop"})
            return
        reply: dict[str, Any] = {"choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                              "finish_reason": "stop"}]}
        if self.server.slots:
            reply["timings"] = TIMINGS
        self._send(reply)

    def _send(self, payload: Any, status: int = 200) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass


@contextmanager
def context_server(requirements: Mapping[str, str], *, delay: float = 0.0,
                   hold_after: int | None = None, slots: int | None = None) -> Iterator[ContextServer]:
    server = ContextServer(requirements, delay, hold_after, slots)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()

"""A loopback OpenAI-compatible/Ollama server that answers each question from a table (trials, benchmarks).

The reply for a request is chosen by the QUESTION line of its user message, so concurrent requests from a
trial run get their own scripted judgement. A question mapped to an int answers with that HTTP status; to a list,
with its items in turn (the Nth request for that question gets the Nth item, cycling).

``hold_after=N`` answers the first N requests and holds every later one until ``release`` is set, so a test can
act on a run at an exact point (``wait_held``) instead of after a sleep; ``hold=`` holds the requests for those
questions alone.

With ``models``, ``GET /v1/models`` and ``/api/tags`` list them (a trial's preflight asks), never held or counted;
without, a GET is answered 501 as before (the app's endpoint panel then shows no model list). With ``slots``,
``GET /props`` says so as llama.cpp does (``total_slots``), so a run's preflight takes it for a llama.cpp server.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def judgement(*requirements: tuple[str, str, list[str]], reasoning: str = "scripted") -> dict[str, Any]:
    """A raw reply from (requirement, status, evidence_refs) triples."""
    return {
        "requirements": [
            {"requirement": text, "status": status, "evidence_refs": refs, "explanation": f"{text}: {status}"}
            for text, status, refs in requirements
        ],
        "reasoning": reasoning,
    }


def question_of(body: Mapping[str, Any]) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return user.split("QUESTION:\n", 1)[1].split("\n\n", 1)[0]


class OracleServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, replies: Mapping[str, Any], delay: float, hold_after: int | None = None,
                 models: tuple[str, ...] | None = None, hold: frozenset[str] = frozenset(),
                 slots: int | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.slots = slots
        self.in_flight = self.most_in_flight = 0
        self.hold = hold
        self.models = models
        self.replies = dict(replies)
        self.delay = delay
        self.requests: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.hold_after = hold_after
        self.release = threading.Event()
        self.held = 0
        self._changed = threading.Condition(self.lock)

    def wait_held(self, count: int, timeout: float = 30) -> bool:
        """Block until ``count`` requests are being held; True when they are."""
        with self._changed:
            return self._changed.wait_for(lambda: self.held >= count, timeout)

    def arrived(self, question: str) -> bool:
        """Count a request; True when it must be held."""
        with self._changed:
            self.requests[question] += 1
            hold = (self.hold_after is not None and sum(self.requests.values()) > self.hold_after
                    or question in self.hold)
            if hold and not self.release.is_set():
                self.held += 1
                self._changed.notify_all()
            return hold

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: OracleServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        if self.path == "/props" and self.server.slots:
            self._send(200, {"default_generation_settings": {"n_ctx": 32768}, "total_slots": self.server.slots})
        elif self.server.models is None:
            self.send_error(501)
        elif self.path.endswith("/models"):
            self._send(200, {"object": "list", "data": [{"id": name, "object": "model"} for name in self.server.models]})
        elif self.path.endswith("/api/tags"):
            self._send(200, {"models": [{"name": name} for name in self.server.models]})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        question = question_of(body)
        with self.server.lock:
            self.server.in_flight += 1
            self.server.most_in_flight = max(self.server.most_in_flight, self.server.in_flight)
        try:
            self._answer(question)
        finally:
            with self.server.lock:
                self.server.in_flight -= 1

    def _answer(self, question: str) -> None:
        if self.server.arrived(question):
            self.server.release.wait()
        if self.server.delay:
            time.sleep(self.server.delay)
        reply = self.server.replies.get(question)
        if isinstance(reply, list):  # a sequence: the Nth request for the question gets the Nth reply, cycling
            with self.server.lock:
                reply = reply[(self.server.requests[question] - 1) % len(reply)]
        if isinstance(reply, int):
            self._send(reply, {"error": {"message": f"scripted failure {reply}"}})
            return
        content = json.dumps(reply if reply is not None else judgement(("unknown", "unsupported", [])))
        if self.path.endswith("/api/chat"):
            self._send(200, {"message": {"role": "assistant", "content": content}, "done": True, "done_reason": "stop"})
        else:
            self._send(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                          "finish_reason": "stop"}]})

    def _send(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # a held request whose client was killed or cancelled meanwhile


@contextmanager
def oracle_server(replies: Mapping[str, Any], *, delay: float = 0.0, hold_after: int | None = None,
                  models: tuple[str, ...] | None = None, hold: frozenset[str] = frozenset(),
                  slots: int | None = None) -> Iterator[OracleServer]:
    server = OracleServer(replies, delay, hold_after, models, hold, slots)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()  # no handler thread stays blocked
        server.shutdown()
        server.server_close()

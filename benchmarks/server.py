"""A loopback OpenAI-compatible server for the benchmarks: one fixed reply, an optional delay, keep-alive.

Stdlib only, so it runs under either virtual environment; started as its own process so its work never
shares the measured process's GIL. ``python server.py [--delay S]`` prints the port, then serves until killed.

The reply carries the same judgement both as ``message.content`` (what answerlens reads, JSON-schema mode)
and as a tool call (what upstream's instructor client reads in its default tools mode): one byte-identical
body for both libraries, so neither is served less or parsed less.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

# Valid for every benchmark bundle: each has at least m1..m3.
JUDGEMENT: dict[str, Any] = {
    "requirements": [
        {"requirement": "Which database the API uses", "status": "supported", "evidence_refs": ["m1"],
         "explanation": "m1 names the database."},
        {"requirement": "Which cache the API uses", "status": "supported", "evidence_refs": ["[m2]", "m3"],
         "explanation": "m2 and m3 name the cache."},
        {"requirement": "Who owns the API", "status": "unsupported", "evidence_refs": [],
         "explanation": "No record names an owner."},
    ],
    "reasoning": "Database and cache are stated; the owner is not.",
}
TOOL_NAME = "_RawAssessment"
"""The name instructor gives upstream's response model; it checks the tool call carries it."""


def reply_body(judgement: dict[str, Any]) -> bytes:
    content = json.dumps(judgement)
    message = {
        "role": "assistant",
        "content": content,
        "tool_calls": [{"id": "call_0", "type": "function", "function": {"name": TOOL_NAME, "arguments": content}}],
    }
    completion = {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": "bench",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
    return json.dumps(completion).encode()


def response_bytes(body: bytes) -> bytes:
    head = (f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: keep-alive\r\n\r\n")
    return head.encode() + body


def huge_judgement(megabytes: int) -> dict[str, Any]:
    """The usual judgement with a reasoning string of about ``megabytes`` MB: a hostile, oversized reply."""
    return {**JUDGEMENT, "reasoning": "x" * (megabytes * 1024 * 1024)}


MODELS = response_bytes(json.dumps({"object": "list", "data": [{"id": "bench", "object": "model"}]}).encode())
"""``GET /v1/models``, answered at once: a trial's preflight lists the models (only completions take ``delay``)."""
NOT_FOUND = (b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 2\r\n"
             b"connection: keep-alive\r\n\r\n{}")


async def serve(delay: float, port: int, reply_mb: int = 0) -> None:
    response = response_bytes(reply_body(huge_judgement(reply_mb) if reply_mb else JUDGEMENT))

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                if length:
                    await reader.readexactly(length)
                if head.startswith(b"GET "):
                    writer.write(MODELS if head.split(b" ", 2)[1].endswith(b"/models") else NOT_FOUND)
                    await writer.drain()
                    continue
                if delay:
                    await asyncio.sleep(delay)
                writer.write(response)
                await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, limit=1 << 20, backlog=256)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait before each reply")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--reply-mb", type=int, default=0, help="answer with a reply of about this many MB")
    args = parser.parse_args()
    try:
        asyncio.run(serve(args.delay, args.port, args.reply_mb))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()

"""The plain-http transport on real loopback servers: keep-alive reuse up to the pool size, a connection the
server dropped while idle retried on a fresh one, chunked and gzip bodies, and httpx's own path kept for httpx."""

from __future__ import annotations

import asyncio
import gzip
import json

import httpx

from answerlens import AnswerabilityEvaluator
from answerlens.providers.transport import PlainHttpTransport
from tests.providers.test_http import BUNDLE, QUESTION, VALID, config
from tests.scripted_server import Reply, ScriptedServer, openai_chat


async def test_sequential_calls_reuse_one_connection(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/v1/chat/completions", openai_chat(VALID))
    async with AnswerabilityEvaluator(config(scripted_server), connections=4) as evaluator:
        for _ in range(3):
            await evaluator.assess(QUESTION, BUNDLE)
    assert len({request.client_port for request in scripted_server.requests}) == 1
    assert "accept-encoding" not in {name.lower() for name in scripted_server.requests[0].headers}


async def test_concurrent_calls_open_at_most_the_pool_size(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/v1/chat/completions", openai_chat(VALID, delay=0.05))
    async with AnswerabilityEvaluator(config(scripted_server), connections=3) as evaluator:
        await asyncio.gather(*(evaluator.assess(QUESTION, BUNDLE) for _ in range(9)))
    assert len({request.client_port for request in scripted_server.requests}) == 3


async def test_a_connection_closed_while_idle_is_replaced(scripted_server: ScriptedServer) -> None:
    body = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": VALID},
                                    "finish_reason": "stop"}]}).encode()
    scripted_server.script("/v1/chat/completions", Reply(body=body, headers=(("Connection", "close"),)))
    scripted_server.always("/v1/chat/completions", openai_chat(VALID))
    async with AnswerabilityEvaluator(config(scripted_server)) as evaluator:
        first = await evaluator.assess(QUESTION, BUNDLE)
        second = await evaluator.assess(QUESTION, BUNDLE)
    assert first.evaluation_id == second.evaluation_id
    assert len({request.client_port for request in scripted_server.requests}) == 2


async def test_chunked_and_gzip_bodies_through_httpx_and_directly(scripted_server: ScriptedServer) -> None:
    data = json.dumps({"data": [{"id": "m"}]}).encode()
    scripted_server.always("/v1/models", Reply(body=gzip.compress(data), headers=(("Content-Encoding", "gzip"),)))
    scripted_server.script("/v1/chunked", Reply(stream=lambda: [data[:10], data[10:]]))
    transport = PlainHttpTransport(2)
    async with httpx.AsyncClient(transport=transport) as client:
        assert (await client.get(f"{scripted_server.base_url}/models")).json() == {"data": [{"id": "m"}]}
        assert (await client.get(f"{scripted_server.base_url}/chunked")).content == data
        async with transport.stream("GET", f"{scripted_server.base_url}/models", headers={}, payload=None,
                                    timeout=httpx.Timeout(5)) as response:
            assert response.status_code == 200
            assert b"".join([piece async for piece in response.aiter_bytes()]) == data

"""The HTTP seam on 127.0.0.1: one httpx client with its pool kept alive, hostile servers (redirects, huge and
inflating bodies, slow drips), every failure mapped to a named, actionable error, and keys that must never leave
the process in any escaped form. A failure is always an error, never a verdict."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import ssl
import tracemalloc
from typing import Any

import httpx
import pytest

from answerlens import (
    AnswerabilityConfig,
    AnswerabilityError,
    AnswerabilityEvaluator,
    load_bundle,
)
from answerlens.providers import http
from answerlens.providers.preflight import list_models
from tests.paths import PRME
from tests.providers import helpers as shared
from tests.providers.helpers import MB, gzip_bomb, zeros
from tests.scripted_server import (
    Reply,
    ScriptedServer,
    closed_port,
    json_reply,
    ollama_chat,
    openai_chat,
)

BUNDLE = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
QUESTION = "What cache does the dashboard API use?"
VALID = json.dumps({"requirements": [{"requirement": "Cache", "status": "supported", "evidence_refs": ["m1"],
                                      "explanation": "m1 names Redis."}], "reasoning": "Stated."})


def config(server: ScriptedServer, provider: str = "openai", **overrides: Any) -> AnswerabilityConfig:
    settings: dict[str, Any] = {"max_retries": 0, "timeout": 5, **overrides}
    return AnswerabilityConfig(provider=provider, model="m", base_url=server.base_url, **settings)


async def assess(cfg: AnswerabilityConfig) -> AnswerabilityError:
    async with AnswerabilityEvaluator(cfg) as evaluator:
        with pytest.raises(AnswerabilityError) as info:
            await evaluator.assess(QUESTION, BUNDLE)
    return info.value


@pytest.mark.parametrize("status", [pytest.param(code, id=str(code)) for code in (301, 302, 303, 307, 308)])
async def test_a_redirect_with_a_reply_body_is_an_error_not_a_verdict(scripted_server: ScriptedServer,
                                                                      status: int) -> None:
    body = json.loads(openai_chat(VALID).body)
    scripted_server.script("/v1/chat/completions", Reply(status=status, body=json.dumps(body).encode(),
                                                         headers=(("Location", "http://127.0.0.1:1/v1"),)))
    error = await assess(config(scripted_server))
    assert error.kind == "redirect"
    assert f"HTTP {status}" in str(error) and "does not follow redirects" in str(error)
    assert len(scripted_server.requests) == 1  # not followed


async def test_a_huge_body_stops_at_the_cap(scripted_server: ScriptedServer) -> None:
    total = 64 * MB
    scripted_server.script("/v1/chat/completions", Reply(stream=lambda: zeros(total)))
    error = await assess(config(scripted_server, max_reply_bytes=1 * MB))
    assert error.kind == "reply_too_large" and "1 MB" in str(error)
    assert scripted_server.sent < total  # the client hung up long before the end


async def test_a_small_gzip_that_inflates_past_the_cap_is_refused(scripted_server: ScriptedServer) -> None:
    bomb = gzip.compress(b" " * (40 * MB), compresslevel=9)
    assert len(bomb) < MB // 4
    scripted_server.script("/v1/chat/completions", Reply(body=bomb, headers=(("Content-Encoding", "gzip"),)))
    error = await assess(config(scripted_server, max_reply_bytes=2 * MB))
    assert error.kind == "reply_too_large"


async def test_a_gzip_bomb_inflates_in_bounded_steps(scripted_server: ScriptedServer) -> None:
    # 100 MiB in ~100 KB: decoded in one call per network chunk it would hold ~64 MiB at once.
    scripted_server.script("/v1/chat/completions", Reply(body=gzip_bomb(100), headers=(("Content-Encoding", "gzip"),)))
    tracemalloc.start()
    try:
        error = await assess(config(scripted_server, max_reply_bytes=MB))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert error.kind == "reply_too_large"
    assert peak < 8 * MB


async def test_a_body_that_does_not_decode_is_a_bad_body(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/v1/chat/completions", Reply(body=b"not gzip at all",
                                                         headers=(("Content-Encoding", "gzip"),)))
    error = await assess(config(scripted_server))
    assert error.kind == "bad_body" and "gzip" in str(error)


async def test_a_slow_drip_meets_the_whole_call_deadline(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/v1/chat/completions", Reply(stream=lambda: zeros(10 * MB, chunk=1), drip=0.05))
    error = await assess(config(scripted_server, timeout=1.0))
    assert error.kind == "timeout"


async def test_ok_json_at_a_2xx_status_other_than_200_is_read(scripted_server: ScriptedServer) -> None:
    body = json.loads(openai_chat(VALID).body)
    scripted_server.script("/v1/chat/completions", json_reply(body, status=203))
    async with AnswerabilityEvaluator(config(scripted_server)) as evaluator:
        assessment = await evaluator.assess(QUESTION, BUNDLE)
    assert assessment.verdict.value == "answerable"


async def test_sequential_calls_reuse_one_connection(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/v1/chat/completions", openai_chat(VALID))
    async with AnswerabilityEvaluator(config(scripted_server), connections=4) as evaluator:
        for _ in range(3):
            await evaluator.assess(QUESTION, BUNDLE)
    assert len({request.client_port for request in scripted_server.requests}) == 1


async def test_concurrent_calls_open_at_most_the_pool_size(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/v1/chat/completions", openai_chat(VALID, delay=0.05))
    async with AnswerabilityEvaluator(config(scripted_server), connections=3) as evaluator:
        await asyncio.gather(*(evaluator.assess(QUESTION, BUNDLE) for _ in range(9)))
    assert len({request.client_port for request in scripted_server.requests}) == 3


async def test_the_whole_pool_stays_alive_between_bursts(scripted_server: ScriptedServer) -> None:
    # A trial at concurrency 24 keeps its 24 connections; httpx's default pool keeps 20 and reconnects the rest.
    scripted_server.always("/v1/chat/completions", openai_chat(VALID, delay=0.1))
    async with AnswerabilityEvaluator(config(scripted_server), connections=24) as evaluator:
        for _ in range(2):
            await asyncio.gather(*(evaluator.assess(QUESTION, BUNDLE) for _ in range(24)))
    assert len({request.client_port for request in scripted_server.requests}) == 24


async def test_a_connection_closed_while_idle_is_replaced(scripted_server: ScriptedServer) -> None:
    body = json.loads(openai_chat(VALID).body)
    scripted_server.script("/v1/chat/completions", Reply(body=json.dumps(body).encode(),
                                                         headers=(("Connection", "close"),)))
    scripted_server.always("/v1/chat/completions", openai_chat(VALID))
    async with AnswerabilityEvaluator(config(scripted_server)) as evaluator:
        first = await evaluator.assess(QUESTION, BUNDLE)
        second = await evaluator.assess(QUESTION, BUNDLE)
    assert first.evaluation_id == second.evaluation_id
    assert len({request.client_port for request in scripted_server.requests}) == 2


async def test_chunked_and_gzip_replies_are_read(scripted_server: ScriptedServer) -> None:
    body = openai_chat(VALID).body
    scripted_server.script("/v1/chat/completions", Reply(stream=lambda: [body[:10], body[10:]]))
    scripted_server.script("/v1/chat/completions", Reply(body=gzip.compress(body),
                                                         headers=(("Content-Encoding", "gzip"),)))
    async with AnswerabilityEvaluator(config(scripted_server)) as evaluator:
        chunked = await evaluator.assess(QUESTION, BUNDLE)
        gzipped = await evaluator.assess(QUESTION, BUNDLE)
    assert chunked.verdict.value == gzipped.verdict.value == "answerable"


async def test_only_the_encodings_we_decode_are_asked_for(scripted_server: ScriptedServer,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # httpx asks for br and zstd too when brotli or zstandard happen to be installed; our decoder reads neither.
    monkeypatch.setattr(httpx._client, "ACCEPT_ENCODING", "gzip, deflate, br, zstd")
    scripted_server.script("/v1/chat/completions", openai_chat(VALID))
    async with AnswerabilityEvaluator(config(scripted_server)) as evaluator:
        await evaluator.assess(QUESTION, BUNDLE)
    assert scripted_server.requests[0].header("Accept-Encoding") == "gzip, deflate"


async def test_a_plain_http_loopback_client_loads_no_certificates(monkeypatch: pytest.MonkeyPatch) -> None:
    def load_certificates(*args: object, **kwargs: object) -> ssl.SSLContext:
        raise AssertionError("the CA bundle was loaded")

    http._ssl_context.cache_clear()
    monkeypatch.setattr(httpx, "create_ssl_context", load_certificates)
    local = AnswerabilityConfig(provider="openai", model="m", base_url="http://127.0.0.1:1/v1")
    async with http.make_client(local, 5.0):
        pass
    remote = AnswerabilityConfig(provider="openai", model="m", base_url="https://api.example.com/v1")
    with pytest.raises(AssertionError, match="CA bundle"):
        http.make_client(remote, 5.0)
    http._ssl_context.cache_clear()


async def test_a_gzip_body_is_capped_by_its_decoded_size(scripted_server: ScriptedServer) -> None:
    # 1.5 MB decoded, a few KB on the wire: the cap counts what the body inflates to.
    body = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": VALID},
                                    "finish_reason": "stop"}], "padding": " " * (3 * MB // 2)}).encode()
    scripted_server.script("/v1/chat/completions", Reply(body=gzip.compress(body),
                                                         headers=(("Content-Encoding", "gzip"),)))
    assert len(gzip.compress(body)) < MB // 8
    error = await assess(config(scripted_server, max_reply_bytes=MB))
    assert error.kind == "reply_too_large"


# --- The API key goes only into its header; a loopback server is reached directly -------------------------


@pytest.mark.parametrize("provider", ["ollama", "openai"])
async def test_api_key_only_in_the_authorization_header(scripted_server: ScriptedServer, provider: str,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    scripted_server.script(shared.CHAT[provider], shared.chat_reply(provider, shared.VALID))
    cfg = shared.config(scripted_server, provider)

    assessment = await shared.assess(cfg)

    (request,) = scripted_server.requests
    assert request.header("Authorization") == f"Bearer {shared.SECRET}"
    assert shared.SECRET.encode() not in request.body
    others = {key: value for key, value in request.headers.items() if key.lower() != "authorization"}
    assert shared.SECRET not in json.dumps(others)
    assert shared.SECRET not in assessment.model_dump_json()
    assert shared.SECRET not in repr(cfg) and shared.SECRET not in str(cfg.public_dump())
    assert shared.SECRET not in caplog.text
    assert caplog.records  # the log was captured, so its silence about the key means something


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy", "ALL_PROXY"])
async def test_environment_proxy_is_not_used_for_a_loopback_server(
    scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, variable: str,
) -> None:
    # The proxy points nowhere; reaching the scripted server proves the request went direct.
    monkeypatch.setenv(variable, f"http://127.0.0.1:{closed_port()}")
    scripted_server.script("/api/chat", ollama_chat(shared.VALID))
    scripted_server.always("/api/tags", json_reply({"models": [{"name": shared.MODEL}]}))
    assert (await shared.assess(shared.config(scripted_server))).verdict.value == "answerable"
    assert await list_models(shared.config(scripted_server)) == [shared.MODEL]


async def test_no_authorization_header_without_a_key(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/api/chat", ollama_chat(shared.VALID))
    await shared.assess(shared.config(scripted_server, api_key=None))
    assert scripted_server.requests[0].header("Authorization") is None



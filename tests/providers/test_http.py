"""The HTTP seam against hostile servers on 127.0.0.1: redirects, huge and inflating bodies, slow drips, and
keys that must never leave the process in any escaped form. A failure is always an error, never a verdict."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import SecretStr

from answerlens import AnswerabilityConfig, AnswerabilityError, AnswerabilityEvaluator, load_bundle
from answerlens.providers.ask import REASK_ECHO_CHARS
from answerlens.providers.http import secret_forms
from answerlens.providers.preflight import preflight
from tests.paths import PRME
from tests.scripted_server import Reply, ScriptedServer, json_reply, ollama_chat, openai_chat, openai_error

BUNDLE = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
QUESTION = "What cache does the dashboard API use?"
VALID = json.dumps({"requirements": [{"requirement": "Cache", "status": "supported", "evidence_refs": ["m1"],
                                      "explanation": "m1 names Redis."}], "reasoning": "Stated."})
MB = 1024 * 1024


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


def zeros(total: int, chunk: int = 64 * 1024) -> Iterator[bytes]:
    sent = 0
    while sent < total:
        piece = min(chunk, total - sent)
        sent += piece
        yield b" " * piece


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


async def test_a_slow_drip_meets_the_whole_call_deadline(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/v1/chat/completions", Reply(stream=lambda: zeros(10 * MB, chunk=1), drip=0.05))
    error = await assess(config(scripted_server, timeout=1.0))
    assert error.kind == "timeout"


@pytest.mark.parametrize(
    "field, value",
    [
        pytest.param("requirement", "   ", id="blank_requirement"),
        pytest.param("explanation", "\n\t", id="blank_explanation"),
        pytest.param("reasoning", " ", id="blank_reasoning"),
        pytest.param("status", " supported ", id="padded_status"),
    ],
)
async def test_whitespace_only_texts_are_reasked_then_refused(scripted_server: ScriptedServer, field: str,
                                                              value: str) -> None:
    reply = json.loads(VALID)
    if field == "reasoning":
        reply["reasoning"] = value
    else:
        reply["requirements"][0][field] = value
    scripted_server.always("/api/chat", ollama_chat(json.dumps(reply)))
    error = await assess(config(scripted_server, provider="ollama", max_retries=1))
    assert error.kind == "schema"
    assert len(scripted_server.requests) == 2  # asked, re-asked once, then an error


async def test_a_reask_echoes_only_an_excerpt_of_a_huge_invalid_reply(scripted_server: ScriptedServer) -> None:
    huge = json.dumps({"requirements": [], "reasoning": "x" * (2 * MB)})
    scripted_server.script("/api/chat", ollama_chat(huge))
    scripted_server.script("/api/chat", ollama_chat(VALID))
    async with AnswerabilityEvaluator(config(scripted_server, provider="ollama", max_retries=1)) as evaluator:
        assessment = await evaluator.assess(QUESTION, BUNDLE)
    assert assessment.verdict.value == "answerable"
    first, second = scripted_server.requests
    echoed = second.json["messages"][2]
    assert echoed["role"] == "assistant"
    assert len(echoed["content"]) < REASK_ECHO_CHARS + 100 and "more characters not repeated" in echoed["content"]
    assert len(second.body) < len(first.body) + 10_000


async def test_preflight_listing_is_capped_too(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/api/tags", Reply(stream=lambda: zeros(64 * MB)))
    result = await preflight(config(scripted_server, provider="ollama"), timeout=5)
    assert result.problem is not None and "larger than" in result.problem
    assert scripted_server.sent < 64 * MB


async def test_preflight_redirect_is_a_problem(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/api/tags", Reply(status=302, body=b'{"models": []}',
                                              headers=(("Location", "https://example.invalid/"),)))
    result = await preflight(config(scripted_server, provider="ollama"), timeout=5)
    assert result.problem is not None and "HTTP 302" in result.problem


async def test_preflight_slow_drip_ends(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/api/tags", Reply(stream=lambda: zeros(MB, chunk=1), drip=0.05))
    result = await preflight(config(scripted_server, provider="ollama"), timeout=0.5)
    assert result.reachable is False and result.problem is not None


KEY = 'sk-a"b\\c/d+e%f&g h'.replace(" ", "_")


@pytest.mark.parametrize("form", [pytest.param(form, id=f"form{index}")
                                  for index, form in enumerate(secret_forms(KEY))])
async def test_the_key_never_comes_back_in_any_escaped_form(scripted_server: ScriptedServer, form: str) -> None:
    scripted_server.always("/v1/chat/completions", openai_error(f"bad key {form} (from {form!r})", 401))
    cfg = config(scripted_server, api_key=SecretStr(KEY))
    error = await assess(cfg)
    text = f"{error} {error!r} {error.raw_excerpt} {error.detail}"
    assert all(shown not in text for shown in secret_forms(KEY))
    assert "***" in text


@pytest.mark.parametrize(
    "key",
    [pytest.param("sk-abc\n", id="newline"), pytest.param("sk-a\r\nb", id="crlf"),
     pytest.param("sk-\tb", id="tab"), pytest.param(" sk-b", id="leading_space"),
     pytest.param("sk-b ", id="trailing_space"), pytest.param("sk-\x7fb", id="delete")],
)
def test_a_key_with_control_characters_or_padding_is_refused_without_printing_it(key: str) -> None:
    with pytest.raises(ValueError) as info:
        AnswerabilityConfig(api_key=SecretStr(key))
    with pytest.raises(ValueError) as plain:
        AnswerabilityConfig(api_key=key)  # type: ignore[arg-type]
    for raised in (info, plain):
        text = f"{raised.value} {raised.value!r}"
        assert key.strip() not in text and repr(key)[1:-1] not in text


def test_secret_forms_cover_raw_repr_json_and_url() -> None:
    forms = set(secret_forms('a"b\\c d'))
    assert {'a"b\\c d', 'a\\"b\\\\c d', "a%22b%5Cc%20d", "a%22b%5Cc+d"} <= forms


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


async def test_a_gzip_body_is_capped_by_its_decoded_size(scripted_server: ScriptedServer) -> None:
    # 1.5 MB decoded, a few KB on the wire: the cap counts what the body inflates to.
    body = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": VALID},
                                    "finish_reason": "stop"}], "padding": " " * (3 * MB // 2)}).encode()
    scripted_server.script("/v1/chat/completions", Reply(body=gzip.compress(body),
                                                         headers=(("Content-Encoding", "gzip"),)))
    assert len(gzip.compress(body)) < MB // 8
    error = await assess(config(scripted_server, max_reply_bytes=MB))
    assert error.kind == "reply_too_large"

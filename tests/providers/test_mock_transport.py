"""The public API driven through ``httpx.MockTransport``, the way httpx documents testing code that uses it: handlers
return ``httpx.Response(200, json=...)`` (a response whose body is already read), and every provider's wire format
works through it — Ollama's native chat, OpenAI chat completions (with its json_schema -> json_object fallback),
llama.cpp's server-sent events — with the body cap still applied, and a handler's failure an ``AnswerabilityError``.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from answerlens import AnswerabilityConfig, AnswerabilityError, AnswerabilityEvaluator, assess_answerability
from answerlens.loading import load_bundle
from tests.providers.helpers import BUNDLE, QUESTION, VALID
from tests.scripted_server import llamacpp_events, pieces, sse_bytes

Handler = Callable[[httpx.Request], httpx.Response]


def ollama_reply(content: str) -> dict[str, Any]:
    return {"model": "m", "message": {"role": "assistant", "content": content}, "done": True,
            "done_reason": "stop", "prompt_eval_count": 321, "eval_count": 54}


def openai_reply(content: str) -> dict[str, Any]:
    return {"id": "c", "object": "chat.completion", "model": "m", "usage": {"prompt_tokens": 3, "completion_tokens": 4},
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}


def config(provider: str, **overrides: Any) -> AnswerabilityConfig:
    base = {"ollama": "http://ollama.test:11434/v1", "openai": "http://api.test/v1",
            "llamacpp": "http://llama.test:8080/v1"}[provider]
    return AnswerabilityConfig(provider=provider, model="m", base_url=base, timeout=5, max_retries=0, **overrides)


async def assess(cfg: AnswerabilityConfig, handler: Handler) -> Any:
    async with AnswerabilityEvaluator(cfg, transport=httpx.MockTransport(handler)) as evaluator:
        return await evaluator.assess(QUESTION, load_bundle(BUNDLE))


async def test_ollama_native_chat_through_a_mock_transport() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=ollama_reply(VALID))

    assessment = await assess(config("ollama"), handler)
    assert assessment.verdict.value == "answerable" and assessment.model_called
    assert [request.url.path for request in seen] == ["/api/chat"]
    body = json.loads(seen[0].content)
    assert body["stream"] is False and body["think"] is False and body["format"]["type"] == "object"


async def test_openai_chat_completions_through_a_mock_transport() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/chat/completions"
        return httpx.Response(200, json=openai_reply(VALID))

    assessment = await assess(config("openai"), handler)
    assert assessment.verdict.value == "answerable"
    assert assessment.provider_metadata is not None and assessment.provider_metadata.response_format == "json_schema"


async def test_openai_falls_back_from_json_schema_to_json_object_through_a_mock_transport() -> None:
    formats: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        kind = json.loads(request.content)["response_format"]["type"]
        formats.append(kind)
        if kind == "json_schema":
            return httpx.Response(400, json={"error": {"message": "response_format json_schema is not supported"}})
        return httpx.Response(200, json=openai_reply(VALID))

    assessment = await assess(config("openai"), handler)
    assert formats == ["json_schema", "json_object"] and assessment.verdict.value == "answerable"
    assert assessment.provider_metadata is not None and assessment.provider_metadata.response_format == "json_object"


async def test_llamacpp_events_through_a_mock_transport() -> None:
    body = b"".join(sse_bytes([*llamacpp_events(pieces(VALID)), "[DONE]"]))

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    assessment = await assess(config("llamacpp"), handler)
    assert assessment.verdict.value == "answerable"


async def test_the_one_shot_helper_and_a_streamed_mock_body_work_too() -> None:
    """A handler may also stream (an async iterator body, not read in advance): both paths read alike."""

    async def chunks() -> Any:
        text = json.dumps(openai_reply(VALID)).encode()
        for start in range(0, len(text), 100):
            yield text[start:start + 100]

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=chunks(), headers={"content-type": "application/json"})

    assessment = await assess(config("openai"), handler)
    assert assessment.verdict.value == "answerable"
    empty = await assess_answerability(QUESTION, {"records": []}, config=config("openai"))
    assert not empty.model_called


@pytest.mark.parametrize("provider", ["ollama", "openai", "llamacpp"])
async def test_the_reply_cap_applies_to_a_pre_read_body(provider: str) -> None:
    padding = " " * (2 * 1024 * 1024)
    reply = {"ollama": ollama_reply, "openai": openai_reply, "llamacpp": openai_reply}[provider](VALID + padding)

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=reply)

    with pytest.raises(AnswerabilityError) as caught:
        await assess(config(provider, max_reply_bytes=1024 * 1024), handler)
    assert caught.value.kind == "reply_too_large" and "larger than 1 MB" in str(caught.value)


async def test_the_reply_cap_applies_to_a_pre_read_compressed_body() -> None:
    """httpx inflates a pre-read body as the response is built; the cap still refuses what it inflated to."""
    packed = gzip.compress(json.dumps(openai_reply(VALID + " " * (4 * 1024 * 1024))).encode())

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=packed, headers={"content-encoding": "gzip",
                                                            "content-type": "application/json"})

    assert len(packed) < 64 * 1024
    with pytest.raises(AnswerabilityError, match="larger than 1 MB") as caught:
        await assess(config("openai", max_reply_bytes=1024 * 1024), handler)
    assert caught.value.kind == "reply_too_large"


@pytest.mark.parametrize("provider", ["ollama", "openai", "llamacpp"])
@pytest.mark.parametrize("raised", [RuntimeError("handler bug"), httpx.StreamConsumed(), TypeError("bad"),
                                    httpx.ConnectError("refused"), httpx.ReadTimeout("slow")],
                         ids=lambda exc: type(exc).__name__)
async def test_a_failing_handler_is_an_answerability_error(provider: str, raised: Exception) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise raised

    with pytest.raises(AnswerabilityError) as caught:
        await assess(config(provider), handler)
    assert type(raised).__name__ in str(caught.value) or caught.value.kind in ("connection_refused", "read_timeout")

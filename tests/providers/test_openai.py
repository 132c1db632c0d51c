"""OpenAI-compatible servers on a real loopback server: the request, and the ``json_object`` fallback."""

from __future__ import annotations

import pytest

from answerlens import AnswerabilityError, AnswerabilityEvaluator
from answerlens.prompts import RESPONSE_SCHEMA, RESPONSE_SCHEMA_NAME, SYSTEM_PROMPT
from tests.providers.helpers import BUNDLE, MODEL, QUESTION, VALID, assert_failure, assess, config
from tests.scripted_server import ScriptedServer, openai_chat, openai_error


async def test_openai_chat_request(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/v1/chat/completions", openai_chat(VALID))
    cfg = config(scripted_server, "openai", seed=3, max_tokens=900, reasoning_effort="low")

    assessment = await assess(cfg)

    (request,) = scripted_server.requests
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    body = request.json
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": RESPONSE_SCHEMA_NAME, "schema": RESPONSE_SCHEMA, "strict": True},
    }
    assert (body["model"], body["temperature"], body["seed"], body["max_tokens"]) == (MODEL, 0.0, 3, 900)
    assert body["reasoning_effort"] == "low"
    assert "think" not in body and "format" not in body
    assert body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert assessment.verdict.value == "answerable"
    assert assessment.provider_metadata.response_format == "json_schema"


async def test_openai_falls_back_to_json_object_and_remembers(scripted_server: ScriptedServer) -> None:
    path = "/v1/chat/completions"
    scripted_server.script(
        path,
        openai_error("response_format type 'json_schema' is not supported by this server", 400,
                     param="response_format"),
        openai_chat(VALID),
        openai_chat(VALID),
    )
    async with AnswerabilityEvaluator(config(scripted_server, "openai")) as evaluator:
        first = await evaluator.assess(QUESTION, BUNDLE)
        second = await evaluator.assess(QUESTION, BUNDLE)

    formats = [request.json["response_format"]["type"] for request in scripted_server.requests_to(path)]
    assert formats == ["json_schema", "json_object", "json_object"]
    assert first.provider_metadata.response_format == "json_object"
    assert second.provider_metadata.response_format == "json_object"


async def test_openai_other_400_is_not_mistaken_for_a_schema_refusal(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/v1/chat/completions",
                           openai_error("This model's maximum context length is 4096 tokens", 400))
    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server, "openai"))
    assert_failure(info.value, "context_too_long", scripted_server.base_url)
    assert "maximum context length" in str(info.value)
    assert len(scripted_server.requests) == 1

"""Ollama's native chat API on a real loopback server: what goes over the wire, and the ``think`` fallback."""

from __future__ import annotations

from typing import Any

import pytest

from answerlens import AnswerabilityEvaluator
from answerlens.prompts import RESPONSE_SCHEMA, SYSTEM_PROMPT
from tests.providers.helpers import BUNDLE, CONTEXT, MODEL, QUESTION, VALID, assess, config
from tests.scripted_server import ScriptedServer, ollama_chat, ollama_error


@pytest.mark.parametrize(
    ("overrides", "think"),
    [
        pytest.param({}, False, id="think_unset_sends_false"),
        pytest.param({"think": True}, True, id="think_configured"),
        pytest.param({"reasoning_effort": "high"}, "high", id="reasoning_effort_level"),
        pytest.param({"reasoning_effort": "none"}, False, id="reasoning_effort_none"),
    ],
)
async def test_ollama_native_chat_request(scripted_server: ScriptedServer, overrides: dict[str, Any],
                                          think: bool | str) -> None:
    scripted_server.script("/api/chat", ollama_chat(VALID))
    cfg = config(scripted_server, seed=7, num_ctx=8192, temperature=0.2, **overrides)

    assessment = await assess(cfg)

    (request,) = scripted_server.requests
    assert (request.method, request.path) == ("POST", "/api/chat")
    body = request.json
    assert body["model"] == MODEL
    assert body["stream"] is False
    assert body["format"] == RESPONSE_SCHEMA
    assert body["think"] == think
    assert body["options"] == {"temperature": 0.2, "seed": 7, "num_ctx": 8192}
    assert body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert body["messages"][1]["role"] == "user"
    assert body["messages"][1]["content"].startswith(f"QUESTION:\n{QUESTION}\n")
    assert body["messages"][1]["content"].endswith(CONTEXT)
    assert assessment.verdict.value == "answerable"
    assert assessment.model_called is True
    metadata = assessment.provider_metadata
    assert (metadata.engine, metadata.base_url, metadata.attempts) == ("ollama", scripted_server.base_url, 1)
    assert (metadata.prompt_tokens, metadata.completion_tokens, metadata.finish_reason) == (321, 54, "stop")


async def test_ollama_options_carry_only_what_is_set(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/api/chat", ollama_chat(VALID))
    await assess(config(scripted_server))
    assert scripted_server.requests[0].json["options"] == {"temperature": 0.0}


async def test_thinking_unsupported_retries_once_without_think_and_remembers(
    scripted_server: ScriptedServer,
) -> None:
    scripted_server.script(
        "/api/chat",
        ollama_error(f'"{MODEL}" does not support thinking', 400),
        ollama_chat(VALID),
        ollama_chat(VALID),
    )
    async with AnswerabilityEvaluator(config(scripted_server)) as evaluator:
        assessment = await evaluator.assess(QUESTION, BUNDLE)
        await evaluator.assess(QUESTION, BUNDLE)

    sent = [request.json for request in scripted_server.requests]
    assert sent[0]["think"] is False
    assert "think" not in sent[1] and "think" not in sent[2]
    assert assessment.verdict.value == "answerable"

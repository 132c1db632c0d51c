"""Asking for a raw assessment: replies parsed once, re-asked on a schema failure, all within one deadline."""

from __future__ import annotations

import json
import time

import pytest

from answerlens import AnswerabilityError, AnswerabilityEvaluator
from answerlens.providers.ask import REASK_ECHO_CHARS
from tests.providers.helpers import (
    BUNDLE,
    CHAT,
    INVALID_STATUS,
    MB,
    QUESTION,
    VALID,
    assert_failure,
    assess,
    chat_reply,
    config,
)
from tests.scripted_server import ScriptedServer, ollama_chat


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(f"<think>\nThe user wants the cache; m1 says Redis.\n</think>\n\n{VALID}", id="think_prefix"),
        pytest.param(f"```json\n{VALID}\n```", id="json_fence"),
        pytest.param(f"<think>hm</think>```json\n{VALID}\n```\n", id="think_then_fence"),
    ],
)
@pytest.mark.parametrize("provider", ["ollama", "openai"])
async def test_reply_wrappers_are_stripped(scripted_server: ScriptedServer, provider: str, content: str) -> None:
    scripted_server.script(CHAT[provider], chat_reply(provider, content))
    assessment = await assess(config(scripted_server, provider))
    assert assessment.verdict.value == "answerable"
    assert assessment.requirements[0].evidence_refs == ("m1",)
    assert assessment.raw_output == json.loads(VALID)


@pytest.mark.parametrize("provider", ["ollama", "openai"])
async def test_schema_violation_is_re_asked_then_raised(scripted_server: ScriptedServer, provider: str) -> None:
    path = CHAT[provider]
    scripted_server.script(path, *[chat_reply(provider, INVALID_STATUS)] * 3, chat_reply(provider, VALID))

    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server, provider, max_retries=2))

    exc = info.value
    assert_failure(exc, "schema", scripted_server.base_url)
    assert "3 attempt(s)" in str(exc)
    assert "$.requirements[0].status" in str(exc)
    assert exc.raw_excerpt == INVALID_STATUS
    requests = scripted_server.requests_to(path)
    assert len(requests) == 3  # the first ask and max_retries=2 re-asks, never a fourth
    assert scripted_server.pending(path) == 1
    re_ask = requests[1].json["messages"]
    assert [message["role"] for message in re_ask] == ["system", "user", "assistant", "user"]
    assert re_ask[2]["content"] == INVALID_STATUS
    assert "$.requirements[0].status: Input should be 'supported', 'unsupported' or 'conflicting'" in (
        re_ask[3]["content"])
    assert len(requests[2].json["messages"]) == 6


async def test_schema_violation_then_valid_reply_succeeds(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/api/chat", ollama_chat("Sure! The cache is Redis."), ollama_chat(VALID))
    assessment = await assess(config(scripted_server, max_retries=1))
    assert assessment.verdict.value == "answerable"
    assert assessment.provider_metadata.attempts == 2
    assert "not JSON" in scripted_server.requests[1].json["messages"][-1]["content"]


async def test_raw_excerpt_is_bounded(scripted_server: ScriptedServer) -> None:
    long_reply = "x" * 5000
    scripted_server.script("/api/chat", ollama_chat(long_reply))
    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server))
    assert info.value.kind == "not_json"
    assert info.value.raw_excerpt == "x" * 500


async def test_server_that_never_answers_meets_the_deadline(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/api/chat", ollama_chat(VALID, delay=30))
    started = time.perf_counter()

    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server, timeout=0.4))

    assert time.perf_counter() - started < 1.0
    assert_failure(info.value, "timeout", scripted_server.base_url)
    assert "within 0.4 s" in str(info.value)
    assert "1 request(s)" in str(info.value)


async def test_timeout_bounds_the_whole_call_including_retries(scripted_server: ScriptedServer) -> None:
    # Each reply alone is well inside the timeout; together the re-asks are not.
    scripted_server.script("/api/chat", *[ollama_chat(INVALID_STATUS, delay=0.2)] * 6)
    started = time.perf_counter()

    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server, timeout=0.5, max_retries=5))

    elapsed = time.perf_counter() - started
    assert_failure(info.value, "timeout", scripted_server.base_url)
    assert 0.5 <= elapsed < 0.9
    assert len(scripted_server.requests) == 3
    assert "3 request(s)" in str(info.value)


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
    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server, max_retries=1))
    assert info.value.kind == "schema"
    assert len(scripted_server.requests) == 2  # asked, re-asked once, then an error


async def test_a_reask_echoes_only_an_excerpt_of_a_huge_invalid_reply(scripted_server: ScriptedServer) -> None:
    huge = json.dumps({"requirements": [], "reasoning": "x" * (2 * MB)})
    scripted_server.script("/api/chat", ollama_chat(huge))
    scripted_server.script("/api/chat", ollama_chat(VALID))
    async with AnswerabilityEvaluator(config(scripted_server, max_retries=1)) as evaluator:
        assessment = await evaluator.assess(QUESTION, BUNDLE)
    assert assessment.verdict.value == "answerable"
    first, second = scripted_server.requests
    echoed = second.json["messages"][2]
    assert echoed["role"] == "assistant"
    assert len(echoed["content"]) < REASK_ECHO_CHARS + 100 and "more characters not repeated" in echoed["content"]
    assert len(second.body) < len(first.body) + 10_000

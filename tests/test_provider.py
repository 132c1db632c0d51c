"""The provider seam, driven through the public API against a real loopback server.

Every case goes over a socket to ``tests.scripted_server``: what we send is read back from the server's
record, and every failure must surface as an ``AnswerabilityError`` that names the server and model, says
what to do, and never carries the API key.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import pytest
from pydantic import SecretStr

from answerlens import AnswerabilityConfig, AnswerabilityError, AnswerabilityEvaluator, assess_answerability
from answerlens.prompts import RESPONSE_SCHEMA, RESPONSE_SCHEMA_NAME, SYSTEM_PROMPT, reply_bound
from answerlens.providers.preflight import list_models
from tests.paths import PRME  # noqa: E402
from tests.scripted_server import (
    FullBacklog,
    Reply,
    ScriptedServer,
    closed_port,
    json_reply,
    ollama_chat,
    ollama_error,
    openai_chat,
    openai_error,
    scripted_server_fixture,  # noqa: F401  (provides the `scripted_server` fixture)
    text_reply,
)

BUNDLE = PRME / "bundles" / "bundle_reader_citations.json"
CONTEXT = (PRME / "bundles" / "rendered_reader_citations.txt").read_text().strip()
QUESTION = "What cache does the dashboard API use?"
MODEL = "qwen3.5:9b"
SECRET = "sk-PLANTED-123"
CHAT = {"ollama": "/api/chat", "openai": "/v1/chat/completions"}

VALID = json.dumps({
    "requirements": [{"requirement": "Cache used by the dashboard API", "status": "supported",
                      "evidence_refs": ["m1"], "explanation": "m1 says the cache was switched to Redis."}],
    "reasoning": "The cache is stated explicitly.",
})
INVALID_STATUS = json.dumps({
    "requirements": [{"requirement": "Cache", "status": "proven", "evidence_refs": ["m1"],
                      "explanation": "m1."}],
    "reasoning": "r",
})


def config(server: ScriptedServer | None, provider: str = "ollama", **overrides: Any) -> AnswerabilityConfig:
    settings: dict[str, Any] = {
        "provider": provider,
        "model": MODEL,
        "base_url": server.base_url if server is not None else None,
        "api_key": SecretStr(SECRET),
        "timeout": 3.0,
        "max_retries": 0,
    }
    settings.update(overrides)
    return AnswerabilityConfig(**settings)


def chat_reply(provider: str, content: str | None, *, finish: str = "stop", delay: float = 0.0) -> Reply:
    if provider == "ollama":
        return ollama_chat(content or "", done_reason=finish, delay=delay)
    return openai_chat(content, finish_reason=finish, delay=delay)


async def assess(cfg: AnswerabilityConfig) -> Any:
    async with AnswerabilityEvaluator(cfg) as evaluator:
        return await evaluator.assess(QUESTION, BUNDLE)


UPSTREAM_SENTENCE = "Answerability assessment failed for provider {provider!r}: "
"""PRME 0.15.0's failure sentence (``AnswerabilityError(f"... {self.config.provider!r}")``); ours follows it."""


def assert_failure(exc: AnswerabilityError, kind: str, base_url: str, model: str = MODEL,
                   provider: str | None = "any") -> None:
    """What every provider failure owes the user. ``provider``: the assessment's provider, which its message
    names first in upstream's words (``any`` accepts each; None: a model listing, which names none)."""
    text = str(exc)
    if provider is None:
        assert not text.startswith("Answerability assessment failed"), text
    elif provider == "any":
        assert any(text.startswith(UPSTREAM_SENTENCE.format(provider=name)) for name in
                   ("ollama", "openai", "llamacpp", "replay")), text
    else:
        assert text.startswith(UPSTREAM_SENTENCE.format(provider=provider)), text
    assert exc.kind == kind, text
    assert base_url in text, text
    assert repr(model) in text, text
    assert exc.remedy and text.endswith(exc.remedy), text
    assert exc.base_url == base_url and exc.model == model
    for where in (text, repr(exc), exc.remedy, exc.raw_excerpt or "", str(exc.__cause__ or "")):
        assert SECRET not in where


# --- What goes over the wire ---------------------------------------------------------------------------


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


async def test_llamacpp_gets_its_own_sampling_options_and_only_it(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/v1/chat/completions", openai_chat(VALID), openai_chat(VALID), openai_chat(VALID))
    await assess(config(scripted_server, "llamacpp"))
    await assess(config(scripted_server, "llamacpp", max_tokens=300))
    await assess(config(scripted_server, "openai"))
    default, bounded, plain = (request.json for request in scripted_server.requests)
    bound = reply_bound(QUESTION)
    assert (default["repeat_penalty"], default["cache_prompt"], default["max_tokens"]) == (1.1, False,
                                                                                           bound.max_tokens)
    assert default["response_format"]["json_schema"]["schema"] == bound.schema() != RESPONSE_SCHEMA
    assert (default["stream"], default["return_progress"]) == (True, True)
    assert bounded["max_tokens"] == 300
    assert not {"repeat_penalty", "cache_prompt", "max_tokens", "stream"} & plain.keys()
    assert plain["response_format"]["json_schema"]["schema"] == RESPONSE_SCHEMA


@pytest.mark.parametrize("finish", ["length", "abort", None])
async def test_llamacpp_any_finish_but_stop_is_truncation(scripted_server: ScriptedServer, finish: str | None) -> None:
    scripted_server.script("/v1/chat/completions", openai_chat(VALID, finish_reason=finish))
    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server, "llamacpp", max_tokens=54))  # the reply used all 54 tokens
    assert_failure(info.value, "truncated", scripted_server.base_url)
    assert "the llama.cpp server at" in str(info.value)


async def test_llamacpp_length_short_of_max_tokens_is_a_full_context(scripted_server: ScriptedServer) -> None:
    # llama.cpp ends with "length" when prompt and reply fill its window, before max_tokens (54 of 300 here).
    scripted_server.script("/v1/chat/completions", openai_chat(VALID, finish_reason="length"))
    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server, "llamacpp", max_tokens=300))
    assert_failure(info.value, "context_too_long", scripted_server.base_url)
    assert "after 54 reply tokens (prompt: 321 tokens)" in str(info.value) and "--ctx" in (info.value.remedy or "")


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


# --- Re-asking on a schema failure -----------------------------------------------------------------------


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


# --- Failures: one kind each, all named and actionable ---------------------------------------------------

HTML = "<html><body><h1>502 Bad Gateway</h1></body></html>"

FAILURES = [
    pytest.param("ollama", [ollama_error(f'model "{MODEL}" not found, try pulling it first', 404)], {},
                 "model_not_found", f"`ollama pull {MODEL}`", 1, id="ollama_404_model_not_found"),
    pytest.param("ollama", [text_reply("404 page not found", 404)], {}, "not_found", "/v1", 1,
                 id="ollama_404_wrong_path"),
    pytest.param("openai", [openai_error(f"The model `{MODEL}` does not exist", 404)], {}, "not_found",
                 "model name", 1, id="openai_404"),
    pytest.param("ollama", [ollama_error(f'"{MODEL}" does not support thinking', 400)], {"think": True},
                 "thinking_unsupported", "think=false", 1, id="thinking_unsupported_when_configured"),
    pytest.param("ollama", [ollama_error(f'"{MODEL}" does not support thinking', 400)] * 2, {},
                 "thinking_unsupported", "does not support thinking", 2,
                 id="thinking_unsupported_even_without_think"),
    pytest.param("ollama", [ollama_error("unauthorized", 401)], {}, "unauthorized", "API key", 1,
                 id="ollama_401"),
    pytest.param("openai", [openai_error("Incorrect API key provided", 401)], {}, "unauthorized", "API key", 1,
                 id="openai_401"),
    pytest.param("openai", [openai_error("forbidden", 403)], {}, "unauthorized", "API key", 1, id="openai_403"),
    pytest.param("openai", [openai_error("Rate limit reached", 429)], {}, "rate_limited", "wait", 1,
                 id="openai_429"),
    pytest.param("openai", [Reply(429, b'{"error": {"message": "slow down"}}', headers=(("Retry-After", "7"),))],
                 {}, "rate_limited", "wait 7 s and retry", 1, id="openai_429_retry_after"),
    pytest.param("ollama", [ollama_error("server busy, please try again", 429)], {}, "rate_limited", "wait", 1,
                 id="ollama_429"),
    pytest.param("ollama", [ollama_error("llama runner process has terminated", 500)], {}, "server_error",
                 "llama runner process has terminated", 1, id="ollama_500"),
    pytest.param("openai", [text_reply("Service Unavailable", 503)], {}, "server_error", "HTTP 503", 1,
                 id="openai_503"),
    pytest.param("ollama", [text_reply(HTML)], {}, "bad_body", "not JSON", 1, id="ollama_html_body"),
    pytest.param("openai", [text_reply(HTML)], {}, "bad_body", "not JSON", 1, id="openai_html_body"),
    pytest.param("openai", [json_reply(["not", "an", "object"])], {}, "bad_body", "not an object", 1,
                 id="openai_json_array_body"),
    pytest.param("ollama", [json_reply({"done": True})], {}, "bad_body", "message.content", 1,
                 id="ollama_no_message"),
    pytest.param("openai", [json_reply({"choices": []})], {}, "bad_body", "choices[0]", 1,
                 id="openai_no_choices"),
    pytest.param("ollama", [ollama_chat("")], {}, "empty_content", "empty content", 1, id="ollama_empty"),
    pytest.param("openai", [openai_chat(None)], {}, "empty_content", "empty content", 1,
                 id="openai_null_content"),
    pytest.param("ollama", [ollama_chat("   \n")] * 2, {"max_retries": 1}, "empty_content", "2 attempt(s)", 2,
                 id="ollama_empty_re_asked"),
    pytest.param("ollama", [ollama_chat('{"requirements": [{"requirement": "Cac', done_reason="length")], {},
                 "truncated", "num_ctx", 1, id="ollama_done_reason_length"),
    pytest.param("openai", [openai_chat('{"requirements": [', finish_reason="length")], {"max_retries": 3},
                 "truncated", "max_tokens", 1, id="openai_finish_reason_length"),
    pytest.param("ollama", [Reply(close=True)], {}, "transport", "RemoteProtocolError", 1,
                 id="connection_dropped"),
]


@pytest.mark.parametrize(("provider", "replies", "overrides", "kind", "mentions", "requests"), FAILURES)
async def test_failure_is_an_actionable_error(
    scripted_server: ScriptedServer, provider: str, replies: list[Reply], overrides: dict[str, Any], kind: str,
    mentions: str, requests: int,
) -> None:
    scripted_server.script(CHAT[provider], *replies)

    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server, provider, **overrides))

    # Every kind starts with PRME's own sentence naming the provider, then our detail and remedy.
    assert_failure(info.value, kind, scripted_server.base_url, provider=provider)
    assert mentions in str(info.value)
    assert len(scripted_server.requests_to(CHAT[provider])) == requests


@pytest.mark.parametrize(
    ("provider", "prose", "remedy"),
    [
        pytest.param("ollama", "Ollama at http://127.0.0.1:{port}/v1 (model 'qwen3.5:9b') is not reachable",
                     "start it with `ollama serve`", id="ollama"),
        pytest.param("openai", "the OpenAI-compatible server at http://127.0.0.1:{port}/v1 (model 'qwen3.5:9b') "
                     "is not reachable", "start the server", id="openai"),
    ],
)
async def test_connection_refused(provider: str, prose: str, remedy: str) -> None:
    port = closed_port()
    base_url = f"http://127.0.0.1:{port}/v1"

    with pytest.raises(AnswerabilityError) as info:
        await assess(config(None, provider, base_url=base_url))

    assert_failure(info.value, "connection_refused", base_url)
    assert str(info.value).startswith(UPSTREAM_SENTENCE.format(provider=provider) + prose.format(port=port))
    assert remedy in info.value.remedy
    assert "recorded response" not in info.value.remedy  # a trial cannot use one; Inspect offers it by a button
    assert info.value.__cause__ is not None  # the httpx error stays chained for debugging


async def test_connect_timeout_on_a_full_backlog() -> None:
    with FullBacklog() as backlog:
        base_url = f"http://127.0.0.1:{backlog.port}/v1"
        started = time.perf_counter()
        with pytest.raises(AnswerabilityError) as info:
            await assess(config(None, base_url=base_url, timeout=0.6))
        elapsed = time.perf_counter() - started

    assert_failure(info.value, "connect_timeout", base_url)
    assert elapsed < 0.6  # connecting may use at most half of the budget


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


# --- The API key ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["ollama", "openai"])
async def test_api_key_only_in_the_authorization_header(scripted_server: ScriptedServer, provider: str,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    scripted_server.script(CHAT[provider], chat_reply(provider, VALID))
    cfg = config(scripted_server, provider)

    assessment = await assess(cfg)

    (request,) = scripted_server.requests
    assert request.header("Authorization") == f"Bearer {SECRET}"
    assert SECRET.encode() not in request.body
    others = {key: value for key, value in request.headers.items() if key.lower() != "authorization"}
    assert SECRET not in json.dumps(others)
    assert SECRET not in assessment.model_dump_json()
    assert SECRET not in repr(cfg) and SECRET not in str(cfg.public_dump())
    assert SECRET not in caplog.text
    assert caplog.records  # the log was captured, so its silence about the key means something


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy", "ALL_PROXY"])
async def test_environment_proxy_is_not_used_for_a_loopback_server(
    scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, variable: str,
) -> None:
    # The proxy points nowhere; reaching the scripted server proves the request went direct.
    monkeypatch.setenv(variable, f"http://127.0.0.1:{closed_port()}")
    scripted_server.script("/api/chat", ollama_chat(VALID))
    scripted_server.always("/api/tags", json_reply({"models": [{"name": MODEL}]}))
    assert (await assess(config(scripted_server))).verdict.value == "answerable"
    assert await list_models(config(scripted_server)) == [MODEL]


async def test_no_authorization_header_without_a_key(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/api/chat", ollama_chat(VALID))
    await assess(config(scripted_server, api_key=None))
    assert scripted_server.requests[0].header("Authorization") is None


ECHOES = [
    pytest.param("openai", openai_error(f"Incorrect API key provided: {SECRET}.", 401), "unauthorized",
                 id="openai_401_echo"),
    pytest.param("ollama", ollama_error(f"bad token {SECRET}", 403), "unauthorized", id="ollama_403_echo"),
    # The key straddles the 200-character cut of the message: no prefix of it may survive either.
    pytest.param("ollama", ollama_error("e" * 195 + SECRET, 500), "server_error", id="echo_across_the_cut"),
    pytest.param("openai", text_reply(f"<html>proxy saw Authorization: Bearer {SECRET}</html>"), "bad_body",
                 id="html_echo"),
    pytest.param("ollama", ollama_chat(f"I know your key: {SECRET}"), "not_json", id="model_text_echo"),
]


@pytest.mark.parametrize(("provider", "reply", "kind"), ECHOES)
async def test_api_key_echoed_by_the_server_is_redacted(
    scripted_server: ScriptedServer, provider: str, reply: Reply, kind: str, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    scripted_server.script(CHAT[provider], reply)

    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server, provider))

    exc = info.value
    assert_failure(exc, kind, scripted_server.base_url)
    assert "***" in (exc.raw_excerpt or "")
    for prefix_length in range(4, len(SECRET) + 1):
        assert SECRET[:prefix_length] not in str(exc)
    assert SECRET not in caplog.text


async def test_api_key_echoed_into_a_valid_reply_never_reaches_the_assessment(
    scripted_server: ScriptedServer,
) -> None:
    echoed = VALID.replace("The cache is stated explicitly.", f"Key {SECRET} seen.")
    scripted_server.script("/api/chat", ollama_chat(echoed))
    assessment = await assess(config(scripted_server))
    assert SECRET not in assessment.model_dump_json()
    assert assessment.reasoning == "Key *** seen."


async def test_placeholder_key_does_not_mangle_our_own_wording() -> None:
    # DESIGN §2 uses api_key="ollama"; the remedy must still say `ollama serve`.
    base_url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(AnswerabilityError) as info:
        await assess(config(None, base_url=base_url, api_key=SecretStr("ollama")))
    assert "start it with `ollama serve`" in str(info.value)


async def test_one_shot_helper_maps_failures_too(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/api/chat", ollama_error("boom", 500))
    with pytest.raises(AnswerabilityError) as info:
        await assess_answerability(QUESTION, BUNDLE, config=config(scripted_server))
    assert_failure(info.value, "server_error", scripted_server.base_url)


async def test_context_too_long_has_its_own_remedy(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/v1/chat/completions", openai_error(
        "request (9542 tokens) exceeds the available context size (4096 tokens), try increasing it", 400))
    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server, "llamacpp"))
    assert_failure(info.value, "context_too_long", scripted_server.base_url)
    assert "--ctx" in (info.value.remedy or "")

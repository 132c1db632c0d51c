"""Every failure mapped to a named, actionable ``AnswerabilityError`` (one kind each), and the API key redacted,
in every escaped form, from whatever a server sends back."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from pydantic import SecretStr

from answerlens import AnswerabilityConfig, AnswerabilityError, assess_answerability
from answerlens.providers.failures import secret_forms
from tests.providers import helpers as shared
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
    text_reply,
)

KEY = 'sk-a"b\\c/d+e%f&g h'.replace(" ", "_")


@pytest.mark.parametrize("form", [pytest.param(form, id=f"form{index}")
                                  for index, form in enumerate(secret_forms(KEY))])
async def test_the_key_never_comes_back_in_any_escaped_form(scripted_server: ScriptedServer, form: str) -> None:
    scripted_server.always("/v1/chat/completions", openai_error(f"bad key {form} (from {form!r})", 401))
    with pytest.raises(AnswerabilityError) as info:
        await shared.assess(shared.config(scripted_server, "openai", api_key=SecretStr(KEY)))
    error = info.value
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


FAILURES = [
    pytest.param("ollama", [ollama_error(f'model "{shared.MODEL}" not found, try pulling it first', 404)], {},
                 "model_not_found", f"`ollama pull {shared.MODEL}`", 1, id="ollama_404_model_not_found"),
    pytest.param("ollama", [text_reply("404 page not found", 404)], {}, "not_found", "/v1", 1,
                 id="ollama_404_wrong_path"),
    pytest.param("openai", [openai_error(f"The model `{shared.MODEL}` does not exist", 404)], {}, "not_found",
                 "model name", 1, id="openai_404"),
    pytest.param("ollama", [ollama_error(f'"{shared.MODEL}" does not support thinking', 400)], {"think": True},
                 "thinking_unsupported", "think=false", 1, id="thinking_unsupported_when_configured"),
    pytest.param("ollama", [ollama_error(f'"{shared.MODEL}" does not support thinking', 400)] * 2, {},
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
    pytest.param("ollama", [text_reply(shared.HTML)], {}, "bad_body", "not JSON", 1, id="ollama_html_body"),
    pytest.param("openai", [text_reply(shared.HTML)], {}, "bad_body", "not JSON", 1, id="openai_html_body"),
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
    scripted_server.script(shared.CHAT[provider], *replies)

    with pytest.raises(AnswerabilityError) as info:
        await shared.assess(shared.config(scripted_server, provider, **overrides))

    # Every kind starts with PRME's own sentence naming the provider, then our detail and remedy.
    shared.assert_failure(info.value, kind, scripted_server.base_url, provider=provider)
    assert mentions in str(info.value)
    assert len(scripted_server.requests_to(shared.CHAT[provider])) == requests


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
        await shared.assess(shared.config(None, provider, base_url=base_url))

    shared.assert_failure(info.value, "connection_refused", base_url)
    assert str(info.value).startswith(shared.UPSTREAM_SENTENCE.format(provider=provider) + prose.format(port=port))
    assert remedy in info.value.remedy
    assert "recorded response" not in info.value.remedy  # a trial cannot use one; Inspect offers it by a button
    assert info.value.__cause__ is not None  # the httpx error stays chained for debugging


async def test_connect_timeout_on_a_full_backlog() -> None:
    with FullBacklog() as backlog:
        base_url = f"http://127.0.0.1:{backlog.port}/v1"
        started = time.perf_counter()
        with pytest.raises(AnswerabilityError) as info:
            await shared.assess(shared.config(None, base_url=base_url, timeout=0.6))
        elapsed = time.perf_counter() - started

    shared.assert_failure(info.value, "connect_timeout", base_url)
    assert elapsed < 0.6  # connecting may use at most half of the budget


ECHOES = [
    pytest.param("openai", openai_error(f"Incorrect API key provided: {shared.SECRET}.", 401), "unauthorized",
                 id="openai_401_echo"),
    pytest.param("ollama", ollama_error(f"bad token {shared.SECRET}", 403), "unauthorized", id="ollama_403_echo"),
    # The key straddles the 200-character cut of the message: no prefix of it may survive either.
    pytest.param("ollama", ollama_error("e" * 195 + shared.SECRET, 500), "server_error", id="echo_across_the_cut"),
    pytest.param("openai", text_reply(f"<html>proxy saw Authorization: Bearer {shared.SECRET}</html>"), "bad_body",
                 id="html_echo"),
    pytest.param("ollama", ollama_chat(f"I know your key: {shared.SECRET}"), "not_json", id="model_text_echo"),
]


@pytest.mark.parametrize(("provider", "reply", "kind"), ECHOES)
async def test_api_key_echoed_by_the_server_is_redacted(
    scripted_server: ScriptedServer, provider: str, reply: Reply, kind: str, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    scripted_server.script(shared.CHAT[provider], reply)

    with pytest.raises(AnswerabilityError) as info:
        await shared.assess(shared.config(scripted_server, provider))

    exc = info.value
    shared.assert_failure(exc, kind, scripted_server.base_url)
    assert "***" in (exc.raw_excerpt or "")
    for prefix_length in range(4, len(shared.SECRET) + 1):
        assert shared.SECRET[:prefix_length] not in str(exc)
    assert shared.SECRET not in caplog.text


async def test_api_key_echoed_into_a_valid_reply_never_reaches_the_assessment(
    scripted_server: ScriptedServer,
) -> None:
    echoed = shared.VALID.replace("The cache is stated explicitly.", f"Key {shared.SECRET} seen.")
    scripted_server.script("/api/chat", ollama_chat(echoed))
    assessment = await shared.assess(shared.config(scripted_server))
    assert shared.SECRET not in assessment.model_dump_json()
    assert assessment.reasoning == "Key *** seen."


async def test_placeholder_key_does_not_mangle_our_own_wording() -> None:
    # DESIGN §2 uses api_key="ollama"; the remedy must still say `ollama serve`.
    base_url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(AnswerabilityError) as info:
        await shared.assess(shared.config(None, base_url=base_url, api_key=SecretStr("ollama")))
    assert "start it with `ollama serve`" in str(info.value)


async def test_one_shot_helper_maps_failures_too(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/api/chat", ollama_error("boom", 500))
    with pytest.raises(AnswerabilityError) as info:
        await assess_answerability(shared.QUESTION, shared.BUNDLE, config=shared.config(scripted_server))
    shared.assert_failure(info.value, "server_error", scripted_server.base_url)

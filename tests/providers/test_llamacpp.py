"""The llama.cpp engine against a loopback server that streams server-sent events as llama.cpp does: the bounded
schema and its max_tokens, the reply assembled from the stream, each stage reported, errors in mid-stream, and a
cancel that hangs up on the server."""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest

from answerlens import AnswerabilityConfig, AnswerabilityError, AnswerabilityEvaluator, load_bundle
from answerlens.prompts import RESPONSE_SCHEMA, reply_bound
from answerlens.providers.engine import CallProgress, Stage
from tests.paths import PRME
from tests.providers import helpers as shared
from tests.scripted_server import (
    PROMPT_TOKENS,
    Reply,
    ScriptedServer,
    llamacpp_events,
    openai_chat,
    openai_error,
    sse,
    sse_bytes,
)

BUNDLE = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
QUESTION = "What cache does the dashboard API use, and who owns it?"
CHAT = "/v1/chat/completions"
VALID = json.dumps({"requirements": [{"requirement": "Cache", "status": "supported", "evidence_refs": ["m1"],
                                      "explanation": "m1 names Redis."}], "reasoning": "Stated."})


def config(server: ScriptedServer, **overrides: Any) -> AnswerabilityConfig:
    settings: dict[str, Any] = {"max_retries": 0, "timeout": 10, "seed": 7, **overrides}
    return AnswerabilityConfig(provider="llamacpp", model="smollm2", base_url=server.base_url, **settings)


def pieces(text: str, size: int = 7) -> list[str]:
    """The text as the tokens a server would stream."""
    return [text[index:index + size] for index in range(0, len(text), size)]


async def assess(cfg: AnswerabilityConfig, progress: list[CallProgress] | None = None) -> Any:
    async with AnswerabilityEvaluator(cfg) as evaluator:
        return await evaluator.assess(QUESTION, BUNDLE, progress=progress.append if progress is not None else None)


async def test_the_bounded_schema_and_its_max_tokens_are_sent(scripted_server: ScriptedServer) -> None:
    scripted_server.script(CHAT, sse(llamacpp_events(pieces(VALID))))
    await assess(config(scripted_server))
    body = scripted_server.requests[0].json
    bound = reply_bound(QUESTION)
    assert bound.requirements == 4  # two clauses, two to spare
    assert body["response_format"]["json_schema"]["schema"] == bound.schema()
    assert body["max_tokens"] == bound.max_tokens
    assert (body["stream"], body["return_progress"], body["stream_options"]) == (True, True, {"include_usage": True})
    assert (body["repeat_penalty"], body["cache_prompt"], body["seed"]) == (1.1, False, 7)


async def test_a_streamed_reply_is_assembled_and_every_stage_reported(scripted_server: ScriptedServer) -> None:
    tokens = pieces(VALID)
    scripted_server.script(CHAT, sse(llamacpp_events(tokens)))
    seen: list[CallProgress] = []
    assessment = await assess(config(scripted_server), seen)
    assert assessment.raw_output_text == VALID and assessment.verdict.value == "answerable"
    meta = assessment.provider_metadata
    assert (meta.prompt_tokens, meta.completion_tokens, meta.finish_reason) == (PROMPT_TOKENS, len(tokens), "stop")
    stages = [progress.stage for progress in seen]
    assert stages[:3] == [Stage.SENT, Stage.SENT, Stage.PROMPT] and stages[-1] == Stage.CHECKING
    assert seen[2].prompt_tokens == PROMPT_TOKENS and seen[2].prompt_done == 0
    generating = [progress for progress in seen if progress.stage == Stage.GENERATING]
    assert generating[0].generated == 0 and generating[0].prompt_done == PROMPT_TOKENS  # the prompt is read
    assert [progress.generated for progress in generating[1:]] == list(range(1, len(tokens) + 1))
    assert {progress.max_tokens for progress in generating} == {reply_bound(QUESTION).max_tokens}
    assert {progress.attempt for progress in seen} == {1}


async def test_streamed_and_whole_replies_give_the_same_assessment(scripted_server: ScriptedServer) -> None:
    scripted_server.script(CHAT, sse(llamacpp_events(pieces(VALID))), openai_chat(VALID))
    streamed, whole = await assess(config(scripted_server)), await assess(config(scripted_server))
    assert streamed.assessment_sha256 == whole.assessment_sha256
    assert streamed.raw_output_sha256 == whole.raw_output_sha256


async def test_a_re_ask_reports_its_attempt(scripted_server: ScriptedServer) -> None:
    scripted_server.script(CHAT, sse(llamacpp_events(pieces('{"requirements": []}'))), sse(llamacpp_events(pieces(VALID))))
    seen: list[CallProgress] = []
    assessment = await assess(config(scripted_server, max_retries=1), seen)
    assert assessment.provider_metadata.attempts == 2
    assert [p.attempt for p in seen if p.stage == Stage.CHECKING] == [1, 2]


@pytest.mark.parametrize(
    "error, kind",
    [
        pytest.param({"code": 400, "message": "request (9542 tokens) exceeds the available context size (8192 "
                      "tokens), try increasing it", "type": "exceed_context_size_error"}, "context_too_long",
                     id="context"),
        pytest.param({"code": 500, "message": "slot failed"}, "server_error", id="server"),
        pytest.param("boom", "server_error", id="bare_text"),
    ],
)
async def test_an_error_event_in_mid_stream_is_mapped(scripted_server: ScriptedServer, error: Any,
                                                      kind: str) -> None:
    scripted_server.script(CHAT, sse([*llamacpp_events([])[:1], {"error": error}], done=False))
    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server))
    assert info.value.kind == kind and info.value.remedy


async def test_a_stream_event_that_is_not_json_is_a_bad_body(scripted_server: ScriptedServer) -> None:
    scripted_server.script(CHAT, sse([*llamacpp_events([])[:1], "{not json"], done=False))
    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server))
    assert info.value.kind == "bad_body" and "not a JSON object" in str(info.value)


async def test_a_stream_past_the_reply_limit_stops_reading(scripted_server: ScriptedServer) -> None:
    scripted_server.script(CHAT, sse(llamacpp_events(["x" * 1000] * 200)))
    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server, max_reply_bytes=64 * 1024))
    assert info.value.kind == "reply_too_large"


async def test_events_split_anywhere_across_chunks_are_assembled(scripted_server: ScriptedServer) -> None:
    events = b"".join(sse_bytes([*llamacpp_events(pieces(VALID)), "[DONE]"])).replace(b"\n", b"\r\n")
    scripted_server.script(CHAT, Reply(content_type="text/event-stream",
                                       stream=lambda: [events[index:index + 5] for index in range(0, len(events), 5)]))
    assert (await assess(config(scripted_server))).raw_output == json.loads(VALID)


async def test_a_gzipped_stream_is_read_and_a_gzip_bomb_in_one_stops_in_bounded_memory(
    scripted_server: ScriptedServer,
) -> None:
    events = b"".join(sse_bytes([*llamacpp_events(pieces(VALID)), "[DONE]"]))
    scripted_server.script(CHAT, Reply(content_type="text/event-stream", body=gzip.compress(events),
                                       headers=(("Content-Encoding", "gzip"),)))
    assert (await assess(config(scripted_server))).verdict.value == "answerable"
    scripted_server.script(CHAT, Reply(content_type="text/event-stream", body=shared.gzip_bomb(100),
                                       headers=(("Content-Encoding", "gzip"),)))
    tracemalloc.start()
    try:
        with pytest.raises(AnswerabilityError) as info:
            await assess(config(scripted_server, max_reply_bytes=shared.MB))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.kind == "reply_too_large"
    assert peak < 8 * shared.MB


async def test_length_at_max_tokens_is_truncation(scripted_server: ScriptedServer) -> None:
    tokens = pieces(VALID)[:5]
    scripted_server.script(CHAT, sse(llamacpp_events(tokens, finish="length")))
    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server, max_tokens=len(tokens)))
    assert info.value.kind == "truncated"


async def test_length_before_max_tokens_means_the_context_is_full(scripted_server: ScriptedServer) -> None:
    scripted_server.script(CHAT, sse(llamacpp_events(pieces(VALID)[:5], finish="length")))
    with pytest.raises(AnswerabilityError) as info:
        await assess(config(scripted_server))
    assert info.value.kind == "context_too_long"
    assert "ran out of context after 5 reply tokens (prompt: 321 tokens)" in str(info.value)


async def test_a_refused_json_schema_falls_back_to_json_object(scripted_server: ScriptedServer) -> None:
    refusal = Reply(status=400, body=json.dumps({"error": {"message": "json_schema not supported"}}).encode())
    scripted_server.script(CHAT, refusal, sse(llamacpp_events(pieces(VALID))))
    assessment = await assess(config(scripted_server))
    first, second = (request.json for request in scripted_server.requests)
    assert first["response_format"]["type"] == "json_schema" and second["response_format"] == {"type": "json_object"}
    assert assessment.provider_metadata.response_format == "json_object"


async def test_cancelling_a_call_hangs_up_on_the_server(scripted_server: ScriptedServer) -> None:
    # The server sends the prompt progress and one token, then waits until the client has been cancelled; the
    # rest it tries to send must hit a closed connection (llama.cpp stops generating when that happens).
    release, hung_up, finished = threading.Event(), threading.Event(), threading.Event()

    def stream() -> Iterator[bytes]:
        head, tail = llamacpp_events(pieces(VALID))[:3], llamacpp_events(pieces(VALID))[3:] * 200
        try:
            yield from sse_bytes(head)
            release.wait(30)
            yield from sse_bytes(tail)
            finished.set()
        finally:
            hung_up.set()

    scripted_server.script(CHAT, Reply(content_type="text/event-stream", stream=stream))
    first_token = asyncio.Event()

    def progress(step: CallProgress) -> None:
        if step.generated >= 1:
            first_token.set()

    async with AnswerabilityEvaluator(config(scripted_server)) as evaluator:
        task = asyncio.create_task(evaluator.assess(QUESTION, BUNDLE, progress=progress))
        await asyncio.wait_for(first_token.wait(), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    release.set()
    assert hung_up.wait(10) and not finished.is_set()


# --- Through the shared loopback configuration (helpers) --------------------------------------------------


async def test_llamacpp_gets_its_own_sampling_options_and_only_it(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/v1/chat/completions", openai_chat(VALID), openai_chat(VALID), openai_chat(VALID))
    await shared.assess(shared.config(scripted_server, "llamacpp"))
    await shared.assess(shared.config(scripted_server, "llamacpp", max_tokens=300))
    await shared.assess(shared.config(scripted_server, "openai"))
    default, bounded, plain = (request.json for request in scripted_server.requests)
    bound = reply_bound(shared.QUESTION)
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
        await shared.assess(shared.config(scripted_server, "llamacpp", max_tokens=54))  # the reply used all 54 tokens
    shared.assert_failure(info.value, "truncated", scripted_server.base_url)
    assert "the llama.cpp server at" in str(info.value)


async def test_llamacpp_length_short_of_max_tokens_is_a_full_context(scripted_server: ScriptedServer) -> None:
    # llama.cpp ends with "length" when prompt and reply fill its window, before max_tokens (54 of 300 here).
    scripted_server.script("/v1/chat/completions", openai_chat(VALID, finish_reason="length"))
    with pytest.raises(AnswerabilityError) as info:
        await shared.assess(shared.config(scripted_server, "llamacpp", max_tokens=300))
    shared.assert_failure(info.value, "context_too_long", scripted_server.base_url)
    assert "after 54 reply tokens (prompt: 321 tokens)" in str(info.value) and "--ctx" in (info.value.remedy or "")


async def test_context_too_long_has_its_own_remedy(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/v1/chat/completions", openai_error(
        "request (9542 tokens) exceeds the available context size (4096 tokens), try increasing it", 400))
    with pytest.raises(AnswerabilityError) as info:
        await shared.assess(shared.config(scripted_server, "llamacpp"))
    shared.assert_failure(info.value, "context_too_long", scripted_server.base_url)
    assert "--ctx" in (info.value.remedy or "")

"""Asking for a raw assessment: build the engine for a configuration, ask, validate, re-ask within a deadline.

The reply is parsed here, once; everything after it (citations, verdict, hashes) works on the parsed reply.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, replace

import httpx

from answerlens.config import AnswerabilityConfig
from answerlens.prompts import RawAssessment, ReplyBound, ReplyError, parse_reply
from answerlens.providers.engine import CallProgress, ChatReply, Engine, ProgressCallback, Stage
from answerlens.providers.failures import Failures
from answerlens.providers.kinds import Wire, provider_kind
from answerlens.providers.llamacpp import LlamaCppEngine
from answerlens.providers.ollama import OllamaEngine
from answerlens.providers.openai import OpenAIEngine
from answerlens.providers.replay import ReplayEngine
from answerlens.recording import Recording


@dataclass(frozen=True)
class RawReply:
    """A validated raw assessment with the exact text it came from."""

    raw: RawAssessment
    text: str
    last: ChatReply
    attempts: int
    latency_ms: float


def make_engine(config: AnswerabilityConfig, client: httpx.AsyncClient, failures: Failures,
                recording: Recording | None = None) -> Engine:
    """The engine for the configured provider kind; the replay kind needs a recording."""
    wire = provider_kind(config.provider).wire
    if wire == Wire.RECORDED:
        if recording is None:
            raise failures.error("no_recording", "the replay provider has no recorded reply",
                                 "pass recording=Recording.of(reply) (CLI: --replay-file RAW.json)")
        return ReplayEngine(recording)
    if wire == Wire.OLLAMA:
        return OllamaEngine(config, client, failures)
    if config.provider == "llamacpp":
        return LlamaCppEngine(config, client, failures)
    return OpenAIEngine(config, client, failures)


async def request_raw_assessment(
    engine: Engine, failures: Failures, system: str, user: str, *, max_retries: int, timeout: float,
    bound: ReplyBound | None = None, progress: ProgressCallback | None = None,
) -> RawReply:
    """Ask, validate, and re-ask at most ``max_retries`` times with the validation error; all within
    ``timeout`` seconds. ``bound`` and ``progress`` go to the engine (see ``Engine``)."""
    started = time.perf_counter()
    calls = _Calls(progress)
    try:
        async with asyncio.timeout(timeout) as deadline:
            return await _ask(engine, failures, system, user, max_retries, started, calls, bound)
    except TimeoutError:
        if not deadline.expired():
            raise
        raise failures.timeout(timeout, calls.requests) from None


@dataclass
class _Calls:
    """How many requests were started, and the caller's progress callback with the attempt filled in."""

    callback: ProgressCallback | None
    requests: int = 0

    def report(self, progress: CallProgress) -> None:
        if self.callback is not None:
            self.callback(replace(progress, attempt=self.requests))


async def _ask(engine: Engine, failures: Failures, system: str, user: str, max_retries: int,
               started: float, calls: _Calls, bound: ReplyBound | None) -> RawReply:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    if isinstance(engine, ReplayEngine):
        max_retries = 0  # a recording says the same thing however often it is asked
    for attempt in range(1, max_retries + 2):
        calls.requests = attempt
        calls.report(CallProgress(Stage.SENT))
        reply = await engine.chat(messages, bound=bound, progress=calls.report)
        calls.report(CallProgress(Stage.CHECKING, prompt_tokens=reply.prompt_tokens,
                                  generated=reply.completion_tokens or 0))
        if reply.finish_reason == "length" or (engine.truncates_unless_stopped and reply.finish_reason != "stop"):
            raise failures.truncated(f"finish reason {reply.finish_reason!r}", reply.text)
        try:
            raw = parse_reply(reply.text)
        except ReplyError as exc:
            if attempt > max_retries:
                raise _reply_failure(failures, exc, reply.text, attempt) from exc
            messages = [*messages, {"role": "assistant", "content": echo_excerpt(reply.text)},
                        {"role": "user", "content": reask_message(exc)}]
            continue
        return RawReply(raw=raw, text=reply.text, last=reply, attempts=attempt,
                        latency_ms=(time.perf_counter() - started) * 1000)
    raise AssertionError("unreachable")


REASK_ECHO_CHARS = 2000
"""How much of an invalid reply is sent back when re-asking: enough to recognise, never the whole of a huge one."""


def echo_excerpt(text: str) -> str:
    if len(text) <= REASK_ECHO_CHARS:
        return text
    return f"{text[:REASK_ECHO_CHARS]}… [{len(text) - REASK_ECHO_CHARS} more characters not repeated]"


def reask_message(exc: ReplyError) -> str:
    return (f"That reply was invalid: {exc.reason[:REASK_ECHO_CHARS]}. Reply again with only a JSON object "
            "matching the schema: requirements (each with requirement, status, evidence_refs, explanation) and "
            "reasoning.")


def _reply_failure(failures: Failures, exc: ReplyError, text: str, attempts: int) -> Exception:
    if exc.kind == "empty":
        return failures.error("empty_content", f"{failures.where} returned empty content ({attempts} attempt(s))",
                              "retry, or use a model that supports structured output", text)
    return failures.error(exc.kind, f"the reply of {failures.where} did not fit the answerability schema after "
                          f"{attempts} attempt(s): {failures.redact(exc.reason)}",
                          "use a larger or instruction-tuned model, or raise max_retries", text)

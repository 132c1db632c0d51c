"""llama.cpp's server (the embedded one, or any ``llama-server``): a bounded schema and a streamed reply.

The bound makes a small model that loops inside the JSON close it anyway; streaming lets the caller see the
prompt being read and the tokens arriving, and hanging up (a cancel, a deadline) stops the generation at once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

import httpx

from answerlens.prompts import ReplyBound
from answerlens.providers.engine import CallProgress, ChatReply, ProgressCallback, Stage
from answerlens.providers.failures import HttpReply
from answerlens.providers.http import as_int, auth_headers, decoded_lines, open_stream, read_whole
from answerlens.providers.openai import OpenAIEngine, rejects_json_schema

LLAMACPP_MAX_TOKENS = 1024
"""Reply limit when neither the configuration nor a bound sets one: a looping small model stops here."""


class LlamaCppEngine(OpenAIEngine):
    """Sends what only llama.cpp understands: ``repeat_penalty`` 1.1 (at 1.0 long prompts looped until the token
    limit), ``cache_prompt: false`` (prompt-cache reuse changed otherwise identical outputs), the bounded schema
    with ``max_tokens`` from its bound, and ``stream`` with ``return_progress``. A server that answers with one
    JSON body instead of events is read as such. Any finish reason but ``stop`` means the JSON was cut short.
    """

    name = "llamacpp"
    truncates_unless_stopped = True

    def _limit(self, bound: ReplyBound | None) -> int:
        return self.config.max_tokens or (bound.max_tokens if bound is not None else LLAMACPP_MAX_TOKENS)

    def _streamed_payload(self, messages: list[dict[str, str]], bound: ReplyBound | None) -> dict[str, Any]:
        payload = self._payload(messages)
        if bound is not None and self.response_format == "json_schema":
            schema = payload["response_format"]["json_schema"]
            schema["schema"] = bound.schema(schema["schema"])  # the chosen prompt's schema, ours or PRME's
        payload |= {"repeat_penalty": 1.1, "cache_prompt": False, "max_tokens": self._limit(bound),
                    "stream": True, "return_progress": True, "stream_options": {"include_usage": True}}
        return payload

    async def chat(self, messages: list[dict[str, str]], *, bound: ReplyBound | None = None,
                   progress: ProgressCallback | None = None) -> ChatReply:
        events = _Events(progress, self._limit(bound))
        events.report(Stage.SENT)
        reply = await self._ask(self._streamed_payload(messages, bound), events)
        if reply is None:
            self.response_format = "json_object"
            reply = await self._ask(self._streamed_payload(messages, bound), events)
        assert reply is not None  # json_object is never refused as a schema
        used = reply.completion_tokens
        if reply.finish_reason == "length" and used is not None and used < events.max_tokens:
            # Stopped short of max_tokens for length: the prompt and the reply filled the context window.
            raise self.failures.error(
                "context_too_long", f"{self.failures.where} ran out of context after {reply.completion_tokens} "
                f"reply tokens (prompt: {reply.prompt_tokens} tokens)",
                "raise the server's context window (`answerlens serve-model --ctx N`), or pack a smaller bundle",
                reply.text)
        return reply

    async def _ask(self, payload: dict[str, Any], events: _Events) -> ChatReply | None:
        """One streamed request; None when the server refuses ``json_schema`` (the caller falls back)."""
        url = f"{self.base_url}/chat/completions"
        async with open_stream(self.client, self.failures, "POST", url, headers=auth_headers(self.config),
                               payload=payload) as response:
            ok = 200 <= response.status_code < 300
            if ok and response.headers.get("content-type", "").startswith("text/event-stream"):
                return await self._read_events(response, events)
            whole = await read_whole(response, self.failures, self.config.reply_limit)
        if self.response_format == "json_schema" and rejects_json_schema(whole):
            return None
        return self._reply(whole)

    async def _read_events(self, response: httpx.Response, events: _Events) -> ChatReply:
        async for line in decoded_lines(response, self.failures, self.config.reply_limit):
            if not line.startswith("data:"):
                continue  # comments, keep-alives, event names
            data = line[len("data:"):].strip()
            if data == "[DONE]":
                break
            events.take(self._event(response, data))
        return ChatReply(text=self.failures.redact("".join(events.parts)), finish_reason=events.finish_reason,
                         prompt_tokens=events.prompt_tokens, completion_tokens=events.completion_tokens,
                         response_format=self.response_format)

    def _event(self, response: httpx.Response, data: str) -> dict[str, Any]:
        try:
            event = json.loads(data)
        except (ValueError, RecursionError):
            event = None
        if not isinstance(event, dict):
            raise self.failures.error("bad_body", f"{self.failures.where} sent a stream event that is not a JSON "
                                      f"object: {self.failures.redact(data)[:200]!r}",
                                      "check that the base URL points at a llama.cpp server's API (…/v1)", data)
        error = event.get("error")
        if error is not None:
            # An error in mid-stream is mapped as the same error before the stream would have been.
            code = as_int(error.get("code")) if isinstance(error, dict) else None
            raise self.failures.status(HttpReply(code or 500, response.headers, data))
        return event


@dataclass
class _Events:
    """What the stream said so far, and the progress it reports."""

    callback: ProgressCallback | None
    max_tokens: int
    parts: list[str] = field(default_factory=list)
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    last: CallProgress | None = None

    def report(self, stage: Stage, **values: Any) -> None:
        base = self.last or CallProgress(stage, max_tokens=self.max_tokens)
        self.last = replace(base, stage=stage, **values)
        if self.callback is not None:
            self.callback(self.last)

    def take(self, event: dict[str, Any]) -> None:
        prompt = event.get("prompt_progress")
        if isinstance(prompt, dict) and as_int(prompt.get("total")) is not None:
            total, done = int(prompt["total"]), as_int(prompt.get("processed")) or 0
            self.prompt_tokens = total
            self.report(Stage.GENERATING if done >= total else Stage.PROMPT, prompt_tokens=total, prompt_done=done)
        usage = event.get("usage")
        if isinstance(usage, dict):
            self.prompt_tokens = as_int(usage.get("prompt_tokens")) or self.prompt_tokens
            self.completion_tokens = as_int(usage.get("completion_tokens"))
        choices = event.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
        delta = choice.get("delta")
        content = delta.get("content") if isinstance(delta, dict) else None
        if isinstance(content, str) and content:
            self.parts.append(content)
            generated = (self.last.generated if self.last is not None else 0) + 1
            self.report(Stage.GENERATING, generated=generated)
        if choice.get("finish_reason") is not None:
            self.finish_reason = str(choice["finish_reason"])

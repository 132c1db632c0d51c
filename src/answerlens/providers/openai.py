"""OpenAI-compatible chat servers (``POST {base_url}/chat/completions``); llama.cpp's server extends this engine."""

from __future__ import annotations

from typing import Any

import httpx

from answerlens.config import AnswerabilityConfig
from answerlens.prompts import ReplyBound, prompt_for
from answerlens.providers.engine import ChatReply, ProgressCallback
from answerlens.providers.failures import Failures, HttpReply, error_text
from answerlens.providers.http import HttpEngine, as_int, auth_headers, json_body, send


class OpenAIEngine(HttpEngine):
    """A strict ``json_schema`` response format, falling back to ``json_object`` (and remembering it) when the
    server rejects ``json_schema``."""

    name = "openai"

    def __init__(self, config: AnswerabilityConfig, client: httpx.AsyncClient, failures: Failures) -> None:
        super().__init__(config, client, failures)
        self.response_format = "json_schema"

    def _payload(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        config = self.config
        payload: dict[str, Any] = {
            "model": config.model,
            "messages": messages,
            "temperature": config.temperature,
        }
        if self.response_format == "json_schema":
            prompt = prompt_for(config.prompt)
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": prompt.schema_name, "schema": prompt.schema, "strict": prompt.strict_schema},
            }
        else:
            payload["response_format"] = {"type": "json_object"}
        if config.seed is not None:
            payload["seed"] = config.seed
        if config.max_tokens is not None:
            payload["max_tokens"] = config.max_tokens
        if config.reasoning_effort is not None:
            payload["reasoning_effort"] = config.reasoning_effort
        return payload

    async def chat(self, messages: list[dict[str, str]], *, bound: ReplyBound | None = None,
                   progress: ProgressCallback | None = None) -> ChatReply:
        url = f"{self.base_url}/chat/completions"
        headers = auth_headers(self.config)
        response = await send(self.client, self.failures, "POST", url, headers=headers,
                              payload=self._payload(messages), max_bytes=self.config.reply_limit)
        if self.response_format == "json_schema" and rejects_json_schema(response):
            self.response_format = "json_object"
            response = await send(self.client, self.failures, "POST", url, headers=headers,
                                  payload=self._payload(messages), max_bytes=self.config.reply_limit)
        return self._reply(response)

    def _reply(self, response: HttpReply) -> ChatReply:
        """A whole (non-streamed) completion body as a reply; any refusal raises ``AnswerabilityError``."""
        data = json_body(response, self.failures)
        try:
            choice = data["choices"][0]
            content = choice["message"].get("content")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise self.failures.body(response, "no choices[0].message") from None
        usage = data.get("usage")
        if not isinstance(usage, dict):
            usage = {}
        return ChatReply(
            text=self.failures.redact(content) if isinstance(content, str) else "",
            finish_reason=choice.get("finish_reason"),
            prompt_tokens=as_int(usage.get("prompt_tokens")),
            completion_tokens=as_int(usage.get("completion_tokens")),
            response_format=self.response_format,
        )


def rejects_json_schema(response: HttpReply) -> bool:
    if response.status_code not in (400, 404, 415, 422, 501):
        return False
    text = error_text(response).lower()
    return "response_format" in text or "json_schema" in text or "schema" in text

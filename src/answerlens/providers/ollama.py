"""Ollama's native chat API: ``POST {root}/api/chat`` with a JSON-schema ``format`` and ``stream: false``."""

from __future__ import annotations

from typing import Any

import httpx

from answerlens.config import AnswerabilityConfig
from answerlens.prompts import ReplyBound, prompt_for
from answerlens.providers.engine import ChatReply, ProgressCallback
from answerlens.providers.failures import Failures, error_text
from answerlens.providers.http import HttpEngine, as_int, auth_headers, json_body, ollama_root, send


class OllamaEngine(HttpEngine):
    """Explicit ``think`` (false unless configured), ``options`` with temperature, seed, num_ctx, num_predict."""

    name = "ollama"

    def __init__(self, config: AnswerabilityConfig, client: httpx.AsyncClient, failures: Failures) -> None:
        super().__init__(config, client, failures)
        self._send_think = True

    def _payload(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        config = self.config
        options: dict[str, Any] = {"temperature": config.temperature}
        if config.seed is not None:
            options["seed"] = config.seed
        if config.num_ctx is not None:
            options["num_ctx"] = config.num_ctx
        if config.max_tokens is not None:
            options["num_predict"] = config.max_tokens
        payload: dict[str, Any] = {
            "model": config.model,
            "messages": messages,
            "stream": False,
            "format": prompt_for(config.prompt).schema,
            "options": options,
        }
        if self._send_think:
            payload["think"] = _think(config)
        return payload

    async def chat(self, messages: list[dict[str, str]], *, bound: ReplyBound | None = None,
                   progress: ProgressCallback | None = None) -> ChatReply:
        assert self.base_url is not None
        url = f"{ollama_root(self.base_url)}/api/chat"
        headers = auth_headers(self.config)
        response = await send(self.client, self.failures, "POST", url, headers=headers,
                              payload=self._payload(messages), max_bytes=self.config.reply_limit)
        if (
            response.status_code == 400
            and "does not support thinking" in error_text(response).lower()
            and self.config.think is None
            and self.config.reasoning_effort is None
        ):
            # We only sent think=false to be explicit; servers that reject the field get it left out.
            self._send_think = False
            response = await send(self.client, self.failures, "POST", url, headers=headers,
                                  payload=self._payload(messages), max_bytes=self.config.reply_limit)
        data = json_body(response, self.failures)
        message = data.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content"), str):
            raise self.failures.body(response, "no message.content")
        return ChatReply(
            text=self.failures.redact(message["content"]),
            finish_reason=data.get("done_reason"),
            prompt_tokens=as_int(data.get("prompt_eval_count")),
            completion_tokens=as_int(data.get("eval_count")),
            response_format="json_schema",
        )


def _think(config: AnswerabilityConfig) -> bool | str:
    if config.think is not None:
        return config.think
    if config.reasoning_effort in ("low", "medium", "high"):
        return config.reasoning_effort
    return False

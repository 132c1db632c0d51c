"""How many tokens an assessment request takes, counted by a llama.cpp server with the model's own tokenizer.

What is counted is what is sent: the system prompt and the user message through the model's chat template
(``/apply-template``; without it, each message alone), the reply schema (its bounded form, as the request carries
it), and the reply bound (``max_tokens``), which the window must also hold.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx

from answerlens.config import AnswerabilityConfig
from answerlens.errors import AnswerabilityError
from answerlens.prompts import prompt_for, reply_bound
from answerlens.providers.http import Failures, auth_headers, json_body, ollama_root, send
from answerlens.providers.llamacpp import LLAMACPP_MAX_TOKENS

MAX_BYTES = 64 * 1024 * 1024
"""Largest token list read back (a 50 MB bundle tokenizes to a few MB of JSON)."""


@dataclass(frozen=True)
class Request:
    """The inputs of one assessment, as the evaluator sends them."""

    question: str
    context: str
    answer: str | None = None


@dataclass(frozen=True)
class RequestSize:
    """Tokens of one request by the model's tokenizer."""

    prompt: int
    """The system prompt and the user message, in the chat template when the server applies it."""
    schema: int
    """The reply schema as sent."""
    reply: int
    """The reply bound (``max_tokens``)."""
    templated: bool
    """Whether the prompt was counted through the server's chat template (else: the two messages alone)."""

    @property
    def total(self) -> int:
        return self.prompt + self.schema + self.reply

    def describe(self) -> str:
        """``9,537 tokens by the model's tokenizer: prompt 8,200, schema 313, reply bound 1,024``."""
        return (f"{self.total:,} tokens by the model's own tokenizer: prompt {self.prompt:,}, schema "
                f"{self.schema:,}, reply bound {self.reply:,}")


async def count(client: httpx.AsyncClient, config: AnswerabilityConfig, failures: Failures,
                request: Request) -> RequestSize | None:
    """The request's size by the server's tokenizer; None when the server has no ``/tokenize`` (not llama.cpp)."""
    assert config.effective_base_url is not None
    root = ollama_root(config.effective_base_url)
    prompt = prompt_for(config.prompt)
    messages = messages_for(config, request)
    bound = reply_bound(*_asked(request))
    try:
        templated = await _post(client, config, failures, f"{root}/apply-template", {"messages": messages})
        text = templated.get("prompt") if templated is not None else None
        if isinstance(text, str):
            prompt_tokens = await _tokens(client, config, failures, root, text)
        else:
            prompt_tokens = sum([await _tokens(client, config, failures, root, m["content"]) for m in messages])
        schema = json.dumps(bound.schema(prompt.schema), separators=(",", ":"))
        schema_tokens = await _tokens(client, config, failures, root, schema)
    except AnswerabilityError:
        return None
    return RequestSize(prompt=prompt_tokens, schema=schema_tokens, reply=reply_tokens(config, request),
                       templated=isinstance(text, str))


def messages_for(config: AnswerabilityConfig, request: Request) -> list[dict[str, str]]:
    """The system prompt and user message an assessment of ``request`` sends."""
    prompt = prompt_for(config.prompt)
    question, answer = _asked(request)
    return [{"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user_message(question, request.context, answer)}]


def reply_tokens(config: AnswerabilityConfig, request: Request) -> int:
    """The reply bound an assessment of ``request`` sends a llama.cpp server (``max_tokens``)."""
    return config.max_tokens or reply_bound(*_asked(request)).max_tokens or LLAMACPP_MAX_TOKENS


def _asked(request: Request) -> tuple[str, str | None]:
    return request.question.strip(), request.answer.strip() if request.answer is not None else None


async def _post(client: httpx.AsyncClient, config: AnswerabilityConfig, failures: Failures, url: str,
                payload: dict[str, Any]) -> dict[str, Any] | None:
    try:
        reply = await send(client, failures, "POST", url, headers=auth_headers(config), payload=payload,
                           max_bytes=MAX_BYTES, deadline=30.0)
        return json_body(reply, failures)
    except AnswerabilityError as exc:
        if exc.kind in ("not_found", "http_error", "server_error"):
            return None  # an endpoint this server does not have
        raise


async def _tokens(client: httpx.AsyncClient, config: AnswerabilityConfig, failures: Failures, root: str,
                  text: str) -> int:
    data = await _post(client, config, failures, f"{root}/tokenize",
                       {"content": text, "add_special": True, "parse_special": True})
    tokens = data.get("tokens") if data is not None else None
    if not isinstance(tokens, list):
        raise failures.error("bad_body", f"{failures.where} did not count tokens", "not a llama.cpp server")
    return len(tokens)

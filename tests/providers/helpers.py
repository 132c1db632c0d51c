"""What the provider tests share: the question and bundle, a configuration for the scripted server, and what every
provider failure owes the user (``assert_failure``).

Every provider test goes over a socket to ``tests.scripted_server``: what we send is read back from the server's
record, and every failure must surface as an ``AnswerabilityError`` that names the server and model, says what to
do, and never carries the API key.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from typing import Any

from pydantic import SecretStr

from answerlens import AnswerabilityConfig, AnswerabilityError, AnswerabilityEvaluator
from tests.paths import PRME
from tests.scripted_server import Reply, ScriptedServer, ollama_chat, openai_chat

BUNDLE = PRME / "bundles" / "bundle_reader_citations.json"
CONTEXT = (PRME / "bundles" / "rendered_reader_citations.txt").read_text().strip()
QUESTION = "What cache does the dashboard API use?"
MODEL = "qwen3.5:9b"
SECRET = "sk-PLANTED-123"
CHAT = {"ollama": "/api/chat", "openai": "/v1/chat/completions"}
MB = 1024 * 1024
HTML = "<html><body><h1>502 Bad Gateway</h1></body></html>"

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


def zeros(total: int, chunk: int = 64 * 1024) -> Iterator[bytes]:
    """``total`` bytes of spaces in chunks: a body as large, and as slow (with a drip), as a test needs."""
    sent = 0
    while sent < total:
        piece = min(chunk, total - sent)
        sent += piece
        yield b" " * piece


def gzip_bomb(megabytes: int) -> bytes:
    """``megabytes`` MiB of spaces gzipped (about 1/1000 of that), compressed without holding the whole."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = b" " * 2**20
    return b"".join(compressor.compress(block) for _ in range(megabytes)) + compressor.flush()

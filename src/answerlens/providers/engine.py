"""What every engine is: one chat call that returns the reply text and what the server said about it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from answerlens.prompts import ReplyBound


@dataclass(frozen=True)
class ChatReply:
    """The text of one completion and what the server reported about it."""

    text: str
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    response_format: str | None = None


class Stage(str, Enum):
    """Where a model call is; only a streaming engine (llama.cpp) reports the stages between sent and checking."""

    SENT = "sent"
    """The request is on its way, or the server has not said anything yet."""
    PROMPT = "prompt"
    """The server is reading the prompt (``prompt_done`` of ``prompt_tokens``)."""
    GENERATING = "generating"
    """The prompt is processed; ``generated`` tokens of at most ``max_tokens`` so far."""
    CHECKING = "checking"
    """The reply is complete and being validated."""


@dataclass(frozen=True)
class CallProgress:
    """How far one model call has got, as the engine and the server report it."""

    stage: Stage
    attempt: int = 1
    prompt_tokens: int | None = None
    prompt_done: int | None = None
    generated: int = 0
    max_tokens: int | None = None


ProgressCallback = Callable[[CallProgress], None]
"""Called from the event loop's thread at each reported step; it must be quick and must not raise."""


class Engine(Protocol):
    """A thin translator between our messages and one wire format.

    ``bound`` limits the reply for servers that enforce the schema as a grammar; ``progress`` receives the stages
    an engine can observe. Engines that can do neither ignore them.
    """

    @property
    def name(self) -> str: ...

    @property
    def base_url(self) -> str | None: ...

    @property
    def truncates_unless_stopped(self) -> bool:
        """Whether any finish reason but ``stop`` means the reply was cut short."""
        ...

    async def chat(self, messages: list[dict[str, str]], *, bound: ReplyBound | None = None,
                   progress: ProgressCallback | None = None) -> ChatReply: ...

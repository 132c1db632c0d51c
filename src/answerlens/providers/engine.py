"""What every engine is: one chat call that returns the reply text and what the server said about it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class ChatReply:
    """The text of one completion and what the server reported about it."""

    text: str
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    response_format: str | None = None


class Engine(Protocol):
    """A thin translator between our messages and one wire format."""

    @property
    def name(self) -> str: ...

    @property
    def base_url(self) -> str | None: ...

    @property
    def truncates_unless_stopped(self) -> bool:
        """Whether any finish reason but ``stop`` means the reply was cut short."""
        ...

    async def chat(self, messages: list[dict[str, str]]) -> ChatReply: ...

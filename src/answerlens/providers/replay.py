"""The replay engine: returns a recorded reply (a demo with no model, or a test); results are labelled recorded."""

from __future__ import annotations

from answerlens.prompts import ReplyBound
from answerlens.providers.engine import ChatReply, ProgressCallback
from answerlens.recording import Recording


class ReplayEngine:
    """Answers every request with the recording; re-asking it is pointless, so it is never re-asked."""

    name = "replay"
    base_url = None
    truncates_unless_stopped = False

    def __init__(self, recording: Recording) -> None:
        self.recording = recording

    @property
    def text(self) -> str:
        return self.recording.text

    async def chat(self, messages: list[dict[str, str]], *, bound: ReplyBound | None = None,
                   progress: ProgressCallback | None = None) -> ChatReply:
        return ChatReply(text=self.recording.text, finish_reason="stop", response_format="recorded")

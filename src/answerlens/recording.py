"""Recorded model replies: the reply text, who wrote it and where it came from, and how a result records it.

A result says whether its reply came from a live call or from a recording as typed data (``ReplyOrigin`` and
``RecordingRef``); nothing downstream parses prose to find out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict

from answerlens.audit import sha256_text

HAND_WRITTEN = "hand-written"
"""The author of a recording that no model produced."""


class ReplyOrigin(str, Enum):
    """Where the reply behind a result came from."""

    LIVE = "live"
    """A model answered this call."""
    RECORDED = "recorded"
    """A recorded reply was replayed; no model was asked."""


class RecordingRef(BaseModel):
    """What a result keeps of the recording it replayed (the reply text itself is ``raw_output_text``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    author: str | None = HAND_WRITTEN
    """``hand-written``, the model that produced the reply, or None when the recording does not say."""
    source: str | None = None
    """Where the recording was read from (a sample or reply file name), for display."""
    source_sha256: str | None = None
    """sha256 of that file's bytes, where there was a file."""

    @property
    def hand_written(self) -> bool:
        return self.author == HAND_WRITTEN

    @property
    def note(self) -> str:
        """One line for people: who wrote the reply, and from where it was read."""
        if self.author is None:
            who = "recorded reply (its author is not stated)"
        elif self.hand_written:
            who = "hand-written recorded reply (not produced by a model)"
        else:
            who = f"recorded reply produced by {self.author}"
        return f"{who}, from {self.source}" if self.source else who


class Recording(BaseModel):
    """A recorded reply to replay, with where it came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    """The reply exactly as recorded."""
    ref: RecordingRef = RecordingRef()

    @classmethod
    def of(cls, reply: str | Mapping[str, Any], *, author: str | None = HAND_WRITTEN, source: str | None = None,
           source_sha256: str | None = None) -> Recording:
        """A recording of reply text, or of a parsed reply (kept as its JSON text, non-ASCII as written)."""
        text = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
        return cls(text=text, ref=RecordingRef(author=author, source=source, source_sha256=source_sha256))

    @property
    def sha256(self) -> str:
        return sha256_text(self.text)

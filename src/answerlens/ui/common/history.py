"""The session's assessment history: every run kept with what is needed to reopen and compare it.

Works on any mutable mapping (``st.session_state`` in the app, a dict in tests).
"""

from __future__ import annotations

import time
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

from answerlens.assessment import AnswerabilityAssessment

HISTORY_KEY = "history.entries"
CURRENT_KEY = "history.current"


@dataclass(frozen=True)
class Entry:
    number: int
    source: str
    """The bundle's name (sample title or file name)."""
    question: str
    assessment: AnswerabilityAssessment
    context: str
    """``render().strip()`` of the bundle assessed, for highlighting when the entry is reopened."""
    label: str
    """``recorded response (hand-written)``, ``live model: …`` or ``no model call …``."""
    note: str | None = None
    seconds: float = 0.0
    created: float = field(default_factory=time.time)

    @property
    def title(self) -> str:
        clock = time.strftime("%H:%M:%S", time.localtime(self.created))
        verdict = self.assessment.verdict.value
        return f"#{self.number} {clock} · {verdict} · {self.source} · {self.label}"


def entries(state: MutableMapping[Any, Any]) -> list[Entry]:
    return list(state.get(HISTORY_KEY, ()))


def add(state: MutableMapping[Any, Any], **fields: Any) -> Entry:
    """Append a new entry, make it the current one, and return it."""
    existing = entries(state)
    entry = Entry(number=len(existing) + 1, **fields)
    state[HISTORY_KEY] = [*existing, entry]
    state[CURRENT_KEY] = entry.number
    return entry


def current(state: MutableMapping[Any, Any]) -> Entry | None:
    return find(state, state.get(CURRENT_KEY))


def find(state: MutableMapping[Any, Any], number: int | None) -> Entry | None:
    for entry in entries(state):
        if entry.number == number:
            return entry
    return None


def select(state: MutableMapping[Any, Any], number: int) -> None:
    if find(state, number) is not None:
        state[CURRENT_KEY] = number

"""The history of assessment runs as the pages see it: every run in the run store (``runs``), numbered, one of
them current in this browser session, each titled by its question for the pickers.

Works on any mutable mapping (``st.session_state`` in the app, a dict in tests); only the current run's number is
kept in it. The runs themselves live on disk, so they survive a reload and a server restart, and a session holds
no assessment or context in memory: an ``Entry`` reads them from the store when they are first used.
"""

from __future__ import annotations

import time
from collections.abc import MutableMapping
from functools import cached_property
from typing import Any

from answerlens.assessment import AnswerabilityAssessment
from answerlens.second_opinion.models import SecondOpinion
from answerlens.ui.common.markup import plain
from answerlens.ui.common.runs import RunStore, StoredRun, default_path

CURRENT_KEY = "history.current"
CURRENT_ID_KEY = "history.current_id"
"""The current run's ``evaluation_id``: a number is reused once the history is cleared, an id is not."""
STORE_KEY = "history.store"
"""A ``RunStore`` to use instead of the default one (tests)."""
TITLE_QUESTION_CHARS = 80


def store(state: MutableMapping[Any, Any]) -> RunStore:
    """The run store: the state's own (tests), else the one in the user's data folder."""
    found = state.get(STORE_KEY)
    return found if isinstance(found, RunStore) else RunStore(default_path())


class Entry:
    """One stored run; the assessment, context and second opinion are read from the store when first used."""

    def __init__(self, run: StoredRun, runs: RunStore) -> None:
        self.run = run
        self._store = runs

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Entry) and other.run == self.run

    def __hash__(self) -> int:
        return hash(self.run)

    def __repr__(self) -> str:
        return f"Entry(#{self.number}, {self.evaluation_id[:12]})"

    number = property(lambda self: self.run.number)
    evaluation_id = property(lambda self: self.run.evaluation_id)
    question = property(lambda self: self.run.question)
    answer = property(lambda self: self.run.answer)
    source = property(lambda self: self.run.source)
    """The bundle's title (sample title or file name)."""
    source_name = property(lambda self: self.run.source_name)
    label = property(lambda self: self.run.label)
    """``recorded response (hand-written)``, ``live model: …`` or ``no model call …``."""
    note = property(lambda self: self.run.note)
    seconds = property(lambda self: self.run.seconds)
    created = property(lambda self: self.run.created)

    @cached_property
    def assessment(self) -> AnswerabilityAssessment:
        return self._store.assessment(self.number)

    @cached_property
    def context(self) -> str:
        """``render().strip()`` of the bundle assessed, for highlighting when the entry is reopened."""
        return self._store.context(self.number)

    @cached_property
    def opinion(self) -> SecondOpinion | None:
        return self._store.opinion(self.number)

    @property
    def title(self) -> str:
        """How pickers name a run: number, time, verdict and the question asked (plain text, neutralised)."""
        clock = time.strftime("%H:%M:%S", time.localtime(self.created))
        question = " ".join(self.question.split())
        if len(question) > TITLE_QUESTION_CHARS:
            question = question[: TITLE_QUESTION_CHARS - 1] + "…"
        return plain(f"#{self.number} {clock} · {self.run.verdict} · {question} · {self.label}")


def entries(state: MutableMapping[Any, Any]) -> list[Entry]:
    """Every stored run, oldest first."""
    runs = store(state)
    return [Entry(run, runs) for run in runs.runs()]


def add(state: MutableMapping[Any, Any], **fields: Any) -> Entry:
    """Store a run (replacing one with the same ``evaluation_id``), make it current, and return it.

    ``fields`` are ``RunStore.add``'s: ``assessment``, ``question``, ``context``, ``source``, ``label`` and
    optionally ``answer``, ``source_name``, ``note``, ``seconds``, ``opinion``, ``created``.
    """
    runs = store(state)
    number = runs.add(**fields)
    found = runs.find(number)
    assert found is not None
    _make_current(state, found)
    return Entry(found, runs)


def current(state: MutableMapping[Any, Any]) -> Entry | None:
    """This session's current run; None once it is gone, even if a later run took its number (after a clear)."""
    entry = find(state, state.get(CURRENT_KEY))
    return entry if entry is not None and entry.evaluation_id == state.get(CURRENT_ID_KEY) else None


def _make_current(state: MutableMapping[Any, Any], run: StoredRun) -> None:
    state[CURRENT_KEY] = run.number
    state[CURRENT_ID_KEY] = run.evaluation_id


def find(state: MutableMapping[Any, Any], number: int | None) -> Entry | None:
    if number is None:
        return None
    runs = store(state)
    found = runs.find(number)
    return Entry(found, runs) if found is not None else None


def by_id(state: MutableMapping[Any, Any], evaluation_id: str) -> Entry | None:
    """The stored run of these inputs (a deep link's ``?run=``), if there is one."""
    runs = store(state)
    found = runs.by_id(evaluation_id)
    return Entry(found, runs) if found is not None else None


def select(state: MutableMapping[Any, Any], number: int) -> None:
    entry = find(state, number)
    if entry is not None:
        _make_current(state, entry.run)


def clear(state: MutableMapping[Any, Any]) -> None:
    """Drop every stored run (for every session: the store is the user's)."""
    store(state).clear()
    state.pop(CURRENT_KEY, None)
    state.pop(CURRENT_ID_KEY, None)

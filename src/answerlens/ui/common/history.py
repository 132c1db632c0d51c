"""The history of assessment runs as the pages see it: every run in the run store (``runs``), numbered, one of
them current in this browser session, each titled by its question for the pickers.

Works on any mutable mapping (``st.session_state`` in the app, a dict in tests); only the current run's number is
kept in it. The runs themselves live on disk, so they survive a reload and a server restart, and a session holds
no assessment or context in memory: an ``Entry`` reads them from the store when they are first used.

The store may fail (a damaged, locked or foreign file, an unreadable run, a run too big to keep): every function
here then carries on without history and keeps the ``RunStoreError`` for the page to show once (``problem``). A
run that cannot be stored stays current in its session, in memory, so its result is still shown and downloadable.
"""

from __future__ import annotations

import time
from collections.abc import MutableMapping
from functools import cached_property
from typing import Any

from answerlens.assessment import AnswerabilityAssessment
from answerlens.errors import RunStoreError
from answerlens.html.escape import plain
from answerlens.run_store import OpenedRun, RunStore, StoredRun, default_path
from answerlens.second_opinion.models import SecondOpinion

CURRENT_KEY = "history.current"
CURRENT_ID_KEY = "history.current_id"
"""The current run's ``evaluation_id``: a number is reused once the history is cleared, an id is not."""
STORE_KEY = "history.store"
"""A ``RunStore`` to use instead of the default one (tests)."""
PROBLEM_KEY = "history.problem"
"""The store's first failure since a page last showed it (``take_problem``)."""
SHOWN_KEY = "history.shown"
"""A failure of the whole file that a notice showed: code that merely adds to the history (a sweep's cell runs)
leaves the store alone until a read of it succeeds again (``skipped``), rather than wait on it and warn twice."""
UNSAVED_KEY = "history.unsaved"
"""The session's current run when it could not be stored (held in memory, number ``UNSAVED``)."""
UNSAVED = 0
"""The number of a run that is not in the store (stored runs are numbered from 1)."""
TITLE_QUESTION_CHARS = 80


def store(state: MutableMapping[Any, Any]) -> RunStore:
    """The run store: the state's own (tests), else the one in the user's data folder."""
    found = state.get(STORE_KEY)
    return found if isinstance(found, RunStore) else RunStore(default_path())


class Entry:
    """One stored run; the assessment, context and second opinion are read from the store, whole and re-derived
    (``RunStore.open``), when first used."""

    def __init__(self, run: StoredRun, runs: RunStore, *, assessment: AnswerabilityAssessment | None = None,
                 context: str | None = None, opinion: SecondOpinion | None = None,
                 opened: OpenedRun | None = None) -> None:
        self.run = run
        self._store = runs
        if assessment is not None:  # a run just made: nothing to read back (another process may replace it)
            opened = OpenedRun(run, assessment, context or "", opinion, ())
        if opened is not None:
            self.__dict__["opened"] = opened

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
    def opened(self) -> OpenedRun:
        return self._store.open(self.number)

    @property
    def assessment(self) -> AnswerabilityAssessment:
        return self.opened.assessment

    @property
    def context(self) -> str:
        """``render().strip()`` of the bundle assessed, for highlighting when the entry is reopened."""
        return self.opened.context

    @property
    def opinion(self) -> SecondOpinion | None:
        return self.opened.opinion

    @property
    def unchecked(self) -> tuple[str, ...]:
        """What reopening could not re-derive (see ``OpenedRun.unchecked``); empty for a run just made."""
        return self.opened.unchecked

    @property
    def stored(self) -> bool:
        """Whether the run is in the store (else it lives only in this session, see ``UNSAVED_KEY``)."""
        return self.number != UNSAVED

    @property
    def title(self) -> str:
        """How pickers name a run: number, time, verdict and the question asked (plain text, neutralised)."""
        clock = time.strftime("%H:%M:%S", time.localtime(self.created))
        question = " ".join(self.question.split())
        if len(question) > TITLE_QUESTION_CHARS:
            question = question[: TITLE_QUESTION_CHARS - 1] + "…"
        number = f"#{self.number}" if self.stored else "not stored"
        return plain(f"{number} {clock} · {self.run.verdict} · {question} · {self.label}")


def problem(state: MutableMapping[Any, Any]) -> RunStoreError | None:
    """The store's failure since it was last shown, if there was one."""
    found = state.get(PROBLEM_KEY)
    return found if isinstance(found, RunStoreError) else None


def take_problem(state: MutableMapping[Any, Any]) -> RunStoreError | None:
    """The store's failure since it was last shown, forgotten (a page shows it once; the next run finds out
    afresh)."""
    found = problem(state)
    state.pop(PROBLEM_KEY, None)
    if found is not None and found.whole_file:
        state[SHOWN_KEY] = found
    return found


def failed(state: MutableMapping[Any, Any], exc: RunStoreError) -> None:
    """Keep the store's failure for the page's notice (``take_problem``)."""
    state.setdefault(PROBLEM_KEY, exc)  # the first failure says what is wrong; later ones follow from it


_failed = failed


def skipped(state: MutableMapping[Any, Any]) -> bool:
    """Whether code that only adds to the history should leave the store alone: it failed as a whole, now or when
    a notice last said so, and no read has succeeded since."""
    return _unusable(state) or SHOWN_KEY in state


def _unusable(state: MutableMapping[Any, Any]) -> bool:
    """Whether the whole file failed since the notice was last shown: reads skip it rather than wait on a lock
    again (``add`` always tries: a new run is worth the wait)."""
    found = problem(state)
    return found is not None and found.whole_file


def entries(state: MutableMapping[Any, Any]) -> list[Entry]:
    """Every stored run, oldest first (none when the store cannot be read)."""
    runs = store(state)
    if _unusable(state):
        return []
    try:
        listed = [Entry(run, runs) for run in runs.runs()]
    except RunStoreError as exc:
        _failed(state, exc)
        return []
    state.pop(SHOWN_KEY, None)  # readable again
    return listed


def add(state: MutableMapping[Any, Any], **fields: Any) -> Entry:
    """Store a run (replacing one with the same ``evaluation_id``), make it current, and return it; when it cannot
    be stored, keep it in the session instead (the failure is ``problem``'s).

    ``fields`` are ``RunStore.add``'s: ``assessment``, ``question``, ``context``, ``source``, ``label`` and
    optionally ``answer``, ``source_name``, ``note``, ``seconds``, ``opinion``, ``created``.
    """
    runs = store(state)
    payload = {name: fields.get(name) for name in ("assessment", "context", "opinion")}
    try:
        entry = Entry(runs.add(**fields), runs, **payload)
        state.pop(UNSAVED_KEY, None)
    except RunStoreError as exc:
        _failed(state, exc)
        entry = Entry(unsaved_run(**fields), runs, **payload)
        state[UNSAVED_KEY] = entry
    _make_current(state, entry.run)
    return entry


def unsaved_run(*, assessment: AnswerabilityAssessment, question: str, source: str, label: str,
                answer: str | None = None, source_name: str | None = None, note: str | None = None,
                seconds: float = 0.0, created: float | None = None, **_payload: Any) -> StoredRun:
    """The summary a run would have in the store, numbered ``UNSAVED``."""
    return StoredRun(UNSAVED, assessment.evaluation_id, time.time() if created is None else created, question,
                     answer, source, source_name, label, note, seconds, assessment.verdict.value,
                     assessment.recommended_action.value, len(assessment.requirements),
                     assessment.raw_output is not None)


def current(state: MutableMapping[Any, Any]) -> Entry | None:
    """This session's current run; None once it is gone, even if a later run took its number (after a clear)."""
    entry = find(state, state.get(CURRENT_KEY))
    return entry if entry is not None and entry.evaluation_id == state.get(CURRENT_ID_KEY) else None


def _make_current(state: MutableMapping[Any, Any], run: StoredRun) -> None:
    state[CURRENT_KEY] = run.number
    state[CURRENT_ID_KEY] = run.evaluation_id


def find(state: MutableMapping[Any, Any], number: int | None) -> Entry | None:
    """A run by number, read whole (an unreadable one is None, its failure ``problem``'s)."""
    if number is None:
        return None
    if number == UNSAVED:
        unsaved = state.get(UNSAVED_KEY)
        return unsaved if isinstance(unsaved, Entry) else None
    runs = store(state)
    if _unusable(state):
        return None
    try:  # read whole now, in one transaction, so an unreadable or edited run fails here rather than mid-page
        opened = runs.open(number)
    except RunStoreError as exc:
        _failed(state, exc)
        return None
    except KeyError:  # not stored, or dropped by another process since it was listed
        return None
    return Entry(opened.run, runs, opened=opened)


def by_id(state: MutableMapping[Any, Any], evaluation_id: str) -> Entry | None:
    """The stored run of these inputs (a deep link's ``?run=``), if there is one."""
    runs = store(state)
    if _unusable(state):
        return None
    try:
        found = runs.by_id(evaluation_id)
    except RunStoreError as exc:
        _failed(state, exc)
        return None
    return find(state, found.number) if found is not None else None


def select(state: MutableMapping[Any, Any], number: int) -> None:
    entry = find(state, number)
    if entry is not None:
        _make_current(state, entry.run)


def clear(state: MutableMapping[Any, Any]) -> None:
    """Drop every stored run (for every session: the store is the user's)."""
    try:
        store(state).clear()
    except RunStoreError as exc:
        _failed(state, exc)
    state.pop(CURRENT_KEY, None)
    state.pop(UNSAVED_KEY, None)
    state.pop(CURRENT_ID_KEY, None)

"""The run store: every assessment run with what reopening it needs, kept in a local SQLite file so runs survive
a reload and a server restart (pure: standard library and answerlens only, no streamlit).

Where: ``$ANSWERLENS_DATA_DIR/runs.sqlite3``, else ``$XDG_DATA_HOME/answerlens/runs.sqlite3``, else
``~/.local/share/answerlens/runs.sqlite3``. One run per ``evaluation_id``, and its number is stable: storing the
same inputs again updates that run in place (the latest result wins, the number stays) and makes it the newest.
Numbers count from 1 and restart at 1 once the history is cleared. The store keeps at most ``MAX_RUNS`` runs and
``MAX_BYTES`` of stored text; past either, the oldest runs are dropped (a run larger than the byte cap on its own
is refused). Each operation opens its own connection, so a store can be used from any thread and any process
(Streamlit reruns a script on several threads; several apps may share the folder). Every failure of the file is
a ``RunStoreError``.

Reopening a run (``open``) re-derives everything it shows from what is stored, as ``verify`` does for a report:
the context, question and draft against the assessment's input hashes, every citation decision and span against
that context, the assessment's and the second opinion's own hashes, and the listed summary and label against the
assessment. A run that differs anywhere is refused; the store keeps no hash of its own, since anyone who can edit
the file could recompute one.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from answerlens import storage
from answerlens.assessment import AnswerabilityAssessment
from answerlens.errors import RunStoreError, RunStoreStorageError
from answerlens.html.provenance import source_label
from answerlens.report.embedded import AssessmentData
from answerlens.second_opinion.models import SecondOpinion
from answerlens.verification.assessment import provenance_note, verify_assessment
from answerlens.verification.inputs import citable_context, format_of, input_problems
from answerlens.verification.opinion import verify_second_opinion

_Model = TypeVar("_Model", bound=BaseModel)

DATA_DIR_ENV = "ANSWERLENS_DATA_DIR"
"""Overrides where answerlens keeps its data (tests point it at a temporary folder)."""
FILE_NAME = "runs.sqlite3"
MAX_RUNS = 500
"""Runs kept; the oldest beyond this are dropped."""
MAX_BYTES = 256 * 2**20
"""Stored text kept (assessments, contexts, second opinions, inputs); the oldest runs beyond this are dropped, and
a run larger than this on its own is refused."""
LOCK_WAIT_SECONDS = 2.0
"""How long an operation waits for another process's write to end before the file counts as locked."""
_MOVE_ASIDE = ("move the file aside (or delete it) and reload the page: a new, empty history starts; until then the "
               "app works without history")
_ONE_RUN = "Clear history (or move the file aside) to drop it; the other runs are unaffected"
_REFUSED = {sqlite3.SQLITE_FULL: (errno.ENOSPC, storage.REFUSALS[errno.ENOSPC]),
            sqlite3.SQLITE_READONLY: (errno.EROFS, "the file or its folder is read-only"),
            sqlite3.SQLITE_PERM: (errno.EACCES, storage.REFUSALS[errno.EACCES])}
"""SQLite's primary codes for a write the machine refused (the file itself is fine), as the system's."""

_SCHEMA = """CREATE TABLE IF NOT EXISTS runs (
    number INTEGER PRIMARY KEY AUTOINCREMENT,
    evaluation_id TEXT NOT NULL UNIQUE,
    created REAL NOT NULL,
    question TEXT NOT NULL,
    answer TEXT,
    source TEXT NOT NULL,
    source_name TEXT,
    label TEXT NOT NULL,
    note TEXT,
    seconds REAL NOT NULL,
    verdict TEXT NOT NULL,
    action TEXT NOT NULL,
    requirements INTEGER NOT NULL,
    has_reply INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    assessment TEXT NOT NULL,
    context TEXT NOT NULL,
    opinion TEXT
)"""
_COLUMNS = tuple(line.split()[0] for line in _SCHEMA.splitlines()[1:-1])
_NEWEST = "created DESC, number DESC"
_SUMMARY = ("number, evaluation_id, created, question, answer, source, source_name, label, note, seconds, verdict, "
            "action, requirements, has_reply")


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    """The folder answerlens keeps its data in (see the module docstring)."""
    env = os.environ if env is None else env
    if env.get(DATA_DIR_ENV):
        return Path(env[DATA_DIR_ENV]).expanduser()
    if env.get("XDG_DATA_HOME"):
        return Path(env["XDG_DATA_HOME"]).expanduser() / "answerlens"
    return Path(env.get("HOME") or Path.home()).expanduser() / ".local" / "share" / "answerlens"


def default_path(env: Mapping[str, str] | None = None) -> Path:
    return data_dir(env) / FILE_NAME


@dataclass(frozen=True)
class StoredRun:
    """One run's summary: enough to list it; the assessment, context and opinion are read on demand."""

    number: int
    evaluation_id: str
    created: float
    question: str
    answer: str | None
    source: str
    """The bundle's title (a sample's title, or the file name)."""
    source_name: str | None
    """The bundle's file name, when it had one (a sample file's name is used to reselect it)."""
    label: str
    note: str | None
    seconds: float
    verdict: str
    action: str
    requirements: int
    has_reply: bool
    """Whether the assessment holds a model reply (the Packing page checks replies)."""


@dataclass(frozen=True)
class OpenedRun:
    """A stored run read whole, in one transaction, and re-derived from what is stored (``RunStore.open``)."""

    run: StoredRun
    assessment: AnswerabilityAssessment
    context: str
    """``render().strip()`` of the bundle assessed: its sha256 is the assessment's ``context_sha256``."""
    opinion: SecondOpinion | None
    unchecked: tuple[str, ...]
    """What could not be re-derived, said with the run rather than refusing it: provenance no hash covers (a run
    stored before ``provenance_sha256`` existed), highlight spans in a context whose header names no format."""


class RunStore:
    """The runs in one SQLite file; created (with its folder) on first use.

    Every failure of the file (not a database, truncated, locked by another process, written by another version,
    one unreadable row) is a ``RunStoreError`` naming the file and the remedy, so a page can carry on without
    history."""

    def __init__(self, path: Path, *, max_runs: int = MAX_RUNS, max_bytes: int = MAX_BYTES,
                 timeout: float | None = None) -> None:
        self.path = path
        self.max_runs = max_runs
        self.max_bytes = max_bytes
        self.timeout = timeout

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists() and not self.path.is_file():  # a folder, a FIFO (would hang), /dev/null (SQLite
                raise RunStoreError(  # would write its journal beside the device)
                    f"The run history {self.path} is not a regular file", path=str(self.path), remedy=_MOVE_ASIDE)
            wait = LOCK_WAIT_SECONDS if self.timeout is None else self.timeout
            with closing(sqlite3.connect(self.path, timeout=wait)) as connection:
                with connection:  # one transaction: committed on success, rolled back on error
                    connection.execute(_SCHEMA)
                    self._check_columns(connection)
                    yield connection
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        except OSError as exc:
            reason = storage.refusal(exc)
            if reason is not None:
                raise self._refused(reason, exc.errno or 0) from exc
            raise RunStoreError(f"The run history {self.path} cannot be opened ({exc.strerror or exc})",
                                path=str(self.path), remedy=f"make its folder writable, or set {DATA_DIR_ENV} to "
                                "a writable folder") from exc

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """One transaction on the file, for the tables kept beside the runs (``answerlens.review.labels``): every
        failure of the file is a ``RunStoreError``, as for the runs."""
        return self._db()

    def _check_columns(self, db: sqlite3.Connection) -> None:
        found = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
        missing = [name for name in _COLUMNS if name not in found]
        if missing:
            raise RunStoreError(
                f"The run history {self.path} was written by another version of answerlens (its runs table lacks "
                f"{', '.join(missing)})", path=str(self.path), remedy=_MOVE_ASIDE)

    def _error(self, exc: sqlite3.Error) -> RunStoreError:
        text = str(exc)
        refused = _REFUSED.get(getattr(exc, "sqlite_errorcode", 0) & 0xFF)  # the primary code of an extended one
        if refused is not None:
            return self._refused(refused[1], refused[0])
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_IOERR:  # the disk failed, not the file
            return RunStoreError(f"The run history {self.path} could not be read or written: the disk reported an "
                                 f"I/O error ({text})", path=str(self.path),
                                 remedy="check that disk (its free space, the system log), then reload the page; the "
                                 "file itself may be intact: keep it, and copy it elsewhere before changing anything")
        if "locked" in text or "busy" in text:
            return RunStoreError(f"The run history {self.path} is locked by another process ({text})",
                                 path=str(self.path), remedy="close the other program using it (another answerlens "
                                 "app, or an sqlite3 shell), then reload the page")
        return RunStoreError(f"The run history {self.path} is not a readable SQLite database ({text})",
                             path=str(self.path), remedy=_MOVE_ASIDE)

    def _refused(self, reason: str, code: int) -> RunStoreStorageError:
        """The machine refused a write: the file is fine and still read, so free the disk, never delete it."""
        fix = storage.remedy(code) if storage.full(code) else \
            f"make {self.path.parent} writable (or set {DATA_DIR_ENV} to a writable folder)"
        return RunStoreStorageError(str(self.path), reason, errno=code, remedy=(
            f"{fix}; the stored runs are intact and still shown, and until then a new result is shown and "
            "downloadable but not stored"))

    def add(self, *, assessment: AnswerabilityAssessment, question: str, context: str, source: str, label: str,
            answer: str | None = None, source_name: str | None = None, note: str | None = None,
            seconds: float = 0.0, opinion: SecondOpinion | None = None, created: float | None = None) -> StoredRun:
        """Store a run (updating the one with the same ``evaluation_id`` in place, so it keeps its number), drop
        the oldest others past the caps, and return the run as stored (the row this transaction wrote).

        A run larger than ``max_bytes`` on its own is refused (``RunStoreError``), never stored and then trimmed."""
        document = assessment.model_dump_json()
        opinion_json = opinion.model_dump_json() if opinion is not None else None
        size = sum(len(text.encode()) for text in (document, context, question, answer or "", opinion_json or ""))
        if size > self.max_bytes:
            raise RunStoreError(f"This run is {size:,} bytes, more than the run history keeps ({self.max_bytes:,} "
                                f"bytes in {self.path})", path=str(self.path),
                                remedy="download its assessment or report to keep it; it is shown but not stored",
                                whole_file=False)
        row = (assessment.evaluation_id, time.time() if created is None else created, question, answer, source,
               source_name, label, note, seconds, assessment.verdict.value, assessment.recommended_action.value,
               len(assessment.requirements), int(assessment.raw_output is not None), size, document, context,
               opinion_json)
        with self._db() as db:
            kept = db.execute("SELECT number FROM runs WHERE evaluation_id = ?", (assessment.evaluation_id,)).fetchone()
            columns = f"{_SUMMARY}, bytes, assessment, context, opinion"
            number = kept[0] if kept is not None else None
            db.execute("DELETE FROM runs WHERE evaluation_id = ?", (assessment.evaluation_id,))
            values = "?" + ", ?" * len(row)
            stored = db.execute(f"INSERT INTO runs ({columns}) VALUES ({values}) RETURNING {_SUMMARY}",
                                (number, *row)).fetchone()
            run = _summary(stored)
            self._trim(db, keep=run.number)
        return run

    def _trim(self, db: sqlite3.Connection, *, keep: int) -> None:
        """Drop the oldest runs past the caps, never ``keep`` (the run just stored, which fits on its own)."""
        db.execute(f"DELETE FROM runs WHERE number != ? AND number NOT IN "
                   f"(SELECT number FROM runs ORDER BY {_NEWEST} LIMIT ?)", (keep, self.max_runs))
        total = db.execute("SELECT bytes FROM runs WHERE number = ?", (keep,)).fetchone()[0]
        for number, size in db.execute(f"SELECT number, bytes FROM runs WHERE number != ? ORDER BY {_NEWEST}",
                                       (keep,)).fetchall():
            total += size
            if total > self.max_bytes:
                db.execute("DELETE FROM runs WHERE number = ?", (number,))

    def runs(self) -> list[StoredRun]:
        """Every run, oldest first (by when it was last stored)."""
        with self._db() as db:
            return [_summary(row) for row in db.execute(f"SELECT {_SUMMARY} FROM runs ORDER BY created, number")]

    def find(self, number: int) -> StoredRun | None:
        return self._one("number", number)

    def by_id(self, evaluation_id: str) -> StoredRun | None:
        """The run of these inputs (``evaluation_id``), if it is stored."""
        return self._one("evaluation_id", evaluation_id)

    def _one(self, column: str, value: object) -> StoredRun | None:
        with self._db() as db:
            row = db.execute(f"SELECT {_SUMMARY} FROM runs WHERE {column} = ?", (value,)).fetchone()
        return _summary(row) if row is not None else None

    def open(self, number: int) -> OpenedRun:
        """The run whole, every shown value re-derived from what is stored (see the module docstring); a run that
        does not verify is a ``RunStoreError`` naming what differs, so an edited run is never shown as genuine."""
        with self._db() as db:
            row = db.execute(f"SELECT {_SUMMARY}, assessment, context, opinion FROM runs WHERE number = ?",
                             (number,)).fetchone()
        if row is None:
            raise KeyError(f"no run #{number} in {self.path}")
        run, (document, context, opinion_json) = _summary(row[:-3]), row[-3:]
        assessment = self._parse(number, "assessment", document or "", AnswerabilityAssessment)
        opinion = self._parse(number, "opinion", opinion_json, SecondOpinion) if opinion_json else None
        problems, unchecked = _reopen_problems(run, assessment, context or "", opinion)
        if problems:
            more = f"; and {len(problems) - 1} more" if len(problems) > 1 else ""
            raise RunStoreError(f"Run #{number} in the run history {self.path} does not verify ({problems[0]}{more})",
                                path=str(self.path), whole_file=False,
                                remedy=f"assess it again (the same inputs replace the stored run), or {_ONE_RUN}")
        return OpenedRun(run, assessment, context or "", opinion, unchecked)

    def assessment(self, number: int) -> AnswerabilityAssessment:
        return self.open(number).assessment

    def context(self, number: int) -> str:
        return self.open(number).context

    def opinion(self, number: int) -> SecondOpinion | None:
        return self.open(number).opinion

    def _parse(self, number: int, column: str, text: str, model: type[_Model]) -> _Model:
        try:
            return model.model_validate_json(text)
        except ValidationError as exc:
            raise RunStoreError(f"Run #{number} in the run history {self.path} cannot be read (its {column} is not "
                                f"valid: {exc.errors(include_url=False)[0]['msg']})", path=str(self.path),
                                remedy=_ONE_RUN, whole_file=False) from exc

    def stored_bytes(self) -> int:
        with self._db() as db:
            return int(db.execute("SELECT COALESCE(SUM(bytes), 0) FROM runs").fetchone()[0])

    def clear(self) -> None:
        """Drop every run; numbering starts again at 1 (a session that still names a cleared run by number checks
        its ``evaluation_id``: see ``history.current``)."""
        with self._db() as db:
            db.execute("DELETE FROM runs")
            db.execute("DELETE FROM sqlite_sequence WHERE name = 'runs'")


def _summary(row: tuple[Any, ...]) -> StoredRun:
    values: dict[str, Any] = dict(zip(_SUMMARY.split(", "), row, strict=True))
    values["has_reply"] = bool(values["has_reply"])
    return StoredRun(**values)


def _reopen_problems(run: StoredRun, assessment: AnswerabilityAssessment, context: str,
                     opinion: SecondOpinion | None) -> tuple[list[str], tuple[str, ...]]:
    """(what differs between a stored run and what its assessment says, what could not be re-derived): the report
    verifier's checks on the question, draft and context, the citations and the second opinion, then the listing.

    A context whose header names no format (or contradicts how its records are printed) is the one assessed (its
    hash says so), so the run opens: only its highlight spans are taken as recorded, and it says so."""
    listing = _listing_problems(run, assessment)
    data = AssessmentData(question=run.question.strip(), answer=run.answer.strip() if run.answer is not None else None,
                          context=context, document=assessment.model_dump(mode="json"))
    inputs = input_problems(data)
    if inputs:  # another context: the citations re-derived over it would only add noise
        return [*inputs, *listing], ()
    fmt, unknown = format_of(data, data.document)
    bundle = None if unknown else citable_context(data, data.document, fmt)
    problems = [*verify_assessment(data.document, bundle=bundle).problems, *listing]
    if opinion is not None:
        problems += verify_second_opinion(opinion, data.document)
    unchecked = [f"highlights: drawn where the assessment records them, not re-derived ({unknown[0]})"] if unknown \
        else []
    if run.answer is None and assessment.answer_sha256 is not None:
        unchecked.append("draft answer: the assessment checked one, and the run was stored without it")
    note = provenance_note(assessment)
    return problems, tuple([note] if note else []) + tuple(unchecked)


def _listing_problems(run: StoredRun, assessment: AnswerabilityAssessment) -> list[str]:
    """The summary columns the history lists (and a deep link finds) must be the assessment's own."""
    listed = {"evaluation_id": (run.evaluation_id, assessment.evaluation_id),
              "verdict": ((run.verdict, run.action), (assessment.verdict.value, assessment.recommended_action.value)),
              "requirements": (run.requirements, len(assessment.requirements)),
              "reply": (run.has_reply, assessment.raw_output is not None)}
    problems = [f"its listed {name} is not its assessment's" for name, (shown, own) in listed.items() if shown != own]
    label = source_label(assessment)[0]
    if not run.label.startswith(label):
        problems.append(f"its listed label {run.label!r} is not where its assessment's reply came from ({label!r})")
    return problems

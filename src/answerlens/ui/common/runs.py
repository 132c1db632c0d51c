"""The run store: every assessment run with what reopening it needs, kept in a local SQLite file so runs survive
a reload and a server restart (pure: standard library and answerlens only, no streamlit).

Where: ``$ANSWERLENS_DATA_DIR/runs.sqlite3``, else ``$XDG_DATA_HOME/answerlens/runs.sqlite3``, else
``~/.local/share/answerlens/runs.sqlite3``. One run per ``evaluation_id``, and its number is stable: storing the
same inputs again updates that run in place (the latest result wins, the number stays) and makes it the newest.
Numbers count from 1 and restart at 1 once the history is cleared. The store keeps at most ``MAX_RUNS`` runs and
``MAX_BYTES`` of stored text; past either, the oldest runs are dropped. Each operation opens its own connection,
so a store can be used from any thread (Streamlit reruns a script on several).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from answerlens.assessment import AnswerabilityAssessment
from answerlens.second_opinion.models import SecondOpinion

DATA_DIR_ENV = "ANSWERLENS_DATA_DIR"
"""Overrides where answerlens keeps its data (tests point it at a temporary folder)."""
FILE_NAME = "runs.sqlite3"
MAX_RUNS = 500
"""Runs kept; the oldest beyond this are dropped."""
MAX_BYTES = 256 * 2**20
"""Stored text kept (assessments, contexts, second opinions, inputs); the oldest runs beyond this are dropped."""

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


class RunStore:
    """The runs in one SQLite file; created (with its folder) on first use."""

    def __init__(self, path: Path, *, max_runs: int = MAX_RUNS, max_bytes: int = MAX_BYTES) -> None:
        self.path = path
        self.max_runs = max_runs
        self.max_bytes = max_bytes

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(self.path, timeout=10)) as connection:
            with connection:  # one transaction: committed on success, rolled back on error
                connection.execute(_SCHEMA)
                yield connection

    def add(self, *, assessment: AnswerabilityAssessment, question: str, context: str, source: str, label: str,
            answer: str | None = None, source_name: str | None = None, note: str | None = None,
            seconds: float = 0.0, opinion: SecondOpinion | None = None, created: float | None = None) -> int:
        """Store a run (updating the one with the same ``evaluation_id`` in place, so it keeps its number), drop
        the oldest past the caps, and return the run's number."""
        document = assessment.model_dump_json()
        opinion_json = opinion.model_dump_json() if opinion is not None else None
        size = sum(len(text.encode()) for text in (document, context, question, answer or "", opinion_json or ""))
        row = (assessment.evaluation_id, time.time() if created is None else created, question, answer, source,
               source_name, label, note, seconds, assessment.verdict.value, assessment.recommended_action.value,
               len(assessment.requirements), int(assessment.raw_output is not None), size, document, context,
               opinion_json)
        with self._db() as db:
            kept = db.execute("SELECT number FROM runs WHERE evaluation_id = ?", (assessment.evaluation_id,)).fetchone()
            columns = f"{_SUMMARY}, bytes, assessment, context, opinion"
            number = kept[0] if kept is not None else None
            db.execute("DELETE FROM runs WHERE evaluation_id = ?", (assessment.evaluation_id,))
            number = db.execute(f"INSERT INTO runs ({columns}) VALUES (?" + ", ?" * len(row) + ")",
                                (number, *row)).lastrowid
            self._trim(db)
        assert number is not None
        return number

    def _trim(self, db: sqlite3.Connection) -> None:
        db.execute(f"DELETE FROM runs WHERE number NOT IN (SELECT number FROM runs ORDER BY {_NEWEST} LIMIT ?)",
                   (self.max_runs,))
        total = 0
        for number, size in db.execute(f"SELECT number, bytes FROM runs ORDER BY {_NEWEST}").fetchall():
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

    def _field(self, number: int, column: str) -> str | None:
        with self._db() as db:
            row = db.execute(f"SELECT {column} FROM runs WHERE number = ?", (number,)).fetchone()
        if row is None:
            raise KeyError(f"no run #{number} in {self.path}")
        return row[0]

    def assessment(self, number: int) -> AnswerabilityAssessment:
        return AnswerabilityAssessment.model_validate_json(self._field(number, "assessment") or "")

    def context(self, number: int) -> str:
        return self._field(number, "context") or ""

    def opinion(self, number: int) -> SecondOpinion | None:
        text = self._field(number, "opinion")
        return SecondOpinion.model_validate_json(text) if text else None

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

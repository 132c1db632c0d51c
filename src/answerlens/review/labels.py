"""A person's label of one reviewed assessment, and where labels are kept: a table of their own in the run store's
SQLite file, one row per (``evaluation_id``, ``assessment_sha256``, reviewer), so several people may label one run.

A label belongs to exactly what was shown: the run's inputs (``evaluation_id``) and its validated output
(``assessment_sha256``). Whether it still applies is decided where it is matched (``answerlens.review.items``).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, field_validator

from answerlens.errors import LabelError, describe_validation
from answerlens.run_store import RunStore
from answerlens.verdict import AnswerabilityVerdict

REVIEWER_ENV = "ANSWERLENS_REVIEWER"
"""Who is reviewing, when the app's settings do not say (the CLI and the app read it)."""
HEX64 = r"^[0-9a-f]{64}$"
MAX_NOTE = 4000

_SCHEMA = """CREATE TABLE IF NOT EXISTS labels (
    evaluation_id TEXT NOT NULL,
    assessment_sha256 TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    labelled_at TEXT NOT NULL,
    verdict TEXT NOT NULL,
    note TEXT NOT NULL,
    requirements_wrong TEXT NOT NULL,
    PRIMARY KEY (evaluation_id, assessment_sha256, reviewer)
)"""
_COLUMNS = "evaluation_id, assessment_sha256, reviewer, labelled_at, verdict, note, requirements_wrong"


class Label(BaseModel):
    """DESIGN §14's label: the verdict a careful reader gives from the context shown, with an optional note and the
    requirements (numbered from 1) whose status the reader found wrong. Dumped as JSON in exactly this shape."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    evaluation_id: str = Field(pattern=HEX64)
    """The inputs shown (question, draft, context, configuration, prompt)."""
    assessment_sha256: str = Field(pattern=HEX64)
    """The validated output shown; another output of the same inputs is another thing to label."""
    reviewer: str = Field(min_length=1, max_length=200)
    labelled_at: AwareDatetime
    """When it was labelled, in UTC (written as ISO 8601)."""
    verdict: AnswerabilityVerdict
    """The reader's verdict: answerable, partial (answer partially), insufficient or conflicting."""
    note: str = Field(default="", max_length=MAX_NOTE)
    requirements_wrong: tuple[int, ...] = ()
    """Requirements (1-based) whose final status the reader found wrong; sorted, each once."""

    @field_validator("reviewer")
    @classmethod
    def _reviewer(cls, value: str) -> str:
        if value != value.strip() or not value.strip():
            raise ValueError("reviewer must be a name without surrounding spaces")
        return value

    @field_validator("labelled_at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return value.astimezone(UTC)

    @field_validator("requirements_wrong")
    @classmethod
    def _numbers(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        if any(number < 1 for number in value):
            raise ValueError("requirements are numbered from 1")
        if list(value) != sorted(set(value)):
            raise ValueError("requirements_wrong must be sorted, each number once")
        return value

    @property
    def shown(self) -> tuple[str, str]:
        """What was shown: (``evaluation_id``, ``assessment_sha256``)."""
        return self.evaluation_id, self.assessment_sha256

    @property
    def key(self) -> tuple[str, str, str]:
        """One label per reviewer per thing shown."""
        return self.evaluation_id, self.assessment_sha256, self.reviewer

    def line(self) -> str:
        """The label as one line of JSON (DESIGN §14's field order)."""
        return json_line(self.model_dump(mode="json"))


def supersedes(label: Label, kept: datetime | None) -> bool:
    """Whether ``label`` replaces a label of the same key (run, hashes, reviewer) labelled at ``kept``: only a newer
    one does (on a tie the first kept stays)."""
    return kept is None or label.labelled_at > kept


def newest(labels: Iterable[Label]) -> list[Label]:
    """One label per reviewer per thing shown, the newest, as importing keeps them; in first-seen order."""
    kept: dict[tuple[str, str, str], Label] = {}
    for label in labels:
        if supersedes(label, kept[label.key].labelled_at if label.key in kept else None):
            kept[label.key] = label
    return list(kept.values())


def json_line(value: Any) -> str:
    """One line of JSON, non-ASCII kept but the characters a line splitter may break on (U+0085, U+2028, U+2029)
    escaped, so a note can never split its label in two."""
    return json.dumps(value, ensure_ascii=False).translate(_LINE_BREAKS)


_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def parse_label(data: Any, where: str) -> Label:
    """A label from parsed JSON; a ``LabelError`` naming ``where`` and the field otherwise."""
    try:
        return Label.model_validate(data)
    except ValidationError as exc:
        raise LabelError(f"{where}: not a review label: {describe_validation(exc, '')}".replace(": .", ": ")) \
            from None


def reviewer_from(env: Mapping[str, str] | None = None) -> str | None:
    """``ANSWERLENS_REVIEWER``, stripped; None when unset or blank."""
    name = (os.environ if env is None else env).get(REVIEWER_ENV, "").strip()
    return name or None


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


@dataclass(frozen=True)
class Merged:
    """What importing labels did: new keys added, older labels replaced by newer ones, and labels left as they
    were because the store's own was as new or newer."""

    added: int = 0
    replaced: int = 0
    kept: int = 0


class LabelStore:
    """The labels in a run store's file (the runs table is untouched: labels outlive a cleared history, and are
    matched to runs by their hashes, never by run number)."""

    def __init__(self, runs: RunStore) -> None:
        self.runs = runs

    def _table(self) -> Any:
        return _Table(self.runs)

    def labels(self) -> list[Label]:
        """Every label, oldest first."""
        with self._table() as db:
            rows = db.execute(f"SELECT {_COLUMNS} FROM labels ORDER BY labelled_at, reviewer").fetchall()
        return [_label(row, self.runs) for row in rows]

    def get(self, evaluation_id: str, assessment_sha256: str, reviewer: str) -> Label | None:
        with self._table() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM labels WHERE evaluation_id = ? AND assessment_sha256 = ? AND "
                             "reviewer = ?", (evaluation_id, assessment_sha256, reviewer)).fetchone()
        return _label(row, self.runs) if row is not None else None

    def save(self, label: Label) -> Label | None:
        """Store a label (replacing this reviewer's label of the same thing); returns the one it replaced."""
        with self._table() as db:
            before = db.execute(f"SELECT {_COLUMNS} FROM labels WHERE evaluation_id = ? AND assessment_sha256 = ? "
                                "AND reviewer = ?", label.key).fetchone()
            db.execute(f"INSERT OR REPLACE INTO labels ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", _row(label))
        return _label(before, self.runs) if before is not None else None

    def remove(self, evaluation_id: str, assessment_sha256: str, reviewer: str) -> None:
        with self._table() as db:
            db.execute("DELETE FROM labels WHERE evaluation_id = ? AND assessment_sha256 = ? AND reviewer = ?",
                       (evaluation_id, assessment_sha256, reviewer))

    def merge(self, labels: Iterable[Label]) -> Merged:
        """Import labels (another reviewer's file, a colleague's export): per key, the newer label wins."""
        added = replaced = kept = 0
        with self._table() as db:
            for label in labels:
                found = db.execute("SELECT labelled_at FROM labels WHERE evaluation_id = ? AND assessment_sha256 = ? "
                                   "AND reviewer = ?", label.key).fetchone()
                if found is not None and not supersedes(label, datetime.fromisoformat(found[0])):
                    kept += 1
                    continue
                db.execute(f"INSERT OR REPLACE INTO labels ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", _row(label))
                added, replaced = (added + 1, replaced) if found is None else (added, replaced + 1)
        return Merged(added, replaced, kept)


class _Table:
    """A transaction of the run store with the labels table present."""

    def __init__(self, runs: RunStore) -> None:
        self._transaction = runs.transaction()

    def __enter__(self) -> sqlite3.Connection:
        db = self._transaction.__enter__()
        db.execute(_SCHEMA)
        return db

    def __exit__(self, *exc: Any) -> bool | None:
        return self._transaction.__exit__(*exc)


def _row(label: Label) -> tuple[str, ...]:
    return (label.evaluation_id, label.assessment_sha256, label.reviewer, label.labelled_at.isoformat(),
            label.verdict.value, label.note, json.dumps(list(label.requirements_wrong)))


def _label(row: tuple[Any, ...], runs: RunStore) -> Label:
    values = dict(zip(_COLUMNS.split(", "), row, strict=True))
    try:
        values["requirements_wrong"] = json.loads(values["requirements_wrong"])
    except (TypeError, ValueError):
        pass  # left as stored: the validation below names it
    return parse_label(values, f"{runs.path}: labels table")

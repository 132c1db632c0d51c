"""Shared by the review tests: a run store holding real sample runs (recorded replies, as Inspect stores them),
labels for them, and the SQL edit that makes a stored run no longer verify."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from answerlens.html.provenance import source_label
from answerlens.review.labels import Label
from answerlens.run_store import RunStore
from answerlens.verdict import AnswerabilityVerdict
from tests.ui.conftest import recorded, sample

STEMS = ("answerable_billing_database", "partial_checkout_migration", "insufficient_table_tennis",
         "conflicting_deploy_freeze", "second_opinion_plan_as_fact")
"""Five samples with recorded replies: answerable, partial, insufficient, conflicting, and a plan cited as fact
that the recorded reply answers (a careful reader says insufficient: the unsafe cell)."""


def keep(store: RunStore, stem: str) -> int:
    found = sample(stem)
    assessment = recorded(stem)
    return store.add(assessment=assessment, question=found.question, answer=found.answer,
                     context=found.load().exact_context, source=found.title, source_name=f"{stem}.json",
                     label=source_label(assessment)[0]).number


def filled(path: Path, stems: tuple[str, ...] = STEMS) -> RunStore:
    store = RunStore(path)
    for stem in stems:
        keep(store, stem)
    return store


def label(stem: str, verdict: str, reviewer: str = "ann", *, note: str = "", wrong: tuple[int, ...] = (),
          at: datetime | None = None) -> Label:
    a = recorded(stem)
    return Label(evaluation_id=a.evaluation_id, assessment_sha256=a.assessment_sha256, reviewer=reviewer,
                 labelled_at=at or datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), verdict=AnswerabilityVerdict(verdict),
                 note=note, requirements_wrong=wrong)


def edit_question(path: Path, number: int, question: str) -> None:
    """Edit a stored run's question in the file, as anyone with it can: the run no longer verifies."""
    with sqlite3.connect(path) as db:
        db.execute("UPDATE runs SET question = ? WHERE number = ?", (question, number))

"""Run stores broken in each way a user's file can be (for the store, history and page tests): real SQLite files,
and a lock held by a real second process."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.synchronize import Event
from pathlib import Path

from answerlens.html.provenance import source_label
from answerlens.run_store import RunStore
from tests.ui.conftest import recorded, sample

STEMS = ("speech_act_eslint", "conflicting_deploy_freeze", "answerable_billing_database")


def fields(stem: str = "speech_act_eslint") -> dict:
    found = sample(stem)
    return {"assessment": recorded(stem), "question": found.question, "context": found.load().exact_context,
            "source": found.title, "label": source_label(recorded(stem))[0]}


def filled(path: Path) -> RunStore:
    store = RunStore(path)
    for stem in STEMS:
        store.add(**fields(stem))
    return store


def random_bytes(path: Path) -> None:
    path.write_bytes(os.urandom(8192))


def truncated(path: Path) -> None:
    filled(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def older_schema(path: Path) -> None:
    with sqlite3.connect(path) as db:  # a history from before the second opinion and the reply flag were kept
        db.execute("CREATE TABLE runs (number INTEGER PRIMARY KEY AUTOINCREMENT, evaluation_id TEXT NOT NULL UNIQUE,"
                   " created REAL NOT NULL, question TEXT NOT NULL, source TEXT NOT NULL, label TEXT NOT NULL, "
                   "verdict TEXT NOT NULL, assessment TEXT NOT NULL, context TEXT NOT NULL)")
        db.execute("INSERT INTO runs VALUES (1, 'e', 0, 'q', 's', 'l', 'answerable', '{}', '')")


def bad_json_row(path: Path) -> None:
    filled(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE runs SET assessment = '{\"verdict\": ' WHERE number = 2")


BROKEN: dict[str, Callable[[Path], None]] = {
    "random_bytes": random_bytes, "truncated": truncated, "older_schema": older_schema,
}
"""Files no run can be read from or stored in."""


def _hold(path: str, locked: Event, release: Event) -> None:
    with sqlite3.connect(path, isolation_level=None) as db:
        db.execute("BEGIN EXCLUSIVE")
        locked.set()
        release.wait(60)
        db.execute("ROLLBACK")


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """``path`` locked (BEGIN EXCLUSIVE) by another process until the block ends."""
    context = multiprocessing.get_context("spawn")
    taken, release = context.Event(), context.Event()
    holder = context.Process(target=_hold, args=(str(path), taken, release))
    holder.start()
    try:
        assert taken.wait(60), "the other process did not take the lock"
        yield
    finally:
        release.set()
        holder.join(60)

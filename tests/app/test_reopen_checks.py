"""Inspect reopening stored runs whose file was edited (AppTest): the deep link and the picker refuse the edited
run with one notice naming what differs and what to do, the other runs still open, and a legacy run opens saying
what could not be checked."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from streamlit.testing.v1 import AppTest

from answerlens import run_store as runs
from answerlens.ui.common.history_view import ONE_RUN_TITLE
from tests.app.conftest import APP, assert_clean, notices, verdicts
from tests.run_store.broken_stores import filled


def edited(column: str, value: str, number: int = 1) -> Path:
    """The app's run history with the three sample runs, run ``number``'s ``column`` set to ``value``."""
    path = runs.default_path()
    filled(path)
    with sqlite3.connect(path) as db:
        db.execute(f"UPDATE runs SET {column} = ? WHERE number = ?", (value, number))
    return path


def column(path: Path, name: str, number: int) -> str:
    with sqlite3.connect(path) as db:
        return db.execute(f"SELECT {name} FROM runs WHERE number = ?", (number,)).fetchone()[0]


def linked(evaluation_id: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["run"] = evaluation_id
    at.run()
    assert_clean(at)
    return at


def refusals(at: AppTest) -> list[str]:
    return [text for text in notices(at.main, "warning") if ONE_RUN_TITLE in text]


def test_a_run_whose_context_was_swapped_is_refused_and_the_others_open() -> None:
    path = runs.default_path()
    filled(path)
    edited("context", column(path, "context", 2))  # run #2's context under run #1's assessment
    at = linked(column(path, "evaluation_id", 1))
    (notice,) = refusals(at)
    assert "Run #1" in notice and "context: not the exact context assessed" in notice
    assert "What to do:" in notice and "assess it again" in notice
    assert verdicts(at) == [] and "No stored run has this link" not in " ".join(notices(at.main, "warning"))
    at.selectbox(key="inspect.history").set_value(2).run()
    assert_clean(at)
    assert verdicts(at) == ["conflicting"] and refusals(at) == []
    at.selectbox(key="inspect.history").set_value(1).run()
    assert_clean(at)
    assert len(refusals(at)) == 1 and verdicts(at) == ["conflicting"]  # the run shown stays the one that verified


def test_a_legacy_run_opens_saying_what_could_not_be_checked() -> None:
    path = runs.default_path()
    filled(path)
    document = json.loads(column(path, "assessment", 2))
    del document["provenance_sha256"]  # stored before answerlens recorded it
    edited("assessment", json.dumps(document), number=2)
    at = linked(document["evaluation_id"])
    assert verdicts(at) == ["conflicting"] and refusals(at) == []
    (note,) = [text for text in notices(at.main, "info") if "not everything could be checked" in text]
    assert "provenance_sha256 absent" in note

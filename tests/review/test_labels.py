"""Labels: DESIGN §14's shape, checked at the boundary; kept in the run store's file in a table of their own (one
per reviewer per thing shown), surviving a cleared history; merged newest-wins."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from answerlens.errors import LabelError, RunStoreError
from answerlens.review.labels import Label, LabelStore, parse_label, reviewer_from
from answerlens.run_store import RunStore
from tests.review.helpers import filled, label


def test_a_label_dumps_in_the_design_shape() -> None:
    found = label("speech_act_eslint", "insufficient", note="a plan is not a rule", wrong=(1, 3))
    data = json.loads(found.line())
    assert list(data) == ["evaluation_id", "assessment_sha256", "reviewer", "labelled_at", "verdict", "note",
                          "requirements_wrong"]
    assert data["verdict"] == "insufficient" and data["requirements_wrong"] == [1, 3]
    assert data["labelled_at"] == "2026-01-02T03:04:05Z"
    assert parse_label(data, "here") == found


def test_times_are_kept_in_utc() -> None:
    found = label("speech_act_eslint", "partial", at=datetime(2026, 1, 2, 5, 4, 5, tzinfo=timezone(timedelta(hours=2))))
    assert found.labelled_at == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.mark.parametrize(("change", "field"), [
    pytest.param({"verdict": "maybe"}, "verdict", id="unknown_verdict"),
    pytest.param({"evaluation_id": "abc"}, "evaluation_id", id="short_hash"),
    pytest.param({"reviewer": " ann"}, "reviewer", id="padded_reviewer"),
    pytest.param({"reviewer": ""}, "reviewer", id="no_reviewer"),
    pytest.param({"labelled_at": "2026-01-02T03:04:05"}, "labelled_at", id="naive_time"),
    pytest.param({"requirements_wrong": [0]}, "requirements_wrong", id="zero_based"),
    pytest.param({"requirements_wrong": [2, 1]}, "requirements_wrong", id="unsorted"),
    pytest.param({"extra": 1}, "extra", id="unknown_field"),
])
def test_a_bad_label_is_refused_naming_the_field(change: dict, field: str) -> None:
    data = {**json.loads(label("speech_act_eslint", "partial").line()), **change}
    with pytest.raises(LabelError, match=field):
        parse_label(data, "labels.jsonl: line 3")


def test_labels_are_stored_per_reviewer_and_replaced_by_the_same_reviewer(tmp_path: Path) -> None:
    store = LabelStore(filled(tmp_path / "runs.sqlite3"))
    first = label("speech_act_eslint", "partial")
    assert store.save(first) is None
    assert store.save(label("speech_act_eslint", "insufficient", "bob")) is None
    replaced = store.save(label("speech_act_eslint", "insufficient"))
    assert replaced == first
    assert {(found.reviewer, found.verdict.value) for found in store.labels()} == {("ann", "insufficient"),
                                                                                   ("bob", "insufficient")}
    store.remove(*first.key)
    assert [found.reviewer for found in store.labels()] == ["bob"]
    assert store.get(*first.key) is None


def test_labels_live_in_their_own_table_and_outlive_a_cleared_history(tmp_path: Path) -> None:
    runs = filled(tmp_path / "runs.sqlite3")
    store = LabelStore(runs)
    store.save(label("speech_act_eslint", "partial"))
    runs.clear()
    assert runs.runs() == [] and len(store.labels()) == 1
    with sqlite3.connect(runs.path) as db:
        assert {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} >= {"runs",
                                                                                                          "labels"}


def test_merging_keeps_the_newer_label_of_each_key(tmp_path: Path) -> None:
    store = LabelStore(RunStore(tmp_path / "runs.sqlite3"))
    early, late = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)
    store.save(label("speech_act_eslint", "partial", at=late))
    store.save(label("conflicting_deploy_freeze", "conflicting", at=early))
    merged = store.merge([label("speech_act_eslint", "answerable", at=early),       # older: kept as stored
                          label("conflicting_deploy_freeze", "insufficient", at=late),  # newer: replaces
                          label("speech_act_eslint", "insufficient", "bob")])          # new key: added
    assert (merged.added, merged.replaced, merged.kept) == (1, 1, 1)
    verdicts = {(found.reviewer, found.evaluation_id[:6]): found.verdict.value for found in store.labels()}
    assert sorted(verdicts.values()) == ["insufficient", "insufficient", "partial"]


def test_a_damaged_labels_row_is_refused_naming_the_file(tmp_path: Path) -> None:
    runs = filled(tmp_path / "runs.sqlite3", ("speech_act_eslint",))
    store = LabelStore(runs)
    store.save(label("speech_act_eslint", "partial"))
    with sqlite3.connect(runs.path) as db:
        db.execute("UPDATE labels SET verdict = 'maybe'")
    with pytest.raises(LabelError, match="labels table"):
        store.labels()


def test_an_unusable_file_is_a_run_store_error(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite3"
    path.write_bytes(b"not a database" * 100)
    with pytest.raises(RunStoreError):
        LabelStore(RunStore(path)).labels()


def test_the_reviewer_comes_from_the_environment() -> None:
    assert reviewer_from({"ANSWERLENS_REVIEWER": "  ann  "}) == "ann"
    assert reviewer_from({"ANSWERLENS_REVIEWER": " "}) is None and reviewer_from({}) is None


def test_a_label_is_frozen() -> None:
    found = label("speech_act_eslint", "partial")
    with pytest.raises(Exception):  # noqa: B017 - pydantic's frozen error
        found.note = "x"  # type: ignore[misc]
    assert isinstance(found, Label)

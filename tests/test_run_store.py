"""The run store: one SQLite file in the user's data folder, one run per evaluation_id, capped, cleared."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from answerlens.html.provenance import source_label
from answerlens.run_store import DATA_DIR_ENV, FILE_NAME, RunStore, data_dir, default_path
from tests.ui.conftest import recorded, sample


def keep(store: RunStore, stem: str = "speech_act_eslint", **extra: object) -> int:
    found = sample(stem)
    fields: dict = {"assessment": recorded(stem), "question": found.question, "answer": found.answer,
                    "context": found.load().exact_context, "source": found.title,
                    "label": source_label(recorded(stem))[0], **extra}
    return store.add(**fields).number


@pytest.mark.parametrize(
    "env, expected",
    [
        pytest.param({DATA_DIR_ENV: "/data/al", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}, "/data/al", id="own"),
        pytest.param({"XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}, "/xdg/answerlens", id="xdg"),
        pytest.param({"HOME": "/home/u"}, "/home/u/.local/share/answerlens", id="home"),
    ],
)
def test_the_data_folder_follows_the_documented_order(env: dict, expected: str) -> None:
    assert data_dir(env) == Path(expected) and default_path(env) == Path(expected) / FILE_NAME


def test_a_run_is_stored_with_its_inputs_and_read_back(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "sub" / "runs.sqlite3")
    stem = "draft_answer_unsupported_claim"
    number = keep(store, stem, source_name=f"{stem}.json", note="n", seconds=1.5)
    (run,) = store.runs()
    found = sample(stem)
    assert found.answer and (run.number, run.question, run.answer, run.source, run.source_name) == (
        number, found.question, found.answer, found.title, f"{stem}.json")
    assert (run.verdict, run.action, run.requirements, run.has_reply, run.seconds) == (
        "partial", "answer_partially", len(recorded(stem).requirements), True, 1.5)
    assert store.assessment(number) == recorded(stem)
    assert store.context(number) == found.load().exact_context and store.opinion(number) is None
    assert store.by_id(run.evaluation_id) == run and store.find(number + 1) is None


def test_the_same_evaluation_id_is_one_run_with_a_stable_number_and_the_latest_wins(tmp_path: Path) -> None:
    """Same inputs, same number: running them again updates the run in place and makes it the newest."""
    store = RunStore(tmp_path / "runs.sqlite3")
    first = keep(store, note="older", created=1.0)
    other = keep(store, "conflicting_deploy_freeze", created=2.0)
    again = keep(store, note="newer", created=3.0)
    assert again == first == 1 and other == 2
    assert [(r.number, r.note) for r in store.runs()] == [(2, None), (1, "newer")]
    assert keep(store, "answerable_billing_database") == 3


def test_the_oldest_runs_are_dropped_past_the_run_cap(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite3", max_runs=2)
    for stem in ("speech_act_eslint", "conflicting_deploy_freeze", "answerable_billing_database"):
        keep(store, stem)
    assert [r.verdict for r in store.runs()] == ["conflicting", "answerable"]


def test_the_oldest_runs_are_dropped_past_the_size_cap(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite3")
    keep(store, "speech_act_eslint")
    keep(store, "conflicting_deploy_freeze")
    store.max_bytes = store.stored_bytes() + 10  # both fit; a third does not
    keep(store, "answerable_billing_database")
    kept = [r.verdict for r in store.runs()]
    assert kept[-1] == "answerable" and "insufficient" not in kept and store.stored_bytes() <= store.max_bytes


def test_clear_restarts_the_numbering(tmp_path: Path) -> None:
    """After a clear the history counts from 1 again, so "History (1 run)" never sits beside "Run #3"."""
    store = RunStore(tmp_path / "runs.sqlite3")
    keep(store)
    keep(store, "conflicting_deploy_freeze")
    store.clear()
    assert store.runs() == [] and store.stored_bytes() == 0
    assert keep(store, "answerable_billing_database") == 1


def test_runs_survive_a_new_store_object_on_the_same_file(tmp_path: Path) -> None:
    keep(RunStore(tmp_path / "runs.sqlite3"))
    assert len(RunStore(tmp_path / "runs.sqlite3").runs()) == 1


def test_reading_an_unknown_run_is_a_key_error(tmp_path: Path) -> None:
    with pytest.raises(KeyError, match="no run #7"):
        RunStore(tmp_path / "runs.sqlite3").assessment(7)


def test_a_store_is_usable_from_several_threads(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite3")
    stems = ["speech_act_eslint", "conflicting_deploy_freeze", "answerable_billing_database"]
    for stem in stems:
        recorded(stem)  # warm the cache outside the threads
    threads = [threading.Thread(target=keep, args=(store, stem)) for stem in stems]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.verdict for r in store.runs()) == ["answerable", "conflicting", "insufficient"]

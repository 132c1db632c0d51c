"""A run store that cannot be used (damaged, locked, foreign, one unreadable run, a run too big) fails with one
error naming the file and the remedy; the history then carries on without it, and concurrent writers agree."""

from __future__ import annotations

import multiprocessing
import sqlite3
from multiprocessing.synchronize import Event
from pathlib import Path

import pytest

from answerlens.errors import RunStoreError
from answerlens.run_store import RunStore
from answerlens.ui.common import history
from tests.run_store.broken_stores import BROKEN, STEMS, bad_json_row, fields, filled, locked
from tests.ui.conftest import recorded


@pytest.mark.parametrize("kind", list(BROKEN))
def test_a_broken_file_fails_with_its_name_and_the_remedy(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "runs.sqlite3"
    BROKEN[kind](path)
    with pytest.raises(RunStoreError) as caught:
        RunStore(path).runs()
    assert caught.value.path == str(path) and str(path) in str(caught.value)
    assert "move the file aside" in caught.value.remedy
    with pytest.raises(RunStoreError):
        RunStore(path).add(**fields())


def test_one_unreadable_run_names_itself_and_leaves_the_others(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite3"
    bad_json_row(path)
    store = RunStore(path)
    assert [run.number for run in store.runs()] == [1, 2, 3]
    with pytest.raises(RunStoreError, match=r"Run #2 in the run history .*runs\.sqlite3 cannot be read") as caught:
        store.assessment(2)
    assert "Clear history" in caught.value.remedy
    assert store.assessment(3) == recorded(STEMS[2])
    state: dict = {history.STORE_KEY: store}
    assert history.find(state, 2) is None and history.problem(state) is not None
    assert history.find(state, 3) is not None


def test_a_file_locked_by_another_process_fails_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite3"
    filled(path)
    with locked(path):
        with pytest.raises(RunStoreError, match="is locked by another process") as caught:
            RunStore(path, timeout=0.05).runs()
        assert "close the other program" in caught.value.remedy
    assert len(RunStore(path).runs()) == 3  # usable again once the other process lets go


@pytest.mark.parametrize("kind", [*BROKEN, "bad_json_row"])
def test_the_history_carries_on_without_a_broken_store_and_keeps_the_new_run(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "runs.sqlite3"
    {**BROKEN, "bad_json_row": bad_json_row}[kind](path)
    state: dict = {history.STORE_KEY: RunStore(path)}
    history.entries(state)
    history.find(state, 2)
    stem = "insufficient_table_tennis" if kind == "bad_json_row" else "conflicting_deploy_freeze"  # a new run
    entry = history.add(state, **fields(stem))
    if kind == "bad_json_row":  # the file works: the new run is stored; only run #2 was a problem
        assert entry.stored and history.current(state) == entry
        assert str(history.problem(state)).startswith("Run #2 in the run history")
        return
    problem = history.problem(state)
    assert problem is not None and problem.path == str(path)
    assert not entry.stored and history.current(state) is entry and entry.assessment == recorded(stem)
    assert entry.title.startswith("not stored ")
    assert history.take_problem(state) is problem and history.problem(state) is None
    assert history.current(state) is entry


def test_a_run_larger_than_the_byte_cap_is_refused_and_the_others_stay(tmp_path: Path) -> None:
    store = filled(tmp_path / "runs.sqlite3")
    store.max_bytes = store.stored_bytes()
    big = {**fields(), "context": "x" * (store.max_bytes + 1)}
    with pytest.raises(RunStoreError, match=r"This run is [\d,]+ bytes, more than the run history keeps") as caught:
        store.add(**big)
    assert "download" in caught.value.remedy and len(store.runs()) == 3
    state: dict = {history.STORE_KEY: store}
    entry = history.add(state, **big)
    assert not entry.stored and entry.context == big["context"] and len(history.entries(state)) == 3


def test_a_run_that_fits_the_cap_alone_is_kept_and_the_older_ones_make_room(tmp_path: Path) -> None:
    store = filled(tmp_path / "runs.sqlite3")
    store.max_bytes = max(run_bytes(store, number) for number in (1, 2, 3)) + 1
    kept = store.add(**fields("speech_act_eslint"))
    assert [run.number for run in store.runs()] == [kept.number]


def run_bytes(store: RunStore, number: int) -> int:
    with sqlite3.connect(store.path) as db:
        return int(db.execute("SELECT bytes FROM runs WHERE number = ?", (number,)).fetchone()[0])


def _store_repeatedly(path: str, times: int, start: Event, failures: multiprocessing.Queue) -> None:
    state: dict = {history.STORE_KEY: RunStore(Path(path), timeout=30)}
    run = fields()
    start.wait(60)
    for _ in range(times):
        try:
            entry = history.add(state, **run)
            problem = history.problem(state)
            if problem is not None or not entry.stored:
                failures.put(f"not stored: {problem}")
                return
        except BaseException as exc:  # noqa: BLE001  (what the parent reports; the test fails on any)
            failures.put(repr(exc))
            return
    failures.put(None)


def test_three_processes_storing_the_same_run_never_fail(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite3"
    RunStore(path).runs()  # the table exists before the race starts
    context = multiprocessing.get_context("fork")
    start, failures = context.Event(), context.Queue()
    workers = [context.Process(target=_store_repeatedly, args=(str(path), 150, start, failures)) for _ in range(3)]
    for worker in workers:
        worker.start()
    start.set()
    outcomes = [failures.get(timeout=300) for _ in workers]
    for worker in workers:
        worker.join(60)
    assert outcomes == [None, None, None]
    (run,) = RunStore(path).runs()
    assert run.evaluation_id == recorded("speech_act_eslint").evaluation_id


def test_after_the_file_failed_reads_skip_it_until_the_notice_is_shown(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite3"
    filled(path)
    state: dict = {history.STORE_KEY: RunStore(path, timeout=0.05)}
    with locked(path):
        assert history.entries(state) == []
    problem = history.problem(state)
    assert problem is not None and problem.whole_file
    # The lock is gone, but this page run already knows the file failed: no read waits on it again.
    assert history.entries(state) == [] and history.find(state, 1) is None and history.by_id(state, "e") is None
    assert history.take_problem(state) is problem
    assert len(history.entries(state)) == 3  # the next page run finds out afresh

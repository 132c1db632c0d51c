"""Adversarial variants of a broken run store: the path is a directory, a FIFO, a symlink to a character device
(``/dev/null``), a dangling or looping symlink, a file with its folder replaced by a file. Each is one
``RunStoreError`` naming the file, nothing is written outside the data folder, nothing hangs, and the history
carries on without it, keeping the new run on screen."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from answerlens.errors import RunStoreError
from answerlens.run_store import RunStore
from answerlens.ui.common import history
from tests.run_store.broken_stores import fields
from tests.ui.conftest import recorded


def directory(path: Path) -> None:
    path.mkdir()


def fifo(path: Path) -> None:
    os.mkfifo(path)


def dev_null(path: Path) -> None:
    path.symlink_to("/dev/null")


def dangling(path: Path) -> None:
    path.symlink_to(path.parent / "gone" / "runs.sqlite3")


def looping(path: Path) -> None:
    path.symlink_to(path)


def folder_is_a_file(path: Path) -> None:
    path.parent.rmdir()
    path.parent.write_text("not a folder")


KINDS: dict[str, Callable[[Path], None]] = {
    "directory": directory, "fifo": fifo, "symlink_to_dev_null": dev_null, "dangling_symlink": dangling,
    "looping_symlink": looping, "folder_is_a_file": folder_is_a_file,
}


@pytest.fixture
def no_stray_journal() -> object:
    before = set(os.listdir("/dev"))
    yield None
    stray = [name for name in set(os.listdir("/dev")) - before if name.startswith("null")]
    for name in stray:  # never leave what a failing run wrote there
        os.unlink(f"/dev/{name}")
    assert not stray, f"the store wrote {stray} in /dev"


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_store_that_is_not_a_regular_file_fails_naming_it(tmp_path: Path, kind: str,
                                                            no_stray_journal: object) -> None:
    path = tmp_path / "data" / "runs.sqlite3"
    path.parent.mkdir()
    KINDS[kind](path)
    for operation in (lambda store: store.runs(), lambda store: store.add(**fields())):
        with pytest.raises(RunStoreError) as caught:
            operation(RunStore(path, timeout=0.1))
        assert str(path) in str(caught.value) and caught.value.remedy
    state: dict = {history.STORE_KEY: RunStore(path, timeout=0.1)}
    assert history.entries(state) == [] or history.problem(state) is not None
    stem = "conflicting_deploy_freeze"
    entry = history.add(state, **fields(stem))
    assert not entry.stored and history.current(state) is entry and entry.assessment == recorded(stem)
    assert history.problem(state) is not None


def _tamper(path: Path, sql: str) -> None:
    import sqlite3

    with sqlite3.connect(path) as db:
        db.execute(sql)


@pytest.mark.parametrize("sql", [
    pytest.param("UPDATE runs SET assessment = replace(assessment, '\"verdict\":\"insufficient\"', "
                 "'\"verdict\":\"answerable\"') WHERE number = 1", id="verdict_in_the_assessment"),
    pytest.param("UPDATE runs SET verdict = 'answerable' WHERE number = 1", id="verdict_column"),
    pytest.param("UPDATE runs SET assessment = replace(assessment, '\"model\":\"hand-written\"', "
                 "'\"model\":\"gpt-4o\"') WHERE number = 1", id="provenance"),
])
def test_a_stored_run_edited_on_disk_is_not_shown_as_genuine(tmp_path: Path, sql: str) -> None:
    """A run whose stored assessment or listed verdict was edited in runs.sqlite3 is refused when it is reopened
    (one run's notice, naming it), never shown with a verdict its evidence does not give."""
    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    store.add(**fields("speech_act_eslint"))
    store.add(**fields("conflicting_deploy_freeze"))
    assert store.assessment(1).verdict.value == "insufficient"
    _tamper(path, sql)
    with pytest.raises(RunStoreError, match=r"Run #1 in the run history .* does not verify") as caught:
        RunStore(path).assessment(1)
    assert not caught.value.whole_file
    state: dict = {history.STORE_KEY: RunStore(path)}
    assert history.find(state, 1) is None and history.problem(state) is not None
    assert history.find(state, 2) is not None

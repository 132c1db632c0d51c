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
from answerlens.ui.common import history
from answerlens.ui.common.runs import RunStore
from tests.ui.common.broken_stores import fields
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

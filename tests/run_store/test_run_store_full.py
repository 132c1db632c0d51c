"""A run store on a disk that is full, or that it may not write: the file is fine, so the error says what the
machine refused and how to free it, never to move aside or delete a history of good runs; the runs stay readable.

A real small tmpfs as root (CI); SQLite's own writes cannot be made to fail from Python, so elsewhere the tests
that need the disk skip, saying so, and the mapping of SQLite's codes is tested on its own."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from answerlens.errors import RunStoreError, StorageError
from answerlens.run_store import RunStore
from answerlens.ui.common import history
from tests.run_store.broken_stores import fields, filled
from tests.small_disk import Disk, can_mount, small_disk

needs_root = pytest.mark.skipif(not can_mount(), reason="a full disk needs root to mount a small tmpfs (CI runs as "
                                "root); SQLite's own writes cannot be failed from Python")


def refused(path: Path, store: RunStore) -> RunStoreError:
    """The refusal of a new run by a store the machine will not let grow: a storage error, the history intact."""
    with pytest.raises(RunStoreError) as caught:
        store.add(**a_bigger_run())
    error = caught.value
    assert isinstance(error, StorageError) and not error.whole_file
    assert str(error).startswith(f"The run history {path} cannot be written: "), error
    assert_never_advises_deleting(error)
    assert [run.number for run in store.runs()] == [1, 2, 3], "the history is still read"
    return error


def a_bigger_run() -> dict:
    return fields("speech_act_eslint") | {"question": "Which lint rules did I enforce? " * 2000}


def assert_never_advises_deleting(error: RunStoreError) -> None:
    text = str(error).lower()
    assert "delete" not in text and "move the file aside" not in text and "move it aside" not in text, text


@contextmanager
def a_store_on_a_small_disk(tmp_path: Path) -> Iterator[tuple[Disk, Path, RunStore]]:
    """Three good runs in a history on a 2 MB tmpfs."""
    with small_disk(tmp_path, size="2m") as disk:
        disk.path.mkdir()
        path = disk.path / "runs.sqlite3"
        yield disk, path, filled(path)


@needs_root
def test_a_full_disk_keeps_the_history_and_says_to_free_space(tmp_path: Path) -> None:
    with a_store_on_a_small_disk(tmp_path) as (disk, path, store):
        before = path.read_bytes()
        disk.fill(margin=0)
        error = refused(path, store)
        assert "cannot be written: the disk is full" in str(error)
        assert "free space on that disk" in error.remedy and "stored runs are intact" in error.remedy
        assert store.open(2).assessment.evaluation_id == store.runs()[1].evaluation_id
        assert path.read_bytes() == before, "nothing of the file was lost"
        state: dict = {history.STORE_KEY: store}
        entry = history.add(state, **a_bigger_run())
        assert not entry.stored and isinstance(history.problem(state), StorageError)
        assert len(history.entries(state)) == 3, "a full disk is no reason to stop showing the history"
        disk.free()
        assert store.add(**a_bigger_run()).number == 1  # the same inputs as run 1: stored in place once there is room


def test_a_history_it_may_not_write_says_so_and_stays_readable(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite3"
    filled(path)
    os.chmod(path, 0o444)
    os.chmod(tmp_path, 0o555)
    try:
        store = RunStore(path)
        if os.geteuid() == 0:  # root writes whatever the mode says: make the file read-only another way
            pytest.skip("root ignores file modes: the read-only mount above covers this case as root")
        refused(path, store)
    finally:
        os.chmod(tmp_path, 0o755)
        os.chmod(path, 0o644)


@needs_root
def test_a_read_only_file_system_keeps_the_history_and_says_so(tmp_path: Path) -> None:
    with a_store_on_a_small_disk(tmp_path) as (disk, path, store):
        subprocess.run(["mount", "-o", "remount,ro", str(disk.path.parent)], check=True)
        error = refused(path, store)
        assert "read-only" in str(error) and "make" in error.remedy and "writable" in error.remedy, error


@pytest.mark.parametrize("code, says", [
    (sqlite3.SQLITE_FULL, "cannot be written: the disk is full"),
    (sqlite3.SQLITE_READONLY, "cannot be written: the file or its folder is read-only"),
    (sqlite3.SQLITE_IOERR, "could not be read or written: the disk reported an I/O error"),
    (sqlite3.SQLITE_IOERR | (4 << 8), "could not be read or written: the disk reported an I/O error"),  # IOERR_WRITE
])
def test_what_the_machine_refused_is_never_called_a_damaged_history(tmp_path: Path, code: int, says: str) -> None:
    """SQLite's codes, mapped on their own (its own writes cannot be failed from Python): a full, read-only or
    failing disk is not a damaged file, so the message never advises moving aside or deleting it."""
    store = filled(tmp_path / "runs.sqlite3")
    exc = sqlite3.OperationalError("disk trouble")
    exc.sqlite_errorcode = code  # type: ignore[attr-defined]
    error = store._error(exc)
    assert says in str(error), error
    assert_never_advises_deleting(error)
    damaged = sqlite3.DatabaseError("file is not a database")
    damaged.sqlite_errorcode = sqlite3.SQLITE_NOTADB  # type: ignore[attr-defined]
    assert "is not a readable SQLite database" in str(store._error(damaged))

"""Durable sample files, written by one dedicated thread so that fsync never holds up the event loop.

Each sample is written to a temporary file, fsynced and renamed into place; the folder is fsynced once for every
batch of renames that queued up meanwhile (one directory fsync for many samples under load, one per sample when
idle). ``save`` returns only once its sample's file and its folder entry are on disk: a sample counts as done
only when it would survive a crash.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from pathlib import Path
from types import TracebackType

from pydantic import BaseModel

from answerlens.storage import replace_file, sync_directory
from answerlens.trials.folder import json_text

BATCH = 256
"""Most renames one directory fsync covers."""

_Job = tuple[Path, BaseModel, asyncio.Future[None]]


class SampleWriter:
    """``async with SampleWriter(loop) as writer: await writer.save(path, sample)``."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._work, name="answerlens-sample-writer", daemon=True)
        self._loop: asyncio.AbstractEventLoop | None = None
        self.directory_syncs = 0
        """How many directory fsyncs covered the samples (fewer than samples under load)."""

    async def __aenter__(self) -> SampleWriter:
        self._loop = asyncio.get_running_loop()
        self._thread.start()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        self._queue.put(None)
        await asyncio.to_thread(self._thread.join)

    async def save(self, path: Path, model: BaseModel) -> None:
        """Write ``model`` to ``path`` durably; raises the ``OSError`` of a failed write."""
        assert self._loop is not None, "use the writer in `async with`"
        done: asyncio.Future[None] = self._loop.create_future()
        self._queue.put((path, model, done))
        await done

    def _work(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < BATCH:
                try:
                    following = self._queue.get_nowait()
                except queue.Empty:
                    break
                if following is None:
                    self._queue.put(None)  # finish this batch, then stop
                    break
                batch.append(following)
            self._write(batch)

    def _write(self, batch: list[_Job]) -> None:
        failures: dict[int, OSError] = {}
        folders: set[Path] = set()
        for number, (path, model, _) in enumerate(batch):
            try:
                replace_file(path, json_text(model))
                folders.add(path.parent)
            except OSError as exc:
                failures[number] = exc
        for folder in folders:
            try:
                sync_directory(folder)
            except OSError as exc:
                failures.update({number: exc for number, (path, _, _) in enumerate(batch) if path.parent == folder})
        assert self._loop is not None
        self.directory_syncs += len(folders)
        for number, (_, _, done) in enumerate(batch):
            self._loop.call_soon_threadsafe(_settle, done, failures.get(number))


def _settle(done: asyncio.Future[None], failure: OSError | None) -> None:
    if done.cancelled():
        return
    if failure is None:
        done.set_result(None)
    else:
        done.set_exception(failure)

"""The writer thread: every saved sample is whole on disk when ``save`` returns; a failed write raises there."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from answerlens.trials.log import SampleError
from answerlens.trials.writer import SampleWriter


async def test_saves_are_durable_files_and_share_directory_fsyncs(tmp_path: Path) -> None:
    errors = [SampleError(kind="k", message=f"message {index}") for index in range(40)]
    async with SampleWriter() as writer:
        await asyncio.gather(*(writer.save(tmp_path / f"s{index}.json", error) for index, error in enumerate(errors)))
        for index in range(40):  # each file is complete the moment its save returned
            assert json.loads((tmp_path / f"s{index}.json").read_text())["message"] == f"message {index}"
    assert 1 <= writer.directory_syncs <= 40
    assert not list(tmp_path.glob(".*.tmp"))


async def test_a_failed_write_raises_in_the_saver(tmp_path: Path) -> None:
    async with SampleWriter() as writer:
        with pytest.raises(FileNotFoundError):
            await writer.save(tmp_path / "missing" / "s.json", SampleError(kind="k", message="m"))
        await writer.save(tmp_path / "ok.json", SampleError(kind="k", message="m"))  # the writer goes on
    assert (tmp_path / "ok.json").exists()

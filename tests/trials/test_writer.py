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


def test_a_run_whose_samples_cannot_be_written_stops_and_says_why(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import errno

    from answerlens.engine.runner import run_trial
    from answerlens.trials import writer as writer_module
    from answerlens.trials.dataset import load_dataset
    from tests.oracle_server import oracle_server
    from tests.trials.helpers import REPLIES, config, question_cases, write_dataset

    def full(path: Path, text: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer_module, "replace_file", full)
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    with oracle_server(REPLIES) as server:
        with pytest.raises(OSError, match="No space left"):
            asyncio.run(run_trial(dataset, config(server.base_url), repeats=20, out=tmp_path / "run",
                                  concurrency=2))
        assert sum(server.requests.values()) < 120  # it stopped sending, it did not run to the end

"""Rerunning a sweep into its folder with another number of repeats (the app reuses the folder for it)."""

from __future__ import annotations

import threading
from pathlib import Path

from answerlens.sweeps.reader import read_sweep, verify_sweep
from answerlens.sweeps.run import run_sweep
from answerlens.trials.runner import Progress
from tests.context_server import context_server
from tests.sweeps.helpers import QUESTION, REQUIREMENTS, bundle_data, config


async def test_more_repeats_then_fewer_read_and_verify_as_the_last_run_asked(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    with context_server(REQUIREMENTS) as server:
        for repeats, total in ((1, 1), (3, 3), (2, 2)):
            outcome = await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=out,
                                      formats=["compact"], repeats=repeats)
            assert outcome.result is not None and len(outcome.result.cells[0].samples) == total
            assert len(read_sweep(out).cells[0].samples) == total
            assert verify_sweep(out) == (total, [])
        assert server.calls == 3


async def test_a_rerun_with_more_repeats_cancelled_leaves_an_unfinished_sweep(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    cancel = threading.Event()

    def progress(update: Progress) -> None:
        cancel.set()

    with context_server(REQUIREMENTS) as server:
        await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=out, formats=["compact"], repeats=1)
        stopped = await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=out, formats=["compact"],
                                  repeats=4, concurrency=1, progress=progress, cancel=cancel)
    assert stopped.cancelled and stopped.result is None
    assert not (out / "result.json").exists()  # the one-repeat result is not this sweep's any more
    assert read_sweep(out).repeats == 4
    assert verify_sweep(out)[1] == ["no result.json (the sweep has not finished; rerun it to resume)"]


async def test_a_rerun_restores_a_deleted_or_damaged_bundle_json(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    with context_server(REQUIREMENTS) as server:
        await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=out, formats=["compact"], repeats=1)
        for damage in ((out / "bundle.json").unlink, lambda: (out / "bundle.json").write_text('{"records": [')):
            damage()
            again = await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=out, formats=["compact"],
                                    repeats=1)
            assert again.reused_samples == 1 and again.new_samples == 0
            assert verify_sweep(out) == (1, [])

from pathlib import Path

from answerlens.ui.packing import sweep_job
from answerlens.ui.packing.sweep_job import SweepJob
from tests.context_server import context_server
from tests.sweeps.helpers import QUESTION, REQUIREMENTS, bundle, config


def job(base_url: str, out: Path, **extra: object) -> SweepJob:
    values: dict = {"question": QUESTION, "answer": None, "bundle": bundle(), "bundle_name": "b.json",
                    "config": config(base_url), "formats": ("compact",), "budgets": ("packed", "90%"), "out": out,
                    "repeats": 2, "concurrency": 1, "cells": 2, **extra}
    return SweepJob(**values)


def test_a_sweep_runs_in_the_background_and_counts_calls(tmp_path: Path) -> None:
    with context_server(REQUIREMENTS) as server:
        running = sweep_job.start(job(server.base_url, tmp_path / "s"))
        assert running.wait(60)
    assert running.failure is None and running.outcome is not None and running.outcome.result is not None
    assert running.total == 4 and running.progress is not None and running.progress.done == 4


def test_cancel_keeps_what_finished(tmp_path: Path) -> None:
    with context_server(REQUIREMENTS, hold_after=1) as server:
        running = sweep_job.start(job(server.base_url, tmp_path / "s"))
        assert server.wait_held(1)
        running.cancel.set()
        server.release.set()
        assert running.wait(60)
    assert running.outcome is not None and running.outcome.cancelled and running.outcome.result is None
    assert 1 <= running.outcome.new_samples < 4


def test_a_refusal_is_a_failure_in_words(tmp_path: Path) -> None:
    running = sweep_job.start(job("http://127.0.0.1:9/v1", tmp_path / "s", repeats=0))
    assert running.wait(30)
    assert running.failure is not None and "repeats" in running.failure.message

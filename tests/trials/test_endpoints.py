"""Several endpoints: requests spread over real loopback servers, a dead one failed over, and the configuration
hash independent of which endpoint served a sample."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from answerlens.cli import main
from answerlens.engine.runner import run_trial
from answerlens.errors import TrialError
from answerlens.trials.dataset import load_dataset
from answerlens.trials.endpoints import read_endpoints
from tests.oracle_server import oracle_server
from tests.trials.helpers import REPLIES, closed_url, config, question_cases, write_dataset


def test_a_dead_endpoint_is_failed_over_and_nothing_becomes_an_error(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    dead = closed_url()
    with oracle_server(REPLIES) as live:
        outcome = asyncio.run(run_trial(dataset, config(dead), repeats=3, out=tmp_path / "run", concurrency=2,
                                        endpoints=[dead, live.base_url]))
        assert sum(live.requests.values()) == 18
    result = outcome.result
    assert result is not None and result.summary.error_samples == 0 and result.summary.samples == 18
    served = {sample.assessment.provider_metadata.base_url for sample in result.samples
              if sample.assessment is not None and sample.assessment.provider_metadata is not None}
    assert served == {live.base_url}
    assert any("not answering" in warning and dead in warning for warning in outcome.warnings)
    # The configuration names the first endpoint whichever served: one hash for the run and every assessment.
    assert result.configuration is not None and result.configuration.base_url == dead
    assert {sample.assessment.configuration_sha256 for sample in result.samples if sample.assessment} == {
        result.configuration_sha256}


def test_requests_spread_over_live_endpoints_with_the_same_hashes_as_one(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = write_dataset(tmp_path / "cases.json", question_cases())
    with oracle_server(REPLIES) as first, oracle_server(REPLIES) as second:
        (tmp_path / "endpoints.txt").write_text(f"# replicas\n{first.base_url}\n\n{second.base_url}  # the other\n")
        code = main(["trial", str(path), "--repeats", "4", "--concurrency", "2", "--out", str(tmp_path / "pool"),
                     "--provider", "openai", "--model", "oracle", "--base-url", "http://model.internal/v1",
                     "--endpoints", str(tmp_path / "endpoints.txt"), "--max-retries", "0"])
        assert code == 1  # gates fail on this dataset; the run finished
        assert sum(first.requests.values()) > 0 and sum(second.requests.values()) > 0
        assert sum(first.requests.values()) + sum(second.requests.values()) == 24
        code = main(["trial", str(path), "--repeats", "4", "--out", str(tmp_path / "one"), "--provider", "openai",
                     "--model", "oracle", "--base-url", "http://model.internal/v1", "--endpoint", first.base_url,
                     "--max-retries", "0"])
    served = [line for line in capsys.readouterr().err.splitlines() if line.startswith("served by: ")]
    assert len(served) == 2 and first.base_url in served[0] and second.base_url in served[0]  # the pool
    assert served[1] == f"served by: {first.base_url} 24"  # one replica, not the configured base URL: said too
    import json

    pool = json.loads((tmp_path / "pool" / "result.json").read_text())
    one = json.loads((tmp_path / "one" / "result.json").read_text())
    assert pool["configuration_sha256"] == one["configuration_sha256"]
    assert pool["configuration"]["base_url"] == "http://model.internal/v1"
    assert pool["summary"] == one["summary"]


def test_endpoint_lists_are_checked(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("# nothing\n\n")
    with pytest.raises(TrialError, match="no endpoint in the file"):
        read_endpoints(tmp_path / "empty.txt")
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    with pytest.raises(TrialError, match="listed twice"):
        asyncio.run(run_trial(dataset, config("http://127.0.0.1:9/v1"), repeats=1, out=tmp_path / "run",
                              endpoints=["http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1/"]))
    with pytest.raises(TrialError, match="not an http"):
        asyncio.run(run_trial(dataset, config("http://127.0.0.1:9/v1"), repeats=1, out=tmp_path / "run",
                              endpoints=["ftp://x"]))

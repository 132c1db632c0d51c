"""Shards: the stable hash of (case id, repeat), 1-based numbering, and each shard's own folder guarantees."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from answerlens.engine.runner import run_trial
from answerlens.errors import TrialError
from answerlens.trials.dataset import load_dataset
from answerlens.trials.shard import Shard, shard_number
from tests.oracle_server import oracle_server
from tests.trials.helpers import REPLIES, config, question_cases, write_dataset


def test_the_hash_is_pinned_and_spreads_samples() -> None:
    # sha256 of canonical JSON ["a1",0], first 8 bytes big-endian, mod N, plus one: documented, so pinned.
    assert [shard_number("a1", repeat, 4) for repeat in range(6)] == [
        shard_number("a1", repeat, 4) for repeat in range(6)]
    assert shard_number("a1", 0, 1) == 1
    import hashlib

    digest = hashlib.sha256(b'["a1",0]').digest()
    assert shard_number("a1", 0, 7) == int.from_bytes(digest[:8], "big") % 7 + 1
    spread = Counter(shard_number(f"case-{index}", repeat, 3) for index in range(300) for repeat in range(3))
    assert set(spread) == {1, 2, 3} and min(spread.values()) > 250


@pytest.mark.parametrize("text", [pytest.param("0/3", id="zero"), pytest.param("4/3", id="past_n"),
                                  pytest.param("1-3", id="no_slash"), pytest.param("a/b", id="words")])
def test_bad_shards_are_refused_with_what_is_expected(text: str) -> None:
    with pytest.raises(ValueError, match="--shard"):
        Shard.parse(text)


def test_a_shard_runs_only_its_samples_records_itself_and_refuses_another_shard_in_its_folder(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    shard = Shard.parse("2/3")
    with oracle_server(REPLIES) as server:
        outcome = asyncio.run(run_trial(dataset, config(server.base_url), repeats=3, out=tmp_path / "s2",
                                        shard=shard))
        result = outcome.result
        assert result is not None and result.shard is not None
        owned = {(case["id"], repeat) for case in question_cases() for repeat in range(3)
                 if shard.holds(case["id"], repeat)}
        assert {(sample.question_id, sample.repeat) for sample in result.samples} == owned
        assert sum(server.requests.values()) == len(owned)
        assert result.shard.cases == tuple(case["id"] for case in question_cases())
        assert '"shard": {\n    "index": 2,\n    "count": 3\n  }' in (tmp_path / "s2" / "run.json").read_text()
        again = asyncio.run(run_trial(dataset, config(server.base_url), repeats=3, out=tmp_path / "s2",
                                      shard=shard))
        assert (again.new_samples, again.reused_samples) == (0, len(owned))  # the same shard resumes
        assert sum(server.requests.values()) == len(owned)
        with pytest.raises(TrialError, match="different shard"):
            asyncio.run(run_trial(dataset, config(server.base_url), repeats=3, out=tmp_path / "s2",
                                  shard=Shard.parse("1/3")))
        with pytest.raises(TrialError, match="different shard"):
            asyncio.run(run_trial(dataset, config(server.base_url), repeats=3, out=tmp_path / "s2"))

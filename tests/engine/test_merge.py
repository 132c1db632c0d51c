"""``trial-merge``: shards merged equal a single run of the same samples (same samples, same summary bytes; only
timing fields normalised); a missing, duplicated or foreign shard is refused by name."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from answerlens.cli import main
from answerlens.engine.merge import merge_shards
from answerlens.engine.runner import run_trial
from answerlens.errors import TrialError
from answerlens.trials.dataset import load_dataset
from answerlens.trials.shard import Shard
from tests.oracle_server import oracle_server
from tests.trials.helpers import REPLIES, config, question_cases, write_dataset

TIMING = {"latency_ms", "finished_at", "wall_seconds"}


def untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: "<timing>" if key in TIMING else untimed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [untimed(item) for item in value]
    return value


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One dataset run whole and as three shards (with an error question, so error samples are merged too)."""
    folder = tmp_path_factory.mktemp("runs")
    cases = question_cases() + [{"id": "e1", "question": "Q e1", "label": "answerable", "bundle": {
        "records": [{"text": "The API uses Postgres 16."}]}}]
    dataset = load_dataset(write_dataset(folder / "cases.json", cases))
    with oracle_server({**REPLIES, "Q e1": 500}) as server:
        for out, shard in (("single", None), ("s1", "1/3"), ("s2", "2/3"), ("s3", "3/3")):
            asyncio.run(run_trial(dataset, config(server.base_url), repeats=3, out=folder / out, concurrency=2,
                                  early_stop=0, shard=Shard.parse(shard) if shard else None))
    return folder


def test_merged_shards_equal_a_single_run(runs: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(["trial-merge", str(runs / "s3"), str(runs / "s1"), str(runs / "s2"), "--out", str(runs / "merged")])
    assert code == 4  # failed samples (the single run's too): the exit code of a run completed with failures
    single = json.loads((runs / "single" / "result.json").read_text())
    merged = json.loads((runs / "merged" / "result.json").read_text())
    assert json.dumps(merged["summary"]) == json.dumps(single["summary"])  # same summary bytes
    assert untimed(merged) == untimed(single)
    assert json.dumps(untimed(merged), indent=2) == json.dumps(untimed(single), indent=2)  # key order too
    assert merged["summary"]["error_samples"] == 3
    singles = sorted(path.name for path in (runs / "single" / "samples").glob("*.json"))
    assert sorted(path.name for path in (runs / "merged" / "samples").glob("*.json")) == singles
    for name in singles:
        one = json.loads((runs / "single" / "samples" / name).read_text())
        assert untimed(json.loads((runs / "merged" / "samples" / name).read_text())) == untimed(one)
    assert (runs / "merged" / "run.json").read_text() == (runs / "single" / "run.json").read_text()
    assert main(["verify", str(runs / "merged")]) == 0
    assert "merged 3 shards: 21 samples" in capsys.readouterr().err


def test_a_missing_shard_is_refused_by_name(runs: Path) -> None:
    with pytest.raises(TrialError, match=r"shard 2/3 is missing \(given: 1/3 in .*s1, 3/3 in .*s3\)"):
        merge_shards([runs / "s1", runs / "s3"], runs / "nowhere")
    assert not (runs / "nowhere" / "result.json").exists()


def test_a_duplicated_shard_is_refused_by_name(runs: Path, tmp_path: Path) -> None:
    shutil.copytree(runs / "s2", tmp_path / "s2-again")
    with pytest.raises(TrialError, match=r"shard 2/3 is given twice: .*s2 and .*s2-again"):
        merge_shards([runs / "s1", runs / "s2", tmp_path / "s2-again", runs / "s3"], tmp_path / "out")


def test_a_single_run_or_a_shard_of_another_run_is_refused_by_name(runs: Path, tmp_path: Path) -> None:
    with pytest.raises(TrialError, match=r"single: a run that was not sharded"):
        merge_shards([runs / "single", runs / "s1"], tmp_path / "out")
    other = tmp_path / "other"
    shutil.copytree(runs / "s2", other)
    result = json.loads((other / "result.json").read_text())
    result["repeats"] = 2
    (other / "result.json").write_text(json.dumps(result))
    with pytest.raises(TrialError, match=r"other: a shard of another run than .*s1 \(its repeats differs\)"):
        merge_shards([runs / "s1", other, runs / "s3"], tmp_path / "out")


def test_a_shard_that_lost_a_sample_is_refused_naming_it(runs: Path, tmp_path: Path) -> None:
    broken = tmp_path / "s1"
    shutil.copytree(runs / "s1", broken)
    result = json.loads((broken / "result.json").read_text())
    lost = result["samples"].pop()
    (broken / "result.json").write_text(json.dumps(result))
    with pytest.raises(TrialError, match=rf"s1: shard 1/3 lacks {lost['case_id']} repeat {lost['repeat']}"):
        merge_shards([broken, runs / "s2", runs / "s3"], tmp_path / "out")


def _relabel(result: dict[str, Any]) -> str:
    sample = next(item for item in result["samples"] if item["label"] == "answerable")
    flipped = "unanswerable"
    sample["label"] = flipped
    for question in result["questions"]:
        if question["question_id"] == sample["case_id"]:
            question["label"] = flipped
    return "label"


def _set_on_sample(name: str, value: str) -> Any:
    def edit(result: dict[str, Any]) -> str:
        result["samples"][0][name] = value
        return name
    return edit


def _question_text(result: dict[str, Any]) -> str:
    result["questions"][0]["question"] += " (edited)"
    return "question"


def _verdict(result: dict[str, Any]) -> str:
    sample = next(item for item in result["samples"] if item["assessment"])
    sample["assessment"]["recommended_action"] = "answer" if sample["assessment"]["recommended_action"] != "answer" \
        else "abstain"
    return "recommended_action"


@pytest.mark.parametrize("edit", [
    pytest.param(_relabel, id="relabelled"),
    pytest.param(_set_on_sample("configuration_sha256", "1" * 64), id="foreign_configuration"),
    pytest.param(_set_on_sample("dataset_sha256", "2" * 64), id="foreign_dataset"),
    pytest.param(_set_on_sample("case_sha256", "3" * 64), id="changed_case_hash"),
    pytest.param(_question_text, id="changed_question_text"),
    pytest.param(_verdict, id="verdict_no_longer_verifies"),
])
def test_a_shard_with_an_edited_sample_is_refused_naming_it(runs: Path, tmp_path: Path, edit: Any) -> None:
    broken = tmp_path / "s2"
    shutil.copytree(runs / "s2", broken)
    result = json.loads((broken / "result.json").read_text())
    field = edit(result)
    (broken / "result.json").write_text(json.dumps(result))
    with pytest.raises(TrialError, match=rf"s2: .*{field}"):
        merge_shards([runs / "s1", broken, runs / "s3"], tmp_path / "out")
    assert not (tmp_path / "out" / "result.json").exists()


def test_a_shard_whose_sample_file_was_edited_is_refused(runs: Path, tmp_path: Path) -> None:
    broken = tmp_path / "s3"
    shutil.copytree(runs / "s3", broken)
    path = sorted((broken / "samples").glob("*.json"))[0]
    sample = json.loads(path.read_text())
    sample["label"] = "unanswerable" if sample["label"] == "answerable" else "answerable"
    path.write_text(json.dumps(sample, indent=2, ensure_ascii=False) + "\n")
    with pytest.raises(TrialError, match=rf"s3: .*{path.name}"):
        merge_shards([runs / "s1", runs / "s2", broken], tmp_path / "out")


def test_merge_needs_the_runs_dataset(runs: Path, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere"
    shutil.copytree(runs, moved, ignore=shutil.ignore_patterns("merged*"))
    (moved / "cases.json").rename(moved / "renamed.json")
    parts = [moved / "s1", moved / "s2", moved / "s3"]
    for part in parts:  # the dataset path recorded in them is the fixture's; point it at the moved (gone) file
        data = json.loads((part / "result.json").read_text())
        data["dataset"]["path"] = str(moved / "cases.json")
        (part / "result.json").write_text(json.dumps(data))
    with pytest.raises(TrialError, match="--dataset"):
        merge_shards(parts, tmp_path / "out")
    merged, _ = merge_shards(parts, tmp_path / "out", dataset=load_dataset(moved / "renamed.json"))
    assert len(merged.samples) == 21

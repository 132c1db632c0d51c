"""Adversarial variants of the trial attacks: saved samples edited on disk (in the sample file, in result.json, or
both with the summary recomputed), shards with duplicated or relabelled samples. Each is refused, naming it."""

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
from answerlens.trials.folder import sample_filename
from answerlens.trials.log import TrialSample
from answerlens.trials.summary import summarize
from tests.oracle_server import oracle_server
from tests.trials.helpers import REPLIES, config, question_cases, write_dataset


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One dataset run as three shards."""
    from answerlens.trials.shard import Shard

    folder = tmp_path_factory.mktemp("runs")
    dataset = load_dataset(write_dataset(folder / "cases.json", question_cases()))
    with oracle_server(REPLIES) as server:
        for out, shard in (("s1", "1/3"), ("s2", "2/3"), ("s3", "3/3")):
            asyncio.run(run_trial(dataset, config(server.base_url), repeats=3, out=folder / out, concurrency=2,
                                  early_stop=0, shard=Shard.parse(shard)))
    return folder

FLIPS = {
    "label": lambda s: {"answerable": "unanswerable"}.get(s["label"], "answerable"),
    "question_type": lambda s: "other-type",
    "answer_label": lambda s: "correct" if s.get("answer_label") != "correct" else "incorrect",
    "case_sha256": lambda s: "5" * 64,
    "dataset_sha256": lambda s: "6" * 64,
    "configuration_sha256": lambda s: "7" * 64,
}


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


@pytest.mark.parametrize("field", list(FLIPS))
@pytest.mark.parametrize(("case_id", "repeat"), [("u2", 0), ("a3", 1)])
def test_a_resume_over_a_finished_run_refuses_a_sample_edited_everywhere(tmp_path: Path, field: str,
                                                                        case_id: str, repeat: int) -> None:
    """The sample is edited in its file AND in result.json (summary recomputed), then the run is resumed."""
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    run = tmp_path / "run"
    with oracle_server(REPLIES) as server:
        asyncio.run(run_trial(dataset, config(server.base_url), repeats=2, out=run))
        path = run / "samples" / sample_filename(case_id, repeat)
        sample = json.loads(path.read_text())
        sample[field] = FLIPS[field](sample)
        write_json(path, sample)
        result = json.loads((run / "result.json").read_text())
        result["samples"] = [sample if (s["case_id"], s["repeat"]) == (case_id, repeat) else s
                             for s in result["samples"]]
        result["summary"] = summarize([TrialSample.model_validate(s) for s in result["samples"]],
                                      drafts=field == "answer_label").model_dump(mode="json")
        write_json(run / "result.json", result)
        with pytest.raises(TrialError) as caught:
            asyncio.run(run_trial(dataset, config(server.base_url), repeats=2, out=run))
    assert path.name in str(caught.value) or f"{case_id} repeat {repeat}" in str(caught.value), caught.value


@pytest.mark.parametrize("field", list(FLIPS))
def test_verify_with_the_dataset_refuses_a_sample_edited_everywhere(tmp_path: Path, field: str,
                                                                   capsys: Any) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    run = tmp_path / "run"
    with oracle_server(REPLIES) as server:
        asyncio.run(run_trial(dataset, config(server.base_url), repeats=2, out=run))
    result = json.loads((run / "result.json").read_text())
    target = result["samples"][3]
    target[field] = FLIPS[field](target)
    write_json(run / "samples" / sample_filename(target["case_id"], target["repeat"]), target)
    result["summary"] = summarize([TrialSample.model_validate(s) for s in result["samples"]],
                                  drafts=field == "answer_label").model_dump(mode="json")
    result.pop("quality_gates", None)
    write_json(run / "result.json", result)
    code = main(["verify", str(run), "--dataset", str(tmp_path / "cases.json")])
    out = capsys.readouterr().out
    assert code == 1 and target["case_id"] in out, out


def _duplicate_in_result(folder: Path) -> None:
    result = json.loads((folder / "result.json").read_text())
    result["samples"].append(result["samples"][0])
    write_json(folder / "result.json", result)


def _duplicate_with_other_assessment(folder: Path) -> None:
    """The same (case, repeat) twice: the second copy carries another repeat's (valid) assessment and latency."""
    result = json.loads((folder / "result.json").read_text())
    first = result["samples"][0]
    other = next(s for s in result["samples"] if s is not first and s["case_id"] != first["case_id"])
    copy = {**other, "case_id": first["case_id"], "question_id": first["question_id"], "repeat": first["repeat"]}
    result["samples"].append(copy)
    write_json(folder / "result.json", result)


def _sample_of_another_shard(folder: Path, runs_dir: Path) -> None:  # noqa: ARG001
    result = json.loads((folder / "result.json").read_text())
    foreign = json.loads((runs_dir / "s1" / "result.json").read_text())["samples"][0]
    result["samples"].append(foreign)
    write_json(folder / "result.json", result)


@pytest.mark.parametrize("edit", [_duplicate_in_result, _duplicate_with_other_assessment])
def test_a_shard_with_a_duplicated_sample_is_refused(runs: Path, tmp_path: Path, edit: Any) -> None:
    broken = tmp_path / "s2"
    shutil.copytree(runs / "s2", broken)
    edit(broken)
    with pytest.raises(TrialError, match="s2"):
        merge_shards([runs / "s1", broken, runs / "s3"], tmp_path / "out")
    assert not (tmp_path / "out" / "result.json").exists()


def test_a_shard_holding_a_sample_of_another_shard_is_refused(runs: Path, tmp_path: Path) -> None:
    broken = tmp_path / "s2"
    shutil.copytree(runs / "s2", broken)
    _sample_of_another_shard(broken, runs)
    with pytest.raises(TrialError, match="s2"):
        merge_shards([runs / "s1", broken, runs / "s3"], tmp_path / "out")


@pytest.mark.parametrize("field", ["label", "question_type", "case_sha256", "configuration_sha256"])
def test_a_shard_relabelled_in_its_file_and_result_is_refused(runs: Path, tmp_path: Path,
                                                              field: str) -> None:
    broken = tmp_path / "s3"
    shutil.copytree(runs / "s3", broken)
    result = json.loads((broken / "result.json").read_text())
    target = result["samples"][-1]
    target[field] = FLIPS[field](target)
    for question in result["questions"]:
        if field in ("label", "question_type") and question["question_id"] == target["case_id"]:
            question[field] = target[field]
    write_json(broken / "samples" / sample_filename(target["case_id"], target["repeat"]), target)
    write_json(broken / "result.json", result)
    with pytest.raises(TrialError, match="s3"):
        merge_shards([runs / "s1", runs / "s2", broken], tmp_path / "out")


def _unsafe_count(result: dict[str, Any]) -> None:
    result["summary"]["unanswerable"]["unsafe_full_answer_count"] = 0


def _samples_count(result: dict[str, Any]) -> None:
    result["summary"]["samples"] += 1


def _gates_passed(result: dict[str, Any]) -> None:
    for gate in result["quality_gates"]["results"].values():
        gate["passed"] = True
    result["quality_gates"]["passed"] = True


def _gate_observed(result: dict[str, Any]) -> None:
    gate = result["quality_gates"]["results"]["unsafe_full_answer_count_max"]
    gate.update(observed=0, passed=True)


@pytest.mark.parametrize("edit", [_unsafe_count, _samples_count, _gates_passed, _gate_observed])
@pytest.mark.parametrize("target", ["folder", "result.json"])
def test_verify_refuses_an_edited_summary_or_gate(tmp_path: Path, capsys: Any, edit: Any, target: str) -> None:
    """The summary and gates in result.json must be what the samples give, not silently recomputed."""
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    run = tmp_path / "run"
    with oracle_server(REPLIES) as server:
        asyncio.run(run_trial(dataset, config(server.base_url), repeats=1, out=run))
    assert main(["verify", str(run)]) == 0
    capsys.readouterr()
    result = json.loads((run / "result.json").read_text())
    edit(result)
    write_json(run / "result.json", result)
    code = main(["verify", str(run if target == "folder" else run / "result.json")])
    out = capsys.readouterr().out
    assert code == 1 and ("summary" in out or "quality_gates" in out), out


@pytest.mark.parametrize("edit", [
    pytest.param(lambda r: r["samples"][0]["assessment"]["requirements"][0].update(status="Supported"), id="enum"),
    pytest.param(lambda r: r["samples"][0].update(label="Answerable"), id="label_case"),
    pytest.param(lambda r: r["samples"][0].update(extra=1), id="unknown_sample_field"),
    pytest.param(lambda r: r["samples"][0].pop("repeat"), id="repeat_removed"),
    pytest.param(lambda r: r.update(extra=1), id="unknown_result_field"),
])
@pytest.mark.parametrize("target", ["folder", "result.json"])
def test_a_trial_edited_out_of_shape_is_not_verified_exit_1(tmp_path: Path, capsys: Any, edit: Any,
                                                            target: str) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    run = tmp_path / "run"
    with oracle_server(REPLIES) as server:
        asyncio.run(run_trial(dataset, config(server.base_url), repeats=1, out=run))
    result = json.loads((run / "result.json").read_text())
    edit(result)
    write_json(run / "result.json", result)
    assert main(["verify", str(run if target == "folder" else run / "result.json")]) == 1
    (run / "result.json").write_text("{not json")
    assert main(["verify", str(run / "result.json")]) == 2
    capsys.readouterr()


OURS = ("raw_output", "raw_output_text", "raw_output_sha256", "provider_metadata", "provenance_sha256")


@pytest.mark.parametrize(("refs", "ids"), [
    pytest.param(["m99"], ["5b1f3f8e-6d0a-4c1e-9a57-0c6f7b0f2a11"], id="unknown_ref"),
    pytest.param(["m2"], None, id="ref_names_the_other_memory"),
    pytest.param(["M1"], None, id="wrong_case"),
])
def test_verify_with_the_dataset_refuses_a_prme_shaped_forgery_in_a_sample(tmp_path: Path, capsys: Any,
                                                                          refs: list[str], ids: Any) -> None:
    """A sample's assessment stripped to PRME's shape and made 'supported' by a citation its case's bundle does
    not give, rehashed, in result.json and the sample file alike (summary recomputed)."""
    from tests.forgery import rehashed

    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    run = tmp_path / "run"
    with oracle_server(REPLIES) as server:
        asyncio.run(run_trial(dataset, config(server.base_url), repeats=1, out=run))
    result = json.loads((run / "result.json").read_text())
    target = next(s for s in result["samples"] if s["case_id"] == "a3")
    assessment = target["assessment"]
    for key in OURS:
        assessment.pop(key, None)
    first = next(s for s in result["samples"] if s["case_id"] == "a1")["assessment"]["requirements"][0]
    memory = first["evidence_ids"][0]
    for item in assessment["requirements"]:
        item.update(claimed_status=None, citations=[], status="supported", evidence_refs=refs,
                    evidence_ids=ids or [memory])
    rehashed(assessment)
    write_json(run / "samples" / sample_filename("a3", 0), target)
    result["summary"] = summarize([TrialSample.model_validate(s) for s in result["samples"]],
                                  drafts=False).model_dump(mode="json")
    result.pop("quality_gates", None)
    write_json(run / "result.json", result)
    code = main(["verify", str(run), "--dataset", str(tmp_path / "cases.json")])
    out = capsys.readouterr().out
    assert code == 1 and "a3" in out and "evidence_" in out, out


@pytest.mark.parametrize("edit", [_gates_passed, _gate_observed])
def test_the_reader_shows_gates_the_samples_give_not_the_recorded_ones(tmp_path: Path, edit: Any) -> None:
    """What the app's Trials page and the Compare page read (``read_trial``): gates flipped to passed in
    result.json are shown as the samples give them, as the summary already is."""
    from answerlens.trials.reader import read_trial

    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    run = tmp_path / "run"
    with oracle_server(REPLIES) as server:
        asyncio.run(run_trial(dataset, config(server.base_url), repeats=1, out=run))
    genuine = read_trial(run).quality_gates
    assert genuine is not None and not genuine.passed
    result = json.loads((run / "result.json").read_text())
    edit(result)
    write_json(run / "result.json", result)
    assert read_trial(run).quality_gates == genuine

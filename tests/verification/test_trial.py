"""Saved samples are checked, not trusted: a resume refuses a sample whose label, case, configuration or assessment
no longer matches the dataset and run (naming it); ``verify`` of a run folder checks every sample file against
result.json and re-derives it, and ``--dataset`` checks labels and case hashes against the dataset."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from answerlens import TrialError
from answerlens.cli import main
from answerlens.engine.runner import run_trial
from answerlens.trials.dataset import load_dataset
from answerlens.trials.folder import sample_filename
from tests.oracle_server import oracle_server
from tests.trials.helpers import REPLIES, config, question_cases, write_dataset


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("finished")
    dataset = load_dataset(write_dataset(folder / "cases.json", question_cases()))
    with oracle_server(REPLIES) as server:
        asyncio.run(run_trial(dataset, config(server.base_url), repeats=2, out=folder / "run"))
    return folder


def _copy(finished_run: Path, tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(finished_run, tmp_path / "copy")
    return tmp_path / "copy"


def _flip_label(data: dict[str, Any]) -> None:
    data["label"] = "unanswerable" if data["label"] == "answerable" else "answerable"


def _other_question(data: dict[str, Any]) -> None:
    from answerlens.audit import evaluation_id, sha256_text
    from tests.forgery import rehashed

    data["assessment"]["query_sha256"] = sha256_text("Q a2")
    data["assessment"]["evaluation_id"] = evaluation_id(data["assessment"])
    rehashed(data["assessment"])


def _flip_verdict(data: dict[str, Any]) -> None:
    data["assessment"]["verdict"] = "insufficient"


def _foreign_config(data: dict[str, Any]) -> None:
    data["assessment"]["configuration_sha256"] = "4" * 64


@pytest.mark.parametrize(("edit", "named"), [
    pytest.param(_flip_label, "label", id="label_flipped"),
    pytest.param(_other_question, "query_sha256", id="assessment_of_another_question"),
    pytest.param(_flip_verdict, "verdict", id="verdict_flipped"),
    pytest.param(_foreign_config, "configuration_sha256", id="assessment_of_another_configuration"),
])
def test_a_resume_refuses_an_edited_saved_sample_naming_it(tmp_path: Path,
                                                           edit: Callable[[dict[str, Any]], None],
                                                           named: str) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    with oracle_server(REPLIES) as server:
        asyncio.run(run_trial(dataset, config(server.base_url), repeats=2, out=tmp_path / "run"))
        (tmp_path / "run" / "result.json").unlink()
        sample = tmp_path / "run" / "samples" / sample_filename("a1", 1)
        data = json.loads(sample.read_text())
        edit(data)
        sample.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        with pytest.raises(TrialError) as caught:
            asyncio.run(run_trial(dataset, config(server.base_url), repeats=2, out=tmp_path / "run"))
    message = str(caught.value)
    assert sample.name in message and named in message, message
    assert not (tmp_path / "run" / "result.json").exists()


def run(capsys: Any, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out + err


def test_verify_of_a_run_folder_checks_every_sample_file(finished_run: Path, tmp_path: Path, capsys: Any) -> None:
    folder = _copy(finished_run, tmp_path)
    assert run(capsys, "verify", str(folder / "run"))[0] == 0
    sample = folder / "run" / "samples" / sample_filename("u1", 0)
    data = json.loads(sample.read_text())
    _flip_verdict(data)
    sample.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    code, out = run(capsys, "verify", str(folder / "run"))
    assert code == 1 and sample.name in out and "verdict" in out, out


def test_verify_of_a_run_folder_names_a_missing_sample_file(finished_run: Path, tmp_path: Path,
                                                            capsys: Any) -> None:
    folder = _copy(finished_run, tmp_path)
    (folder / "run" / "samples" / sample_filename("a3", 1)).unlink()
    code, out = run(capsys, "verify", str(folder / "run"))
    assert code == 1 and sample_filename("a3", 1) in out, out


def test_verify_with_the_dataset_checks_labels_and_case_hashes(finished_run: Path, tmp_path: Path,
                                                               capsys: Any) -> None:
    folder = _copy(finished_run, tmp_path)
    cases = str(folder / "cases.json")
    assert run(capsys, "verify", str(folder / "run"), "--dataset", cases)[0] == 0
    result_path = folder / "run" / "result.json"
    result = json.loads(result_path.read_text())
    for sample in result["samples"]:  # relabelled in result.json and every sample file alike
        if sample["case_id"] == "a2":
            _flip_label(sample)
            (folder / "run" / "samples" / sample_filename("a2", sample["repeat"])).write_text(
                json.dumps(sample, indent=2, ensure_ascii=False) + "\n")
    for question in result["questions"]:
        if question["question_id"] == "a2":
            _flip_label(question)
    from answerlens.trials.log import TrialSample
    from answerlens.trials.summary import summarize

    result["summary"] = summarize([TrialSample.model_validate(s) for s in result["samples"]],
                                  drafts=False).model_dump(mode="json")
    result.pop("quality_gates", None)
    result_path.write_text(json.dumps(result))
    code, out = run(capsys, "verify", str(folder / "run"), "--dataset", cases)
    assert code == 1 and "a2" in out and "label" in out, out
    other = write_dataset(tmp_path / "other.json", question_cases()[:3])
    code, out = run(capsys, "verify", str(folder / "run"), "--dataset", str(other))
    assert code == 1 and "dataset" in out, out

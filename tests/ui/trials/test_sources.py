"""Datasets, result files and the way from a trial sample back to its context (pure)."""

from __future__ import annotations

import asyncio
import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from answerlens import AnswerabilityConfig, DatasetError
from answerlens.engine.runner import run_trial
from answerlens.html import trial_rows as trial_results
from answerlens.trials.dataset import load_dataset, run_dataset
from answerlens.trials.log import ResultKind
from answerlens.trials.reader import read_trial
from answerlens.ui.trials import sources as trial_sources
from answerlens.ui.trials.sources import InspectTarget
from tests.oracle_server import judgement, oracle_server
from tests.paths import PRME, SAMPLES

BUNDLE = {"records": [{"text": "The API uses Postgres 16."}, {"text": "The cache is Redis 7."}]}
CASES = [{"id": "pg", "question": "Which database?", "label": "answerable", "bundle": BUNDLE},
         {"id": "owner", "question": "Who owns it?", "label": "unanswerable", "bundle": BUNDLE}]


def test_shipped_datasets_and_the_default_output_directory() -> None:
    assert list(trial_sources.shipped_datasets(SAMPLES)) == ["drafts.jsonl", "questions.json"]
    assert trial_sources.shipped_datasets(Path("/nowhere")) == {}
    out = trial_sources.default_out(Path("/work"), "my cases!.jsonl", datetime(2026, 1, 2, 3, 4, 5))
    assert out == Path("/work/runs/my_cases-20260102-030405")


@pytest.mark.parametrize(
    "text, name, ids",
    [
        pytest.param(json.dumps(CASES), "a.json", [], id="inline"),
        pytest.param(json.dumps([{**CASES[0], "bundle": "../b.json"}]), "a.json", ["pg"], id="list"),
        pytest.param(json.dumps({"cases": [{"bundle": "/etc/passwd"}]}), "a.json", ["#0"], id="cases_object"),
        pytest.param('{"id": "x", "bundle": "b.json"}\n\n{"id": "y", "bundle": {}}', "a.jsonl", ["x"], id="jsonl"),
        pytest.param("{not json", "a.json", [], id="unparsable"),
    ],
)
def test_path_bundles(text: str, name: str, ids: list[str]) -> None:
    assert trial_sources.path_bundles(text, name) == ids


def test_uploads_never_read_server_paths_and_need_a_dataset_suffix() -> None:
    cases = [{**CASES[0], "bundle": "/etc/passwd"}]
    with pytest.raises(DatasetError, match=r"cannot use bundle paths.*\(case pg\)"):
        trial_sources.load_upload(json.dumps(cases).encode(), "cases.json")
    with pytest.raises(DatasetError, match="a .json or .jsonl file"):
        trial_sources.load_upload(b"[]", "cases.txt")
    assert trial_sources.upload_name("../../x y.JSONL") == "x_y.jsonl"
    assert len(trial_sources.load_upload(json.dumps(CASES).encode(), "cases.json").cases) == 2


def test_keep_upload_refuses_to_overwrite_another_dataset(tmp_path: Path) -> None:
    data = json.dumps(CASES).encode()
    assert trial_sources.keep_upload(data, "cases.json", tmp_path).path == tmp_path / "cases.json"
    trial_sources.keep_upload(data, "cases.json", tmp_path)  # the same bytes again: fine
    with pytest.raises(DatasetError, match="already holds a different dataset"):
        trial_sources.keep_upload(json.dumps(CASES[:1]).encode(), "cases.json", tmp_path)


def _run(folder: Path, replies: dict) -> Path:
    dataset = load_dataset(folder / "cases.json")
    with oracle_server(replies) as server:
        config = AnswerabilityConfig(provider="openai", model="oracle", base_url=server.base_url, timeout=10,
                                     max_retries=0)
        asyncio.run(run_trial(dataset, config, repeats=1, out=folder / "run"))
    return folder / "run"


def test_a_sample_finds_its_context_until_the_dataset_changes(tmp_path: Path) -> None:
    (tmp_path / "cases.json").write_text(json.dumps(CASES))
    run = _run(tmp_path, {"Which database?": judgement(("Database", "supported", ["m1"])), "Who owns it?": 503})
    report = read_trial(run)
    refs = {ref.question_id: ref for ref in trial_results.samples(report)}
    dataset = run_dataset(report, tmp_path)
    assert not isinstance(dataset, str)
    target = trial_sources.inspect_target(report, refs["pg"], dataset)
    assert isinstance(target, InspectTarget)
    assert target.question == "Which database?" and target.bundle_file is None
    assert json.loads(target.bundle_json or "") == BUNDLE
    assert target.context.endswith("- [m1] \"The API uses Postgres 16.\"\n- [m2] \"The cache is Redis 7.\"")
    assert "error" in str(trial_sources.inspect_target(report, refs["owner"], dataset))

    (tmp_path / "cases.json").write_text(json.dumps(CASES, indent=2))
    assert "changed since the run" in str(run_dataset(report, tmp_path))
    (tmp_path / "cases.json").unlink()
    assert "not there any more" in str(run_dataset(report, tmp_path))


def test_an_unfinished_run_directory_names_its_dataset(tmp_path: Path) -> None:
    (tmp_path / "cases.json").write_text(json.dumps(CASES))
    run = _run(tmp_path, {})
    (run / "result.json").unlink()
    report = read_trial(run)
    assert report.kind == ResultKind.RUN
    assert not isinstance(run_dataset(report, tmp_path), str)


def test_upstream_results_have_no_bundles_and_open_by_path_or_upload(tmp_path: Path) -> None:
    upstream = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"
    shutil.copy(upstream, tmp_path / "beam.json")
    report = trial_sources.open_result("beam.json", tmp_path)
    assert "do not contain them" in str(run_dataset(report, tmp_path))
    assert trial_sources.open_upload(upstream.read_bytes(), "beam.json").summary == report.summary
    with pytest.raises(DatasetError, match="no such file"):
        trial_sources.open_result("'missing.json'", tmp_path)


def test_an_upload_that_is_not_a_trial_result_says_why() -> None:
    with pytest.raises(DatasetError, match=r"up\.json: cannot read trial result"):
        trial_sources.open_upload(b"{", "up.json")
    with pytest.raises(DatasetError, match=r"up\.json: not a trial result"):
        trial_sources.open_upload(b"[]", "up.json")


def test_an_upload_is_not_written_into_a_folder_of_other_files(tmp_path: Path) -> None:
    from answerlens.errors import TrialError
    from answerlens.ui.trials.sources import keep_upload

    (tmp_path / "notes.txt").write_text("mine\n")
    with pytest.raises(TrialError, match=r"holds files a trial did not write \(notes.txt\)"):
        keep_upload(b'[{"id": "a", "question": "q", "label": "answerable", "bundle": {"records": []}}]',
                    "cases.json", tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notes.txt"]

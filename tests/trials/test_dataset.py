"""Datasets: read whole and checked up front; every problem names its case and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answerlens import DatasetError
from answerlens.trials.dataset import load_dataset
from answerlens.trials.log import AnswerLabel, QuestionLabel
from tests.paths import REPO

BUNDLE = {"records": [{"text": "The API uses Postgres 16."}, {"text": "The cache is Redis 7."}]}


def write_dataset(path: Path, cases: list[dict]) -> Path:
    path.write_text(json.dumps(cases))
    return path


@pytest.mark.parametrize(
    "content, suffix, message",
    [
        pytest.param([{"id": "x", "question": "Q", "bundle": BUNDLE}], ".json", "cases[0] (case 'x'): label: Field required",
                     id="missing_label"),
        pytest.param([{"id": "x", "question": "Q", "label": "maybe", "bundle": BUNDLE}], ".json",
                     "cases[0] (case 'x'): label: Input should be 'answerable' or 'unanswerable'", id="bad_label"),
        pytest.param([{"id": "x", "question": "Q", "label": "answerable", "bundle": BUNDLE, "answer": "A"}], ".json",
                     "answer and answer_label go together", id="answer_without_label"),
        pytest.param([{"id": "x", "question": "Q", "label": "answerable", "bundle": "missing.json"}], ".json",
                     "cases[0] (case 'x'): field 'bundle': cannot read missing.json", id="missing_bundle_file"),
        pytest.param([{"id": "x", "question": "Q", "label": "answerable", "bundle": {"records": [{"txt": 1}]}}],
                     ".json", "field 'bundle'", id="bad_inline_bundle"),
        pytest.param([{"id": "x", "question": "Q", "label": "answerable", "bundle": BUNDLE}] * 2, ".json",
                     "cases[1] (case 'x'): duplicate id 'x' (first at cases[0])", id="duplicate_id"),
        pytest.param([{"id": "x\nok (6 assessments verified)", "question": "Q", "label": "answerable",
                       "bundle": BUNDLE}], ".json", "id holds U+000A", id="newline_in_id"),
        pytest.param([{"id": "a\u202eb", "question": "Q", "label": "answerable", "bundle": BUNDLE}], ".json",
                     "id holds U+202E (RIGHT-TO-LEFT OVERRIDE)", id="bidi_in_id"),
        pytest.param("{\"id\": 1}\n{broken", ".jsonl", "line 2 is not JSON", id="broken_jsonl"),
        pytest.param("[]", ".json", "has no cases", id="empty"),
        pytest.param({"cases": 3}, ".json", "expected a list of cases", id="wrong_shape"),
    ],
)
def test_dataset_errors_name_the_case_and_field(tmp_path: Path, content, suffix: str, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / f"cases{suffix}"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    with pytest.raises(DatasetError) as info:
        load_dataset(path)
    assert message in str(info.value)


def test_jsonl_and_relative_bundle_paths(tmp_path: Path) -> None:
    (tmp_path / "bundles").mkdir()
    (tmp_path / "bundles" / "b.json").write_text(json.dumps(BUNDLE))
    lines = [{"id": "a", "question": "Q", "label": "answerable", "bundle": "bundles/b.json"},
             {"id": "b", "question": "Q", "label": "unanswerable", "bundle": BUNDLE}]
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n")
    dataset = load_dataset(path)
    assert [item.case.id for item in dataset.cases] == ["a", "b"]
    assert dataset.cases[0].bundle.context_references.keys() == {"m1", "m2"}


@pytest.mark.parametrize("name", ["questions.json", "drafts.jsonl"])
def test_shipped_datasets_are_valid(name: str) -> None:
    dataset = load_dataset(REPO / "sample_bundles" / "trials" / name)
    assert len(dataset.cases) >= 12
    assert {item.case.label for item in dataset.cases} == set(QuestionLabel)
    if name.startswith("drafts"):
        assert dataset.all_drafts
        assert {item.case.answer_label for item in dataset.cases} == set(AnswerLabel)


def test_uncitable_reader_bundle_is_bad_input_at_load(tmp_path: Path) -> None:
    bundle = {"records": [{"text": "x"}], "packing": {"context_format": "reader", "context_citations": False}}
    path = write_dataset(tmp_path / "cases.json", [{"id": "r", "question": "Q", "label": "answerable",
                                                    "bundle": bundle}])
    with pytest.raises(DatasetError, match="case 'r'.*context_citations=True"):
        load_dataset(path)


def test_planned_samples_run_case_by_case_then_repeat(tmp_path: Path) -> None:
    cases = [{"id": case_id, "question": "Q", "label": "answerable", "bundle": BUNDLE} for case_id in ("b", "a")]
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", cases))
    assert [(item.case.id, repeat) for item, repeat in dataset.planned(2)] == [("b", 0), ("b", 1), ("a", 0), ("a", 1)]
    assert dataset.cases[0].case.label == QuestionLabel.ANSWERABLE and not dataset.has_drafts

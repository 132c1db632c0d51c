"""What the Trials page builds once per result: keyed by the result's content (and the dataset's, for computed
flags), so an unchanged result is never built twice and a changed one never shows the figures of the one before."""

from __future__ import annotations

import json
from pathlib import Path

from answerlens.trials.dataset import load_dataset
from answerlens.trials.reader import read_trial
from answerlens.trials.result import TrialResult
from answerlens.ui.trials import report_model as model
from answerlens.ui.trials import report_view
from tests.paths import SAMPLES

EXAMPLE = SAMPLES / "trials" / "example" / "result.json"


def grid_questions(report: model.Report) -> set[str]:
    return {point[0].split("#")[0] for trace in report.charts.grid.data for point in trace.customdata}


def outcomes(report: model.Report, question_id: str) -> list[str]:
    """The question's outcome per repeat in the questions table (``·``: no sample)."""
    frame = report.questions
    return str(frame.loc[frame["question"] == question_id, "outcomes"].item()).split()


def test_the_same_result_read_again_is_built_once(example: TrialResult) -> None:
    again = read_trial(EXAMPLE)  # another object, another session: the same content
    assert again is not example and model.digest(again) == model.digest(example)
    assert report_view.report_of(model.digest(again), again) is report_view.report_of(model.digest(example), example)


def test_a_changed_result_is_built_anew_with_its_own_figures_and_tables(example: TrialResult) -> None:
    first = report_view.report_of(model.digest(example), example)
    dropped = example.samples[-1].question_id
    fewer = example.model_copy(update={"samples": tuple(s for s in example.samples if s.question_id != dropped)})
    assert model.digest(fewer) != model.digest(example)
    built = report_view.report_of(model.digest(fewer), fewer)
    assert built is not first
    assert dropped in grid_questions(first) and dropped not in grid_questions(built)
    assert len(built.samples) == len(fewer.samples) < len(first.samples)
    assert set(outcomes(first, dropped)) != {"·"} and set(outcomes(built, dropped)) == {"·"}  # no sample left


def test_one_changed_sample_changes_the_key(example: TrialResult) -> None:
    sample = example.samples[0]
    edited = sample.model_copy(update={"latency_ms": (getattr(sample, "latency_ms", None) or 0) + 1})
    changed = example.model_copy(update={"samples": (edited, *example.samples[1:])})
    assert model.digest(changed) != model.digest(example)


def test_a_changed_bundle_file_changes_the_dataset_key(tmp_path: Path) -> None:
    """The flags are computed from the bundles: a bundle file edited under an unchanged dataset file is another
    dataset for the cache."""
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps({"records": [{"text": "The API uses Postgres 16."}]}))
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([{"id": "pg", "question": "Which database?", "label": "answerable",
                                  "bundle": "bundle.json"}]))
    before = load_dataset(cases)
    assert model.dataset_digest(load_dataset(cases)) == model.dataset_digest(before)
    bundle.write_text(json.dumps({"records": [{"text": "The API uses Postgres 17."}]}))
    after = load_dataset(cases)
    assert after.sha256 == before.sha256 and model.dataset_digest(after) != model.dataset_digest(before)

"""The Trials page's tables as DataFrames, and their CSV exports (pure pandas)."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from answerlens.html import trial_rows as trial_results
from answerlens.html.trial_rows import QuestionRow
from answerlens.trials.result import TrialResult
from answerlens.ui.common import filters
from answerlens.ui.common.filters import TableFilter
from answerlens.ui.trials import tables as trial_tables


def test_one_row_per_question_with_numeric_columns(golden: TrialResult) -> None:
    refs = trial_results.samples(golden)
    frame = trial_tables.questions(trial_results.questions(golden, refs))
    assert list(frame.columns) == list(trial_tables.QUESTION_COLUMNS)
    assert len(frame) == golden.summary.questions
    assert frame["citation errors"].dtype == "int64" and frame["citation errors"].sum() == golden.summary.citation_errors
    first = frame.iloc[0]
    assert first["question"] == golden.summary.per_question[0].question_id
    assert len(first["outcomes"].split()) == 2  # one outcome per repeat
    assert frame.sort_values("citation errors", ascending=False).iloc[0]["citation errors"] == frame[
        "citation errors"].max()


def test_one_row_per_sample_errors_and_all(golden: TrialResult) -> None:
    refs = trial_results.samples(golden)
    frame = trial_tables.samples(refs)
    assert list(frame.columns) == list(trial_tables.SAMPLE_COLUMNS)
    assert len(frame) == len(golden.samples) and list(frame["sample"]) == [ref.key for ref in refs]
    errors = frame[frame["outcome"] == "error"]
    assert len(errors) == golden.summary.error_samples and errors["verdict"].isna().all()
    assert set(errors["error"]) == {"server_error", "schema"}
    assert frame["latency ms"].dtype == "float64"


def test_upstream_samples_have_no_latency(upstream: TrialResult) -> None:
    frame = trial_tables.samples(trial_results.samples(upstream))
    assert frame["latency ms"].isna().all() and frame["draft"].isna().all()


def test_csv_round_trips_and_defuses_formulas() -> None:
    rows = [QuestionRow("=HYPERLINK(\"x\")", "answerable", None, ("answer", None), 1, 2, 1, 1),
            QuestionRow("plain", "unanswerable", "t", ("abstain", "error"), 0, 0, 0, 0)]
    text = trial_tables.csv_text(trial_tables.questions(rows, {"plain": "@SUM(A1)?"}))
    back = pd.read_csv(io.StringIO(text))
    assert list(back.columns) == list(trial_tables.QUESTION_COLUMNS)
    assert back["question"].tolist() == ["'=HYPERLINK(\"x\")", "plain"]
    assert back["question text"].isna().tolist()[0] and back["question text"].tolist()[1] == "'@SUM(A1)?"
    assert back["outcomes"].tolist() == ["answer ·", "abstain error"]
    assert back["citation errors"].tolist() == [1, 0]


def test_question_texts_are_ours_only(golden: TrialResult, upstream: TrialResult) -> None:
    texts = trial_tables.question_texts(golden)
    assert len(texts) == golden.summary.questions
    assert texts["billing-pgbouncer-mode"] == "How does billing-api connect to its primary database?"
    assert trial_tables.question_texts(upstream) == {}


@pytest.mark.parametrize(
    "choice, count",
    [
        pytest.param(TableFilter(search="pgbouncer"), 2, id="search_words_of_the_question"),
        pytest.param(TableFilter(allowed={"Label": frozenset({"unanswerable"})}), 28, id="label"),
        pytest.param(TableFilter(allowed={"Action": frozenset({"error"})}), 2, id="action_error"),
        pytest.param(TableFilter(allowed={"Error kind": frozenset({"read_timeout"})}), 2, id="error_kind"),
        pytest.param(TableFilter(allowed={"Action": frozenset({"answer"}), "Label": frozenset({"unanswerable"})}), 4,
                     id="unsafe_answers"),
    ],
)
def test_the_example_samples_filter_by_question_label_action_and_error_kind(
        example: TrialResult, choice: TableFilter, count: int) -> None:
    frame = trial_tables.samples(trial_results.samples(example), trial_tables.question_texts(example))
    assert len(filters.apply(frame, trial_tables.SAMPLE_SPEC, choice)) == count


def test_the_example_questions_filter_by_an_action_in_any_repeat(example: TrialResult) -> None:
    refs = trial_results.samples(example)
    frame = trial_tables.questions(trial_results.questions(example, refs), trial_tables.question_texts(example))
    actions = filters.facet_values(frame, trial_tables.QUESTION_SPEC.facets[1])
    assert actions == ["abstain", "answer", "answer_partially", "error", "surface_conflict"]  # "·" is not one
    unstable = filters.apply(frame, trial_tables.QUESTION_SPEC, TableFilter(
        allowed={"Action": frozenset({"answer"}), "Label": frozenset({"unanswerable"})}))
    assert unstable["question"].tolist() == ["billing-restore-runbook-written", "dashboard-analytics-clickhouse",
                                             "dashboard-db-cache-craig"]

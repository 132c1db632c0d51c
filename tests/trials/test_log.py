"""The log's entries: one outcome per sample, upstream labels, and the round-trip rule every reader applies."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from answerlens.trials.log import (
    OutcomeKind,
    QuestionLabel,
    SampleError,
    TrialSample,
    UpstreamSample,
    parse_samples,
    round_trip_problem,
)
from tests.paths import FIXTURES, PRME

GOLDEN = json.loads((FIXTURES / "trials" / "questions-run.json").read_text())["result"]
UPSTREAM = json.loads((PRME / "trials" / "beam-100k-answerability-dev-v2-results.json").read_text())


def first(kind: str) -> dict[str, Any]:
    return next(s for s in GOLDEN["samples"] if (s["assessment"] is None) == (kind == "error"))


@pytest.mark.parametrize("kind", ["assessed", "error"])
def test_our_samples_dump_exactly_as_read(kind: str) -> None:
    raw = first(kind)
    sample = TrialSample.model_validate(raw)
    assert sample.model_dump(mode="json") == raw and list(sample.model_dump(mode="json")) == list(raw)
    if kind == "error":
        assert sample.outcome_kind == OutcomeKind.ERROR and isinstance(sample.outcome, SampleError)
    else:
        assert sample.outcome_kind == OutcomeKind.ASSESSMENT and sample.outcome is sample.assessment


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"assessment": None}, id="neither"),
        pytest.param({"error": {"kind": "timeout", "message": "slow"}}, id="both"),
    ],
)
def test_a_sample_holds_exactly_one_outcome(change: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match="either an assessment or an error"):
        TrialSample.model_validate({**first("assessed"), **change})


def test_an_upstream_sample_is_labelled_by_its_question_type() -> None:
    samples = parse_samples(UPSTREAM["samples"], UpstreamSample, "upstream")
    labels = {sample.question_type: sample.label for sample in samples}
    assert labels["abstention"] == QuestionLabel.UNANSWERABLE
    assert {label for kind, label in labels.items() if kind != "abstention"} == {QuestionLabel.ANSWERABLE}
    assert all(sample.outcome_kind == OutcomeKind.ASSESSMENT for sample in samples)


@pytest.mark.parametrize(
    "recorded, dumped, problem",
    [
        pytest.param({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "x", "c": None}], "d": 0}, None, id="defaults_added"),
        pytest.param({"a": 1}, {"a": 1.0}, "$.a reads back as 1.0", id="int_to_float"),
        pytest.param({"a": "1"}, {"a": 1}, "$.a reads back as 1", id="text_to_int"),
        pytest.param({"a": True}, {"a": 1}, "$.a reads back as 1", id="bool_to_int"),
        pytest.param({"a": [1, 2]}, {"a": [1]}, "$.a reads back as [1]", id="shorter_list"),
        pytest.param({"a": 1, "z": 2}, {"a": 1}, "$.z is not read", id="dropped_key"),
        pytest.param({"a": {"b": "X"}}, {"a": {"b": "x"}}, '$.a.b reads back as "x"', id="nested"),
    ],
)
def test_round_trip_problem(recorded: Any, dumped: Any, problem: str | None) -> None:
    found = round_trip_problem(recorded, dumped)
    assert found == problem if problem is None else found is not None and found.startswith(problem)

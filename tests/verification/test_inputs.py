"""The checks of a report's embedded data: every shipped sample passes them, and each kind of edit is named."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from answerlens.report.embedded import AssessmentData, TrialData, envelope_of
from answerlens.verification.inputs import assessment_problems, citable_context, input_problems
from answerlens.verification.trial import first_difference, trial_problems
from tests.report.builders import (
    OPINION_SAMPLES,
    SAMPLE_NAMES,
    TRIALS,
    embedded,
    replayed,
    report_of,
    trial_report_of,
)

SAMPLES = [pytest.param(name, id=name) for name in SAMPLE_NAMES]


def data_of(name: str, *, with_opinion: bool = False) -> AssessmentData:
    report = envelope_of(embedded(report_of(name, with_opinion=with_opinion))).report
    assert isinstance(report, AssessmentData)
    return report


def edited(data: AssessmentData, edit: Callable[[dict[str, Any]], None]) -> AssessmentData:
    document = copy.deepcopy(data.document)
    edit(document)
    return data.model_copy(update={"document": document})


@pytest.mark.parametrize("name", SAMPLES)
def test_every_sample_passes_with_its_citations_re_derived_from_the_embedded_context(name: str) -> None:
    data = data_of(name)
    assert assessment_problems(data) == ()
    if data.document["model_called"]:
        assert data.context_format is not None, "the context's header names its format"
        assert citable_context(data, data.document) is not None


@pytest.mark.parametrize("name", SAMPLES)
def test_the_embedded_context_decides_as_the_bundle_did(name: str) -> None:
    bundle, _ = replayed(name)
    data = data_of(name)
    assert data.context == bundle.exact_context
    assert assessment_problems(data, bundle=bundle) == ()


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in OPINION_SAMPLES])
def test_a_second_opinion_and_its_strict_view_pass(name: str) -> None:
    data = data_of(name, with_opinion=True)
    assert "second_opinion" in data.document
    assert assessment_problems(data) == ()
    assert assessment_problems(data, bundle=replayed(name)[0]) == ()


def test_a_moved_highlight_is_caught_even_when_the_format_is_not_stated() -> None:
    """Without a stated format the context's header names it, and the spans are re-derived in it."""
    def move(document: dict[str, Any]) -> None:
        document["requirements"][0]["citations"][0]["span"]["start"] += 1

    data = edited(data_of("hostile_record_text"), move)
    assert any(p.startswith("requirements[0].citations[0].span") for p in assessment_problems(data))
    unstated = assessment_problems(data.model_copy(update={"context_format": None}))
    assert any(p.startswith("requirements[0].citations[0].span") for p in unstated)


@pytest.mark.parametrize(("change", "problem"), [
    pytest.param({"question": "Who approved the hotfix?"}, "question: not the question assessed", id="question"),
    pytest.param({"answer": "The CTO approved it."}, "answer: the assessment checked no draft answer", id="answer"),
    pytest.param({"context": "- [m1] \"made up\""}, "context: not the exact context assessed", id="context"),
    pytest.param({"context": "PLACEHOLDER\n"}, "context: not the exact context assessed", id="trailing_newline"),
])
def test_inputs_must_be_the_ones_assessed(change: dict[str, str], problem: str) -> None:
    data = data_of("hostile_record_text")
    if change.get("context") == "PLACEHOLDER\n":
        change = {"context": data.context + "\n"}
    assert [found.split(" (")[0] for found in input_problems(data.model_copy(update=change))] == [problem]


def test_a_draft_must_be_the_one_assessed() -> None:
    data = data_of("draft_answer_unsupported_claim")
    assert data.answer is not None and input_problems(data) == []
    assert input_problems(data.model_copy(update={"answer": data.answer + " Also Dana."})) == [
        "answer: not the draft assessed (its sha256 differs from answer_sha256)"]


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(document: dict[str, Any]) -> None:
        target: Any = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


@pytest.mark.parametrize(("name", "edit", "named"), [
    pytest.param("hostile_record_text", _set(("verdict",), "answerable"), "verdict 'answerable' does not follow",
                 id="verdict"),
    pytest.param("hostile_record_text", _set(("requirements", 1, "status"), "supported"),
                 "requirements[1].status", id="status"),
    pytest.param("hostile_record_text", _set(("requirements", 0, "explanation"), "m1 proves it all"),
                 "requirements[0].explanation: differs from the raw reply's", id="explanation"),
    pytest.param("compact_citation_errors", _set(("requirements", 1, "citations", 0, "reason"), "empty"),
                 "requirements[1].citations[0].reason", id="discard_reason"),
    pytest.param("hostile_record_text", _set(("evaluation_id",), "0" * 64), "evaluation_id", id="evaluation_id"),
    pytest.param("hostile_record_text", _set(("provider_metadata", "origin"), "live"),
                 "provider_metadata", id="origin_contradicts_recorded"),
    pytest.param("hostile_record_text", _set(("sneaky",), 1), "$.sneaky: unknown field", id="unknown_field"),
])
def test_an_edited_field_is_named(name: str, edit: Callable[[dict[str, Any]], None], named: str) -> None:
    found = assessment_problems(edited(data_of(name), edit))
    assert any(named in problem for problem in found), found


@pytest.mark.parametrize(("edit", "named"), [
    pytest.param(_set(("second_opinion", "requirements", 0, "flags"), []),
                 "second_opinion.requirements[0].flags", id="flag_removed"),
    pytest.param(_set(("verdict",), "answerable"), "verdict: 'answerable' is not the strict policy's",
                 id="strict_verdict_on_top"),
    pytest.param(_set(("second_opinion", "policy"), "standard"), "second_opinion", id="policy"),
])
def test_an_edited_second_opinion_is_named(edit: Callable[[dict[str, Any]], None], named: str) -> None:
    found = assessment_problems(edited(data_of("second_opinion_plan_as_fact", with_opinion=True), edit))
    assert any(named in problem for problem in found), found


def trial_data(name: str) -> TrialData:
    report = envelope_of(embedded(trial_report_of(name))).report
    assert isinstance(report, TrialData)
    return report


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in TRIALS])
def test_every_trial_result_passes(name: str) -> None:
    checked = trial_problems(trial_data(name).result)
    assert checked.problems == () and checked.result is not None


def _edit_result(data: TrialData, edit: Callable[[dict[str, Any]], None]) -> TrialData:
    result = copy.deepcopy(data.result)
    edit(result)
    return data.model_copy(update={"result": result})


@pytest.mark.parametrize(("name", "edit", "named"), [
    pytest.param("questions", _set(("summary", "unanswerable", "unsafe_full_answer_count"), 0),
                 "summary.unanswerable.unsafe_full_answer_count: differs from what the samples give", id="summary"),
    pytest.param("questions", _set(("quality_gates", "results", "citation_errors_max", "passed"), True),
                 "quality_gates.results.citation_errors_max.passed", id="gate_passed"),
    pytest.param("questions", _set(("quality_gates", "results", "made_up_min"),
                                   {"required": 1, "observed": 1, "passed": True}),
                 "quality_gates.results.made_up_min: not a gate", id="unknown_gate"),
    pytest.param("upstream", _set(("samples", 3, "assessment", "verdict"), "insufficient"),
                 "samples[3] ", id="sample_verdict"),
    pytest.param("drafts", _set(("configuration", "api_key"), "sk-secret"), "result: ", id="unreadable"),
])
def test_an_edited_trial_result_is_named(name: str, edit: Callable[[dict[str, Any]], None], named: str) -> None:
    checked = trial_problems(_edit_result(trial_data(name), edit).result)
    assert any(named in problem for problem in checked.problems), checked.problems


@pytest.mark.parametrize(("left", "right", "where"), [
    pytest.param({"a": [1, 2]}, {"a": [1, 2]}, None, id="equal"),
    pytest.param({"a": [1, 2]}, {"a": [1, 3]}, "$.a[1]", id="list_item"),
    pytest.param({"a": 1}, {"a": 1.0}, "$.a", id="type"),
    pytest.param({"a": 1}, {"a": 1, "b": 2}, "$.b", id="added_key"),
    pytest.param({"a": [1]}, {"a": [1, 1]}, "$.a", id="length"),
])
def test_first_difference(left: Any, right: Any, where: str | None) -> None:
    assert first_difference(left, right, "$") == where

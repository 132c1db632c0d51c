"""Making a report: inputs are checked against the assessment's hashes, the context's format is read from its
header, the page depends on its embedded data alone (rendering it again gives the same bytes), and sizes."""

from __future__ import annotations

import pytest

from answerlens import load_bundle
from answerlens.errors import ReportError
from answerlens.records import ContextFormat
from answerlens.render import context_format_of, render_bundle
from answerlens.report.embedded import generator
from answerlens.verification.report import assessed_answer, assessment_report, render, trial_report
from tests.paths import PRME
from tests.report.builders import (
    OPINION_SAMPLES,
    SAMPLE_NAMES,
    TRIALS,
    embedded,
    large_report,
    large_sample,
    replayed,
    report_of,
    sample,
    trial,
    trial_report_of,
)

MAX_BYTES = 1_000_000


@pytest.mark.parametrize(("fixture", "expected"), [
    pytest.param("rendered_reader_citations.txt", ContextFormat.READER, id="prme_reader"),
    pytest.param("rendered_reader_plain.txt", ContextFormat.READER, id="prme_reader_plain"),
    pytest.param("rendered_compact.txt", ContextFormat.COMPACT, id="prme_compact"),
    pytest.param("rendered_auditable.txt", ContextFormat.AUDITABLE, id="prme_auditable"),
])
def test_the_format_is_read_from_prmes_headers(fixture: str, expected: ContextFormat) -> None:
    assert context_format_of((PRME / "bundles" / fixture).read_text(encoding="utf-8").strip()) == expected


@pytest.mark.parametrize("fmt", [pytest.param(fmt, id=fmt.value) for fmt in ContextFormat])
def test_the_format_is_read_from_our_headers(fmt: ContextFormat) -> None:
    records = {"records": [{"text": "a record", "speaker": "Dana"}, {"text": "no start", "event_time": None}]}
    bundle = render_bundle(load_bundle(records), fmt.value, context_citations=fmt == ContextFormat.READER)
    assert context_format_of(bundle.exact_context) == fmt


@pytest.mark.parametrize("context", [pytest.param("", id="empty"),
                                     pytest.param("- [m1] \"a custom render\"", id="no_header")])
def test_an_unknown_format_is_none(context: str) -> None:
    assert context_format_of(context) is None


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in SAMPLE_NAMES])
def test_rendering_the_embedded_data_again_gives_the_same_bytes(name: str) -> None:
    html = report_of(name)
    assert render(embedded(html)) == html
    assert embedded(html)["generator"] == generator()


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in OPINION_SAMPLES])
def test_with_a_second_opinion_too(name: str) -> None:
    html = report_of(name, with_opinion=True)
    assert render(embedded(html)) == html


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in TRIALS])
def test_and_for_trials(name: str) -> None:
    html = trial_report_of(name)
    assert render(embedded(html)) == html
    assert trial_report(trial(name), source=f"{name}.json") == html, "no clock, no environment"


@pytest.mark.parametrize(("change", "message"), [
    pytest.param({"question": "Something else?"}, "question: not the question assessed", id="question"),
    pytest.param({"context": "- [m1] \"another context\""}, "context: not the exact context", id="context"),
    pytest.param({"answer": "A draft nobody checked."}, "answer: the assessment checked no draft", id="answer"),
])
def test_inputs_that_are_not_the_ones_assessed_are_refused(change: dict[str, str], message: str) -> None:
    bundle, assessment = replayed("speech_act_eslint")
    inputs = {"question": sample("speech_act_eslint").question, "context": bundle.exact_context, **change}
    with pytest.raises(ReportError, match=message):
        assessment_report(assessment, **inputs)


def test_the_question_is_compared_as_assessed_stripped() -> None:
    bundle, assessment = replayed("speech_act_eslint")
    html = assessment_report(assessment, question=f"  {sample('speech_act_eslint').question}\n",
                             context=bundle.exact_context)
    assert embedded(html)["report"]["question"] == sample("speech_act_eslint").question


def test_a_printed_document_is_embedded_as_printed() -> None:
    bundle, assessment = replayed("speech_act_eslint")
    printed = assessment.model_dump(mode="json")
    html = assessment_report(printed, question=sample("speech_act_eslint").question, context=bundle.exact_context)
    assert embedded(html)["report"]["document"] == printed


def test_a_second_opinion_goes_with_a_typed_assessment_only() -> None:
    from tests.report.builders import opinion_of

    bundle, assessment = replayed("second_opinion_plan_as_fact")
    with pytest.raises(ReportError, match="inside the printed document"):
        assessment_report(assessment.model_dump(mode="json"), question=sample("second_opinion_plan_as_fact").question,
                          context=bundle.exact_context, opinion=opinion_of("second_opinion_plan_as_fact"))


@pytest.mark.parametrize(("text", "kept"), [
    pytest.param(None, False, id="none"), pytest.param("Something else.", False, id="edited"),
    pytest.param("DRAFT", True, id="the_draft"), pytest.param("  DRAFT  ", True, id="the_draft_padded"),
])
def test_the_draft_box_is_kept_only_when_it_is_the_draft_assessed(text: str | None, kept: bool) -> None:
    _, assessment = replayed("draft_answer_unsupported_claim")
    draft = sample("draft_answer_unsupported_claim").answer
    assert draft is not None
    given = text.replace("DRAFT", draft) if text else text
    assert assessed_answer(assessment, given) == (draft if kept else None)
    _, no_draft = replayed("speech_act_eslint")
    assert assessed_answer(no_draft, draft) is None


def test_the_500_record_report_stays_under_a_megabyte() -> None:
    item = large_sample()
    assert len(item.bundle["records"]) == 500  # type: ignore[call-overload]
    html = large_report()
    assert len(html.encode("utf-8")) < MAX_BYTES
    assert html.count('class="al-line"') >= 500
    assert render(embedded(html)) == html


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in TRIALS])
def test_trial_reports_stay_small(name: str) -> None:
    assert len(trial_report_of(name).encode("utf-8")) < MAX_BYTES

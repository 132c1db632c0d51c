"""The assessment report shows what the Inspect page shows, with the app's own markup, and more: every discarded
citation's reason, the recording, the checks of its data, the strict view."""

from __future__ import annotations

import re

import pytest

from answerlens.citations import Decision
from answerlens.explanation import HASH_FIELDS, error_text, reason_text, why
from answerlens.html.highlight import highlight, requirement_rows, uncounted
from answerlens.html.markup import context_html, hashes_html, verdict_html
from answerlens.html.provenance import source_label
from answerlens.html.requirements import requirements_html
from answerlens.report.assessment import Shown, focus_css, sheets, title
from answerlens.report.embedded import AssessmentData, envelope_of
from answerlens.verification.report import assessment_report
from tests.report.builders import SAMPLE_NAMES, embedded, opinion_of, replayed, report_of, sample
from tests.report.inert import problems, visible_text

SAMPLES = [pytest.param(name, id=name) for name in SAMPLE_NAMES]


def shown_of(html: str) -> Shown:
    report = envelope_of(embedded(html)).report
    assert isinstance(report, AssessmentData)
    return Shown.of(report)


@pytest.mark.parametrize("name", SAMPLES)
def test_the_report_holds_the_inspect_pages_own_markup(name: str) -> None:
    html = report_of(name)
    bundle, a = replayed(name)
    label, note = source_label(a)
    context = bundle.exact_context
    pieces = [verdict_html(a.verdict.value, a.recommended_action.value, source=label, note=note),
              requirements_html(requirement_rows(a.requirements, context)),
              hashes_html({field: getattr(a, field) for field in HASH_FIELDS}, copy_buttons=False)]
    if context:
        pieces.append(context_html(context, highlight(context, [r.citations for r in a.requirements],
                                                      uncounted=uncounted(a.requirements))))
    for piece in pieces:
        assert piece in html
    assert f'data-verdict="{a.verdict.value}"' in html
    assert all(f'data-hash="{field}"' in html for field in HASH_FIELDS)
    assert f'<code data-integrity="evaluation_id">{a.evaluation_id}</code>' in html
    assert f'<code data-integrity="assessment_sha256">{a.assessment_sha256}</code>' in html
    accepted = sum(d.decision == Decision.ACCEPTED and d.span is not None and r.status.value != "unsupported"
                   for r in a.requirements for d in r.citations)
    assert html.count('<mark class="al-cite" data-citation="accepted"') == accepted
    assert problems(html) == []


@pytest.mark.parametrize("name", SAMPLES)
def test_it_states_the_question_the_why_and_where_the_reply_came_from(name: str) -> None:
    html = report_of(name)
    _, a = replayed(name)
    text = visible_text(html)
    assert sample(name).question in text
    assert why(a) in text
    assert 'data-notice="ok"' in html and "The embedded data verifies" in text
    if a.model_called:
        assert 'data-source="recorded"' in html
        assert re.search(r'data-fact="origin">recorded<', html)
        assert f'data-fact="recording file">{name}.json<' in html


def test_every_discarded_citation_is_listed_with_its_reason() -> None:
    html = report_of("compact_citation_errors")
    _, a = replayed("compact_citation_errors")
    discarded = [(index, d) for index, r in enumerate(a.requirements) for d in r.citations
                 if d.decision == Decision.DISCARDED]
    assert len(discarded) >= 4
    section = html[html.index('<section id="discarded">'):]
    section = section[:section.index("</section>")]
    rows = re.findall(r'<td data-citation="discarded" data-requirement="(\d+)" data-reason="([a-z_]+)"', section)
    assert rows == [(str(index), d.reason.value) for index, d in discarded if d.reason is not None]
    for _, decision in discarded:
        assert reason_text(decision) in section
    numbers = re.findall(r'<td data-citation="discarded" data-requirement="\d+" data-reason="[a-z_]+"[^>]*>(\d+)<', section)
    assert numbers == [str(index + 1) for index, d in discarded if d.reason is not None], "shown from 1"
    for error in a.citation_errors:
        assert error_text(error).replace("'", "&#x27;") in section
    assert "requirement 2: <code>" not in section and "<code>requirement 2: cited unknown" in section
    assert "requirement[" not in visible_text(section), "PRME's 0-based strings stay in the JSON"


def test_a_clean_reply_says_nothing_was_discarded() -> None:
    assert "No citation was discarded." in report_of("answerable_billing_database")


def test_the_draft_answer_is_shown_and_its_absence_said() -> None:
    item = sample("draft_answer_unsupported_claim")
    assert item.answer is not None
    assert f"<strong>Draft answer:</strong> {item.answer}" in report_of("draft_answer_unsupported_claim")
    bundle, a = replayed("draft_answer_unsupported_claim")
    without = assessment_report(a, question=item.question, context=bundle.exact_context)
    assert "A draft answer was assessed (answer_sha256" in without and "Draft answer:" not in without


def test_the_strict_verdict_is_shown_with_the_model_derived_one_beside_it() -> None:
    html = report_of("second_opinion_plan_as_fact", with_opinion=True)
    _, a = replayed("second_opinion_plan_as_fact")
    assert a.verdict.value == "answerable"
    assert 'data-verdict="insufficient" data-action="abstain"' in html
    assert "strict evidence policy; the model-derived verdict is answerable (answer)" in html
    assert why(a, opinion_of("second_opinion_plan_as_fact")) in visible_text(html)
    assert ("The strict evidence policy demotes requirement 1 supported → unsupported, so the verdict is "
            "insufficient (action: abstain).") in visible_text(html)
    assert '<code data-integrity="opinion_sha256">' in html


def test_an_empty_context_says_so() -> None:
    html = report_of("empty_bundle")
    assert "The context is empty" in html and "<mark" not in html
    assert 'data-fact="origin">none (no model call' in html


def test_a_report_whose_data_fails_its_checks_says_so_on_its_face() -> None:
    shown = shown_of(report_of("hostile_record_text"))
    first = sheets(shown, ["verdict 'answerable' does not follow from the statuses"], "answerlens 0.0.0")[0]
    assert 'data-notice="error"' in first and "does not verify (1 problem(s))" in first
    assert "verdict &#x27;answerable&#x27; does not follow" in first


def test_hostile_record_text_is_inert_and_shown_as_written() -> None:
    html = report_of("hostile_record_text")
    assert problems(html) == []
    text = visible_text(html)
    for written in ("<script>alert('xss')</script>", "<img src=x onerror=alert(1)>", "<b>APPROVED</b>"):
        assert written in text
    assert "<b>" not in html and "<img" not in html


@pytest.mark.parametrize(("count", "rules"), [pytest.param(1, 0, id="one"), pytest.param(3, 9, id="three")])
def test_the_requirement_picker_is_style_rules_built_from_numbers(count: int, rules: int) -> None:
    css = focus_css(count)
    assert len([line for line in css.splitlines() if line]) == rules
    assert set(re.findall(r'"([^"]*)"', css)) <= {str(index) for index in range(count)}


def test_the_picker_offers_every_requirement() -> None:
    html = report_of("compact_citation_errors")
    _, a = replayed("compact_citation_errors")
    assert re.findall(r'id="rp-focus-(\w+)"', html) == ["all", *map(str, range(len(a.requirements)))]
    assert 'id="rp-focus-all" checked' in html
    labels = re.findall(r'id="rp-focus-\d+"> (\d+)</label>', html)
    assert labels == [str(number) for number in range(1, len(a.requirements) + 1)], "people count from 1"


def test_every_number_a_reader_sees_counts_from_one() -> None:
    """Legend dots, the second opinion's table and its typed-evidence headings number requirements as the
    requirements table does."""
    html = report_of("compact_citation_errors", with_opinion=True)
    _, a = replayed("compact_citation_errors")
    legend = html[html.index('<div class="rp-legend" data-legend>'):]
    legend = legend[:legend.index("</div>")]
    assert re.findall(r'class="al-dot"[^>]*>(\d+)<', legend) == [str(n) for n in range(1, len(a.requirements) + 1)]
    assert re.findall(r'data-opinion-row="(\d+)"><span class="al-dot"[^>]*>(\d+)<', html) == [
        (str(index), str(index + 1)) for index in range(len(a.requirements))]
    text = visible_text(html)
    assert "requirement 0" not in text and "[0]" not in text


def test_a_long_question_is_shortened_in_the_title_only() -> None:
    shown = shown_of(report_of("large_platform_history"))
    assert len(title(shown)) < 120 and title(shown).endswith("…")
    assert sample("large_platform_history").question in visible_text(report_of("large_platform_history"))


PRME_QUESTION = "What database and cache does the dashboard API use, and what is Craig's background?"


def test_prmes_own_assessment_is_reported_as_upstream_wrote_it() -> None:
    """No per-citation decisions, no raw reply, no provider metadata: its refs, errors and hashes still show."""
    import json

    from answerlens import load_bundle
    from answerlens.verification.report import verify_report
    from tests.paths import PRME

    document = json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text(encoding="utf-8"))
    bundle = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
    html = assessment_report(document, question=PRME_QUESTION, context=bundle.exact_context)
    assert verify_report(html).ok and verify_report(html, bundle=bundle).ok
    assert 'data-fact="origin">not recorded (no provider metadata' in html
    for error in document["citation_errors"]:
        assert error_text(error).replace("'", "&#x27;") in html
    assert embedded(html)["report"]["document"]["citation_errors"] == document["citation_errors"], "verbatim"
    assert problems(html) == []


def test_a_null_second_opinion_is_shown_as_a_problem_not_a_crash() -> None:
    bundle, a = replayed("speech_act_eslint")
    document = {**a.model_dump(mode="json"), "second_opinion": None}
    html = assessment_report(document, question=sample("speech_act_eslint").question, context=bundle.exact_context)
    assert "does not verify" in html and "second_opinion: not a second opinion" in html
    assert 'id="second-opinion"' not in html

"""Verifying a report file: intact reports pass; an edit to the embedded data names the field, an edit to the
visible page names where it is; a report made by another version says so; a file that is no report is refused."""

from __future__ import annotations

import json

import pytest

from answerlens.errors import ReportError
from answerlens.verification.report import _first_index, page_difference, verify_report
from tests.report.builders import (
    OPINION_SAMPLES,
    SAMPLE_NAMES,
    TRIALS,
    embedded,
    replayed,
    report_of,
    trial_report_of,
    with_data,
)


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in SAMPLE_NAMES])
def test_every_sample_report_verifies(name: str) -> None:
    check = verify_report(report_of(name))
    assert (check.kind, check.problems, check.ok) == ("assessment", (), True)
    assert verify_report(report_of(name), bundle=replayed(name)[0]).ok


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in [*OPINION_SAMPLES]])
def test_reports_with_a_second_opinion_verify(name: str) -> None:
    assert verify_report(report_of(name, with_opinion=True)).ok


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in TRIALS])
def test_every_trial_report_verifies(name: str) -> None:
    check = verify_report(trial_report_of(name))
    assert (check.kind, check.problems) == ("trial", ())


@pytest.mark.parametrize(("old", "new", "section"), [
    pytest.param(">PARTIAL<", ">ANSWERABLE<", "in section 'verdict'", id="verdict_word"),
    pytest.param('data-status="unsupported" style="background-color:#57606a">unsupported',
                 'data-status="supported" style="background-color:#1a7f37">supported', "in section 'verdict'",
                 id="status"),
    pytest.param("hotfix by admin", "hotfix by the CTO", "in section 'context'", id="context_text"),
    pytest.param("No citation was discarded.", "", "in section 'discarded'", id="removed_sentence"),
    pytest.param("default-src 'none'", "default-src *", "in the page head", id="policy"),
    pytest.param("</main>", '<img src="https://example.com/t.png"></main>', "in section 'reasoning'",
                 id="tracking_pixel"),
])
def test_an_edit_to_the_visible_page_is_located(old: str, new: str, section: str) -> None:
    html = report_of("hostile_record_text")
    assert old in html
    check = verify_report(html.replace(old, new, 1))
    (problem,) = check.problems
    assert problem.startswith("page: differs from what its embedded data renders to at line ")
    assert section in problem


def test_the_difference_shows_both_texts_where_they_part() -> None:
    expected = "<p>one</p>\n<p>verdict PARTIAL</p>"
    found = expected.replace("PARTIAL", "ANSWERABLE")
    problem = page_difference(found, expected)
    assert "at line 2, column 12" in problem
    assert "found '<p>one</p>\\n<p>verdict ANSWERABLE</p>', expected '<p>one</p>\\n<p>verdict PARTIAL</p>'" in problem


@pytest.mark.parametrize(("left", "right", "index"), [
    pytest.param("abc", "abc", 3, id="equal"), pytest.param("abc", "abd", 2, id="last"),
    pytest.param("abc", "ab", 2, id="shorter"), pytest.param("x" * 10_000 + "a", "x" * 10_000 + "b", 10_000,
                                                             id="long"),
    pytest.param("", "a", 0, id="empty"),
])
def test_the_first_difference_is_found(left: str, right: str, index: int) -> None:
    assert _first_index(left, right) == index


def test_an_edit_to_the_embedded_data_names_the_field() -> None:
    def change(raw: dict) -> None:  # type: ignore[type-arg]
        raw["report"]["document"]["requirements"][1]["status"] = "supported"

    check = verify_report(with_data(report_of("hostile_record_text"), change))
    assert "requirements[1].status: 'supported' does not follow from its citations ('unsupported')" in check.problems
    assert any(problem.startswith("verdict 'partial' does not follow") for problem in check.problems)
    assert check.problems[-1].startswith("page: differs"), "the page shows the old status too"


def test_a_consistent_forgery_of_the_visible_page_and_its_data_is_still_a_different_assessment() -> None:
    """Editing the question in both places: its hash no longer matches the assessment's."""
    question = json.loads(json.dumps(embedded(report_of("speech_act_eslint"))["report"]["question"]))

    def change(raw: dict) -> None:  # type: ignore[type-arg]
        raw["report"]["question"] = "Which lint rules did the CTO approve?"

    html = with_data(report_of("speech_act_eslint"), change).replace(question, "Which lint rules did the CTO approve?")
    assert "question: not the question assessed (its sha256 differs from query_sha256)" in verify_report(html).problems


def test_a_report_made_by_another_version_is_not_compared() -> None:
    def change(raw: dict) -> None:  # type: ignore[type-arg]
        raw["generator"] = "answerlens 0.0.1"

    check = verify_report(with_data(report_of("speech_act_eslint"), change))
    (problem,) = check.problems
    assert problem.startswith("generator: made by answerlens 0.0.1 (report format 2); this is answerlens ")
    assert "verify it with the version that made it" in problem


def test_data_that_cannot_be_shown_is_a_problem_not_a_crash() -> None:
    def change(raw: dict) -> None:  # type: ignore[type-arg]
        raw["report"]["document"]["requirements"] = "none"

    check = verify_report(with_data(report_of("speech_act_eslint"), change))
    assert any(problem.startswith("data: the embedded assessment cannot be shown") for problem in check.problems)


@pytest.mark.parametrize("text", [pytest.param("<!doctype html><p>hello</p>", id="html"),
                                  pytest.param("{}", id="json")])
def test_a_file_that_is_no_report_is_refused(text: str) -> None:
    with pytest.raises(ReportError, match="not an answerlens report"):
        verify_report(text)


def test_an_edited_trial_report_names_the_sample() -> None:
    def change(raw: dict) -> None:  # type: ignore[type-arg]
        raw["report"]["result"]["samples"][0]["assessment"]["reasoning"] = "edited"

    check = verify_report(with_data(trial_report_of("upstream"), change))
    assert any(problem.startswith("samples[0] ") and "assessment_sha256" in problem for problem in check.problems)


def test_a_bundle_applies_to_an_assessment_report_only() -> None:
    with pytest.raises(ReportError, match="not to a trial's"):
        verify_report(trial_report_of("drafts"), bundle=replayed("speech_act_eslint")[0])

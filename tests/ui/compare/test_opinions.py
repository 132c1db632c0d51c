"""Second-opinion differences between two assessments (pure): the shipped pair, flags added and removed, verifier
status changes, strict verdicts, and printed documents split back into their audited assessment."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

from answerlens.claims.models import ClaimVerificationStatus
from answerlens.second_opinion.document import output_document
from answerlens.second_opinion.models import SecondOpinion
from answerlens.second_opinion.opinion import second_opinion_for
from answerlens.ui.compare import opinions
from answerlens.ui.compare.viewmodel import compare
from tests.paths import SAMPLES
from tests.second_opinion.builders import replayed, verification

PAIR = sorted((SAMPLES / "compare").glob("*.json"))


def document(index: int) -> dict[str, Any]:
    return json.loads(PAIR[index].read_text(encoding="utf-8"))


def diff(a: opinions.Side, b: opinions.Side) -> opinions.OpinionDiff:
    found = opinions.opinion_diff(a, b, compare(a.assessment, b.assessment))
    assert found is not None
    return found


def test_the_shipped_pair_differs_on_its_first_requirement() -> None:
    a, b = opinions.side(document(0)), opinions.side(document(1))
    assert a.problems == () and b.problems == ()
    assert a.opinion is not None and b.opinion is not None
    assert a.assessment["verdict"] == "answerable"  # the audited verdict, not the strict one printed on top
    result = diff(a, b)
    assert result.changed == 1
    first, *rest = result.rows
    assert (first.a, first.b, first.requirement) == (1, 1, "Database the dashboard API uses")
    assert (first.badge_a, first.badge_b) == ("flags", "not_checked")
    assert first.removed == ("superseded_for_present",) and first.added == ()
    assert all(not row.changed and row.badge_a == row.badge_b == "agrees" for row in rest)
    assert result.verdicts_a == opinions.Verdicts(("answerable", "answer"), ("partial", "answer_partially"))
    assert result.verdicts_b == opinions.Verdicts(("partial", "answer_partially"), ("partial", "answer_partially"))


def test_the_pair_as_the_page_shows_it() -> None:
    result = diff(opinions.side(document(0)), opinions.side(document(1)))
    frame = opinions.opinion_frame(result)
    assert tuple(frame.columns) == opinions.OPINION_COLUMNS
    assert frame["opinion A"].tolist() == ["flags", "agrees", "agrees"]
    assert frame["opinion B"].tolist() == ["not checked", "agrees", "agrees"]
    assert frame["flags removed"].tolist() == ["superseded_for_present", "", ""]
    assert frame["flags added"].tolist() == ["", "", ""] and frame["verifier A"].tolist() == ["not run"] * 3
    html = opinions.verdicts_html(result)
    assert 'data-strict-side="A" data-strict-changed="true"' in html
    assert 'data-strict-side="B" data-strict-changed="false"' in html
    assert "answerable · answer" in html and "partial · answer partially" in html
    coverage = opinions.coverage_html(result)
    assert 'data-opinions="AB"' in coverage and "1 of 3 requirements differ" in coverage


def test_a_plain_assessment_has_no_opinion_and_verifies_as_one() -> None:
    _, _, assessment = replayed("answerable_billing_database")
    plain = opinions.side(assessment.model_dump(mode="json"))
    assert plain.opinion is None and plain.problems == ()
    assert opinions.opinion_diff(plain, plain, compare(plain.assessment, plain.assessment)) is None


def test_only_one_side_with_an_opinion() -> None:
    printed, plain = opinions.side(document(0)), opinions.side(json.loads(
        json.dumps({key: value for key, value in document(1).items() if key != "second_opinion"})))
    result = diff(printed, plain)
    assert (result.has_a, result.has_b) == (True, False)
    assert [row.badge_b for row in result.rows] == [None, None, None]
    assert opinions.opinion_frame(result)["verifier B"].isna().all()  # no opinion: empty, not "not run"
    assert 'data-opinions="A"' in opinions.coverage_html(result)
    assert 'data-strict-side="B" data-strict-changed="none"' in opinions.verdicts_html(result)


async def _with_verifier(status: ClaimVerificationStatus) -> tuple[dict[str, Any], SecondOpinion]:
    """The billing sample's reply with its opinion, the verifier's result on requirement 0 set to ``status``."""
    item, bundle, assessment = replayed("answerable_billing_database")
    opinion = await second_opinion_for(assessment, bundle, item.question)
    first = opinion.requirements[0]
    checked = first.model_copy(update={"verifier": verification(first.requirement, status)})
    opinion = opinion.model_copy(update={"requirements": (checked, *opinion.requirements[1:])})
    return assessment.model_dump(mode="json"), opinion


def test_a_verifier_status_change_is_a_difference() -> None:
    (plain_a, agrees), (plain_b, refutes) = (asyncio.run(_with_verifier(status)) for status in (
        ClaimVerificationStatus.SUPPORTED, ClaimVerificationStatus.REFUTED))
    result = diff(opinions.side(plain_a, agrees), opinions.side(plain_b, refutes))  # stored opinions, passed in
    first = result.rows[0]
    assert (first.verifier_a, first.verifier_b) == ("supported", "refuted")
    assert (first.badge_a, first.badge_b) == ("agrees", "verifier_disagrees") and first.changed
    assert result.changed == 1
    frame = opinions.opinion_frame(result)
    assert frame.loc[0, "verifier A"] == "supported" and frame.loc[0, "opinion B"] == "verifier disagrees"


def test_flags_added_in_b() -> None:
    a, b = opinions.side(document(1)), opinions.side(document(0))  # the other way round
    first = diff(a, b).rows[0]
    assert first.added == ("superseded_for_present",) and first.removed == ()


@pytest.mark.parametrize(
    "edit, problem",
    [
        pytest.param(lambda doc: doc.update(verdict="answerable"), "not the strict policy's", id="strict_view_edited"),
        pytest.param(lambda doc: doc["second_opinion"].update(opinion_sha256="0" * 64), "opinion_sha256",
                     id="opinion_hash"),
        pytest.param(lambda doc: doc["second_opinion"].update(requirements="x"), "second_opinion",
                     id="opinion_does_not_read"),
    ],
)
def test_a_tampered_document_does_not_verify(edit: Any, problem: str) -> None:
    tampered = copy.deepcopy(document(0))
    edit(tampered)
    side = opinions.side(tampered)
    assert any(problem in found for found in side.problems), side.problems


def test_a_printed_standard_opinion_has_no_strict_verdict() -> None:
    item, bundle, assessment = replayed("second_opinion_plan_as_fact")
    opinion = asyncio.run(second_opinion_for(assessment, bundle, item.question))
    side = opinions.side(output_document(assessment, opinion))
    assert side.problems == () and side.opinion is not None and side.opinion.strict is None
    html = opinions.verdicts_html(diff(side, side))
    assert "not asked (standard policy)" in html

"""Forged reports with every hash recomputed: the embedded context decides every citation, a report whose format
is missing or wrong is re-derived from its header (or refused), and the page never claims a check that did not
run. Text outside the document is located as such."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from answerlens.audit import evaluation_id, sha256_text
from answerlens.verification.report import assessment_report, verify_report
from tests.forgery import FOREIGN_ID, PUBLISHED, forged, rehashed
from tests.paths import PRME
from tests.report.builders import embedded, replayed, report_of, with_data

QUESTION = "What database and cache does the dashboard API use, and what is Craig's background?"
READER_CONTEXT = (PRME / "bundles" / "rendered_reader_citations.txt").read_text().strip()


def prme_report(document: dict[str, Any], **extra: Any) -> str:
    return assessment_report(document, question=QUESTION, context=READER_CONTEXT, **extra)


def test_a_prme_shaped_report_verifies_and_its_forgery_does_not() -> None:
    assert verify_report(prme_report(PUBLISHED)).ok
    check = verify_report(prme_report(forged(3, "supported", ["m999"], [FOREIGN_ID])))
    assert not check.ok and any("'m999'" in problem for problem in check.problems), check.problems


def test_the_report_page_of_a_forgery_claims_no_check() -> None:
    html = prme_report(forged(3, "supported", ["m999"], [FOREIGN_ID]))
    assert "The embedded data does not verify" in html and "The embedded data verifies" not in html


def _cite_unknown(document: dict[str, Any], token: str = "m999") -> None:
    """Requirement 0 cites ``token`` in the raw reply, and the decision says it was accepted: consistent."""
    first = document["requirements"][0]
    first["citations"].append({"token": token, "normalized": token, "decision": "accepted",
                               "memory_id": FOREIGN_ID, "ref": token, "reason": None, "error": None,
                               "span": None, "line": None})
    first["evidence_refs"].append(token)
    first["evidence_ids"].append(FOREIGN_ID)
    document["raw_output"]["requirements"][0]["evidence_refs"].append(token)
    document["raw_output_text"] = json.dumps(document["raw_output"])
    document["raw_output_sha256"] = sha256_text(document["raw_output_text"])
    rehashed(document)


@pytest.mark.parametrize("fmt", [pytest.param(None, id="null"), pytest.param("reader", id="stated")])
def test_a_citation_of_an_unknown_reference_fails_whatever_the_stated_format(fmt: str | None) -> None:
    def change(raw: dict[str, Any]) -> None:
        raw["report"]["context_format"] = fmt
        _cite_unknown(raw["report"]["document"])

    check = verify_report(with_data(report_of("conflicting_deploy_freeze"), change))
    assert not check.ok and any("'m999'" in problem for problem in check.problems), check.problems


def test_a_moved_highlight_is_caught_when_the_format_is_null() -> None:
    def change(raw: dict[str, Any]) -> None:
        raw["report"]["context_format"] = None
        raw["report"]["document"]["requirements"][0]["citations"][0]["span"]["start"] += 1

    check = verify_report(with_data(report_of("hostile_record_text"), change))
    assert any(problem.startswith("requirements[0].citations[0].span") for problem in check.problems)


def test_a_format_that_contradicts_the_header_is_named() -> None:
    def change(raw: dict[str, Any]) -> None:
        raw["report"]["context_format"] = "compact"

    check = verify_report(with_data(report_of("conflicting_deploy_freeze"), change))
    assert any(problem.startswith("context_format: 'compact'") for problem in check.problems), check.problems


def test_a_context_without_a_header_and_no_format_is_not_verified() -> None:
    """Everything recomputed over a context whose header was removed: nothing says how to cite, so refuse."""
    bundle, assessment = replayed("conflicting_deploy_freeze")
    context = bundle.exact_context.split("\n", 1)[1]
    document = copy.deepcopy(assessment.model_dump(mode="json"))
    document["context_sha256"] = sha256_text(context)
    document["evaluation_id"] = evaluation_id(document)
    rehashed(document)

    def change(raw: dict[str, Any]) -> None:
        raw["report"].update(context=context, context_format=None, document=document)

    check = verify_report(with_data(report_of("conflicting_deploy_freeze"), change))
    assert any(problem.startswith("context_format: unknown") for problem in check.problems), check.problems


@pytest.mark.parametrize(("edit", "place"), [
    pytest.param(lambda html: html + "<p>added</p>", "after the document", id="after_html"),
    pytest.param(lambda html: "<p>added</p>" + html, "before the document", id="before_doctype"),
    pytest.param(lambda html: html.replace("</body>", "<p>added</p></body>"), "after the embedded data block",
                 id="after_the_data_block"),
    pytest.param(lambda html: html.replace("</html>", "</html><p>added</p>"), "after the document",
                 id="right_after_html"),
])
def test_text_outside_the_document_is_located_as_such(edit: Any, place: str) -> None:
    html = report_of("speech_act_eslint")
    assert embedded(html)
    (problem,) = verify_report(edit(html)).problems
    assert f"({place}" in problem, problem


def test_verify_of_a_report_says_what_it_took_as_recorded(tmp_path: Any, capsys: Any) -> None:
    from answerlens.cli import main

    path = tmp_path / "report.html"
    path.write_text(prme_report(PUBLISHED))
    assert main(["verify", str(path)]) == 0
    assert "which memory each reference names was taken as recorded" in capsys.readouterr().err
    assert main(["verify", str(path), "--bundle", str(PRME / "bundles" / "bundle_reader_citations.json")]) == 0
    assert "taken as recorded" not in capsys.readouterr().err

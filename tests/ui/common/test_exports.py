"""Downloads: the assessment JSON verifies, the raw reply is exact when it can be, and the CSV is spreadsheet-safe."""

from __future__ import annotations

import csv
import io
import json

import pytest

from answerlens import AnswerabilityConfig, derive_assessment, load_bundle, verify_assessment
from answerlens.assessment import AnswerabilityAssessment
from answerlens.ui.common import exports
from tests.ui.conftest import recorded

HOSTILE_REPLY = {
    "requirements": [
        {"requirement": '=HYPERLINK("http://x")', "status": "supported", "evidence_refs": ["m1", "m1", "", "+m9"],
         "explanation": '-1+2, "quoted"\nsecond line'},
        {"requirement": "@SUM(A1)", "status": "conflicting", "evidence_refs": ["m2"], "explanation": "plain"},
    ],
    "reasoning": "r",
}
HOSTILE_CSV = (
    "index,requirement,claimed_status,status,accepted_refs,evidence_ids,discarded,explanation\r\n"
    "0,\"'=HYPERLINK(\"\"http://x\"\")\",supported,supported,m1,00000000-0000-0000-0000-000000000001,"
    "m1 (duplicate_memory); '' (empty); +m9 (unknown_reference),\"'-1+2, \"\"quoted\"\"\nsecond line\"\r\n"
    "1,'@SUM(A1),conflicting,unsupported,m2,00000000-0000-0000-0000-000000000002,,plain\r\n"
)


def hostile() -> AnswerabilityAssessment:
    bundle = load_bundle({"records": [{"text": "The cache is Redis.", "speaker": "Craig"}, {"text": "It runs 7.2."}]})
    return derive_assessment("Which cache, and which version?", bundle, json.dumps(HOSTILE_REPLY),
                             config=AnswerabilityConfig(provider="replay", model="stub"))


@pytest.mark.parametrize("stem", ["prme_reader_citations", "empty_bundle", "draft_answer_unsupported_claim"])
def test_assessment_json_round_trips_and_verifies(stem: str) -> None:
    assessment = recorded(stem)
    download = exports.assessment_json(assessment)
    assert download.file_name == f"assessment-{assessment.evaluation_id[:12]}.json"
    assert download.mime == "application/json" and "answerlens verify" in (download.note or "")
    assert AnswerabilityAssessment.model_validate_json(download.data) == assessment
    assert verify_assessment(json.loads(download.data)).ok


def test_raw_reply_is_the_exact_text_when_it_matches_its_hash() -> None:
    assessment = recorded("conflicting_deploy_freeze")
    raw = exports.raw_reply(assessment)
    assert raw is not None and raw.note is not None and raw.note.startswith("exact")
    assert raw.data == assessment.raw_output_text
    assert raw.file_name == f"raw-reply-{assessment.evaluation_id[:12]}.json"


@pytest.mark.parametrize(
    "update",
    [pytest.param({"raw_output_text": None}, id="no_text"), pytest.param({"raw_output_text": "{}"}, id="text_mismatch")],
)
def test_raw_reply_falls_back_to_the_parsed_reply(update: dict[str, object]) -> None:
    assessment = recorded("conflicting_deploy_freeze").model_copy(update=update)
    raw = exports.raw_reply(assessment)
    assert raw is not None and raw.note is not None and raw.note.startswith("parsed")
    assert json.loads(raw.data) == assessment.raw_output


def test_no_raw_reply_without_a_model_call() -> None:
    assert exports.raw_reply(recorded("empty_bundle")) is None


def test_requirements_csv_bytes_are_pinned() -> None:
    download = exports.requirements_csv(hostile())
    assert download.data == HOSTILE_CSV
    assert download.mime == "text/csv" and download.file_name.startswith("requirements-")


@pytest.mark.parametrize("stem", ["compact_citation_errors", "prme_reader_citations", "speech_act_eslint"])
def test_requirements_csv_has_one_row_per_requirement(stem: str) -> None:
    assessment = recorded(stem)
    rows = list(csv.reader(io.StringIO(exports.requirements_csv(assessment).data)))
    assert tuple(rows[0]) == exports.CSV_COLUMNS
    assert [row[0] for row in rows[1:]] == [str(i) for i in range(len(assessment.requirements))]
    assert [row[3] for row in rows[1:]] == [r.status.value for r in assessment.requirements]
    assert [row[4] for row in rows[1:]] == [" ".join(r.evidence_refs) for r in assessment.requirements]


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param("=1+1", "'=1+1", id="equals"),
        pytest.param("+1", "'+1", id="plus"),
        pytest.param("-1", "'-1", id="minus"),
        pytest.param("@SUM", "'@SUM", id="at"),
        pytest.param("\tx", "'\tx", id="tab"),
        pytest.param("\rx", "'\rx", id="carriage_return"),
        pytest.param("plain", "plain", id="plain"),
        pytest.param("", "", id="empty"),
        pytest.param("a=1", "a=1", id="not_leading"),
    ],
)
def test_cell_defuses_formulas(text: str, expected: str) -> None:
    assert exports.cell(text) == expected

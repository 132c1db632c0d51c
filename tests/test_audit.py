"""Canonical JSON and the audit hashes, by PRME's formulas."""

import json

from answerlens.audit import (
    HASHED_REQUIREMENT_FIELDS,
    assessment_sha256,
    canonical_json_ascii,
    canonical_json_utf8,
    evaluation_id,
    sha256_text,
)
from tests.paths import PRME


def test_canonical_json_is_sorted_compact_ascii() -> None:
    assert canonical_json_ascii({"b": 1, "a": "é"}) == '{"a":"\\u00e9","b":1}'
    assert sha256_text("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_evaluation_id_of_the_empty_bundle_assessment() -> None:
    data = json.loads((PRME / "assessments" / "assessment_empty_bundle.json").read_text())
    assert evaluation_id(data) == "85c72315498a3539f97a746b2fd1d11c6da55cb38f2409b1896a43cba2971b5d"




def test_assessment_sha256_of_the_published_assessment() -> None:
    data = json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text())
    recomputed = assessment_sha256(
        evaluation_id=data["evaluation_id"], verdict=data["verdict"], recommended_action=data["recommended_action"],
        requirements=data["requirements"], citation_errors=data["citation_errors"], reasoning=data["reasoning"],
    )
    assert recomputed == data["assessment_sha256"]
    assert HASHED_REQUIREMENT_FIELDS == ("evidence_ids", "evidence_refs", "explanation", "requirement", "status")


def test_the_two_encodings_differ_only_on_non_ascii_text() -> None:
    """The claim verifier's hashes keep non-ASCII text (PRME 0.15.0), the answerability hashes escape it."""
    assert canonical_json_utf8({"b": "ü", "a": [1, None]}) == '{"a":[1,null],"b":"ü"}'
    assert canonical_json_ascii({"b": "ü", "a": [1, None]}) == '{"a":[1,null],"b":"\\u00fc"}'
    assert canonical_json_utf8({"b": "u", "a": [1]}) == canonical_json_ascii({"b": "u", "a": [1]})

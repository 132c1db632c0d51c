import json

import pytest

from answerlens import (
    AnswerabilityConfig,
    AnswerabilityError,
    MemoryBundle,
    derive_assessment,
    load_bundle,
    verify_assessment,
)
from answerlens.audit import canonical_json_ascii, sha256_text
from answerlens.prompts import NO_EVIDENCE_RAW, PROMPT_SHA256, PROMPT_VERSION, RawAssessment
from tests.paths import PRME

QUESTION = "What database and cache does the dashboard API use, and what is Craig's background?"
PRME_PROMPT = {
    "prompt_version": "answerability_requirements_v2",
    "prompt_sha256": "51db73f014f22bf2c5b70a36b42fa5e7118b2d2ab8a7c5b6fca277ed09d65316",
}
CONFIG = AnswerabilityConfig(provider="openai", model="stub-model", base_url="http://127.0.0.1:18765/v1",
                             max_retries=0, timeout=20.0, temperature=0.0)
RAW_TEXT = (PRME / "assessments" / "raw_output_reader_openai.json").read_text()
BUNDLE_FILE = PRME / "bundles" / "bundle_reader_citations.json"
BUNDLE = load_bundle(BUNDLE_FILE)


def _published(name: str) -> dict:
    return json.loads((PRME / "assessments" / name).read_text())


@pytest.mark.parametrize("raw", [pytest.param(RawAssessment.model_validate_json(RAW_TEXT), id="parsed"),
                                 pytest.param(RAW_TEXT, id="text")])
def test_reproduces_the_prme_assessment_in_every_field(raw) -> None:  # type: ignore[no-untyped-def]
    assessment = derive_assessment(QUESTION, BUNDLE, raw, config=CONFIG, **PRME_PROMPT)
    assert assessment.prme_dict() == _published("assessment_reader_openai.json")


def test_reproduces_the_prme_empty_bundle_assessment() -> None:
    assessment = derive_assessment(QUESTION, MemoryBundle(), NO_EVIDENCE_RAW, config=CONFIG, model_called=False,
                                   **PRME_PROMPT)
    assert assessment.prme_dict() == _published("assessment_empty_bundle.json")
    assert assessment.raw_output is None and assessment.raw_output_sha256 is None


def test_answerlens_additions() -> None:
    assessment = derive_assessment(QUESTION, BUNDLE, RAW_TEXT, config=CONFIG)
    assert assessment.prompt_version == PROMPT_VERSION and assessment.prompt_sha256 == PROMPT_SHA256
    assert assessment.raw_output == json.loads(RAW_TEXT)
    assert assessment.raw_output_sha256 == sha256_text(RAW_TEXT)
    assert assessment.raw_output_text == RAW_TEXT
    claimed = [r.claimed_status.value for r in assessment.requirements if r.claimed_status]
    assert claimed == ["supported", "supported", "conflicting", "supported"]
    context = load_context()
    for requirement in assessment.requirements:
        for citation in requirement.citations:
            if citation.span is not None:
                assert context[citation.span.start:citation.span.end] == citation.normalized
    assert verify_assessment(assessment).ok
    parsed = RawAssessment.model_validate_json(RAW_TEXT)
    parsed_sha = derive_assessment(QUESTION, BUNDLE, parsed, config=CONFIG).raw_output_sha256
    assert parsed_sha == sha256_text(canonical_json_ascii(json.loads(RAW_TEXT)))


def load_context() -> str:
    return json.loads(BUNDLE_FILE.read_text())["rendered_context"].strip()


def test_answer_is_stripped_and_hashed() -> None:
    assessment = derive_assessment(QUESTION, BUNDLE, RAW_TEXT, config=CONFIG, answer="  Redis.  ")
    assert assessment.answer_sha256 == sha256_text("Redis.")
    other = derive_assessment(QUESTION, BUNDLE, RAW_TEXT, config=CONFIG)
    assert assessment.evaluation_id != other.evaluation_id


@pytest.mark.parametrize(
    "query, answer, message",
    [
        pytest.param("   ", None, "query must be nonempty", id="blank_query"),
        pytest.param("Q?", " \n", "answer must be nonempty when provided", id="blank_answer"),
    ],
)
def test_blank_inputs_raise_value_error(query: str, answer: str | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        derive_assessment(query, BUNDLE, RAW_TEXT, config=CONFIG, answer=answer)


def test_reader_bundle_without_references_raises_value_error() -> None:
    with pytest.raises(ValueError, match=r"PackingConfig\(context_format='reader', context_citations=True\)"):
        derive_assessment(QUESTION, load_bundle(PRME / "bundles" / "bundle_reader_plain.json"), RAW_TEXT, config=CONFIG)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("not json at all", id="prose"),
        pytest.param('{"requirements": []}', id="missing_reasoning"),
        pytest.param('{"requirements": [{"requirement": "r", "status": "sure", "explanation": "e"}], '
                     '"reasoning": "x"}', id="bad_status"),
    ],
)
def test_reply_outside_the_schema_raises_answerability_error(raw) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AnswerabilityError) as info:
        derive_assessment(QUESTION, BUNDLE, raw, config=CONFIG)
    assert info.value.raw_excerpt
    assert info.value.remedy


def test_every_reply_with_no_valid_citation_abstains() -> None:
    raw = json.dumps({"requirements": [{"requirement": "Everything", "status": "supported",
                                        "evidence_refs": ["m42"], "explanation": "trust me"}],
                      "reasoning": "confident"})
    assessment = derive_assessment(QUESTION, BUNDLE, raw, config=CONFIG)
    assert assessment.verdict.value == "insufficient"
    assert assessment.should_abstain
    assert assessment.missing_information == ("Everything",)


@pytest.mark.parametrize(
    "bundle",
    [pytest.param(BUNDLE_FILE, id="path"), pytest.param(str(BUNDLE_FILE), id="path_text"),
     pytest.param({"records": [{"text": "x"}]}, id="dict")],
)
def test_derivation_takes_only_a_loaded_bundle(bundle: object) -> None:
    with pytest.raises(TypeError, match="load_bundle"):
        derive_assessment(QUESTION, bundle, RAW_TEXT, config=CONFIG)  # type: ignore[arg-type]


def test_a_parsed_dict_is_refused_with_what_to_pass() -> None:
    with pytest.raises(TypeError, match=r"json.dumps\(reply\)"):
        derive_assessment(QUESTION, BUNDLE, json.loads(RAW_TEXT), config=CONFIG)  # type: ignore[arg-type]

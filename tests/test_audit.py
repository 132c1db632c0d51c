import copy
import json

import pytest

from answerlens import verify_assessment
from answerlens.audit import canonical_json, evaluation_id, sha256_text
from tests.paths import PRME

ASSESSMENTS = sorted(PRME.glob("assessments/assessment_*.json"))
TRIAL = json.loads((PRME / "trials" / "beam-100k-answerability-dev-v2-results.json").read_text())


def test_canonical_json_is_sorted_compact_ascii() -> None:
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"\\u00e9","b":1}'
    assert sha256_text("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@pytest.mark.parametrize("path", ASSESSMENTS, ids=lambda p: p.stem)
def test_published_assessments_verify(path) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(path.read_text())
    report = verify_assessment(data)
    assert report.ok, report.problems
    assert report.evaluation_id == data["evaluation_id"]
    assert report.assessment_sha256 == data["assessment_sha256"]


def test_every_published_trial_sample_verifies() -> None:
    for sample in TRIAL["samples"]:
        assert verify_assessment(sample["assessment"]).ok


def test_evaluation_id_of_the_empty_bundle_assessment() -> None:
    data = json.loads((PRME / "assessments" / "assessment_empty_bundle.json").read_text())
    assert evaluation_id(data) == "85c72315498a3539f97a746b2fd1d11c6da55cb38f2409b1896a43cba2971b5d"


def _tampered(change) -> list[str]:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text()))
    change(data)
    report = verify_assessment(data)
    assert not report.ok
    return list(report.problems)


@pytest.mark.parametrize(
    "change, expected",
    [
        pytest.param(lambda d: d.update(query_sha256="0" * 64), "evaluation_id", id="input_hash_changed"),
        pytest.param(lambda d: d.update(reasoning="edited"), "assessment_sha256", id="output_changed"),
        pytest.param(lambda d: d.update(verdict="answerable"), "verdict 'answerable' does not follow",
                     id="verdict_changed"),
        pytest.param(lambda d: d.update(recommended_action="answer"), "recommended_action", id="action_changed"),
        pytest.param(lambda d: d.update(missing_information=[]), "missing_information", id="missing_changed"),
        pytest.param(lambda d: d["requirements"][0].update(evidence_ids=[]), "requirement[0]", id="citation_removed"),
    ],
)
def test_tampering_is_reported(change, expected: str) -> None:  # type: ignore[no-untyped-def]
    assert any(expected in problem for problem in _tampered(change))


def test_not_an_assessment() -> None:
    assert verify_assessment({"x": 1}).problems[0].startswith("not an assessment: missing")
    bad = json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text())
    bad["requirements"][0]["status"] = "maybe"
    assert "malformed requirements" in verify_assessment(bad).problems[0]


def test_raw_output_text_is_checked_against_its_hash() -> None:
    from answerlens import AnswerabilityConfig, derive_assessment, load_bundle

    raw = (PRME / "assessments" / "raw_output_reader_openai.json").read_text()
    assessment = derive_assessment("Q?", load_bundle(PRME / "bundles" / "bundle_reader_citations.json"), raw,
                                   config=AnswerabilityConfig(provider="replay", model="r"))
    assert verify_assessment(assessment).ok
    data = assessment.model_dump(mode="json")
    data["raw_output_text"] = raw + " "
    assert verify_assessment(data).problems == ("raw_output_sha256 does not match the recorded raw_output_text",)


def test_non_list_missing_information_is_a_problem() -> None:
    problems = _tampered(lambda d: d.update(missing_information=None))
    assert "missing_information is not a list" in problems

"""Verifying stored assessments: hashes, verdicts, and every field the raw reply and the bundle determine."""

import copy
import json

import pytest

from answerlens import verify_assessment
from tests.paths import PRME

ASSESSMENTS = sorted(PRME.glob("assessments/assessment_*.json"))
TRIAL = json.loads((PRME / "trials" / "beam-100k-answerability-dev-v2-results.json").read_text())


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


# --- fields only answerlens adds --------------------------------------------------------------------------

from answerlens import AnswerabilityConfig, derive_assessment, load_bundle  # noqa: E402
from answerlens.samples import load_sample  # noqa: E402
from tests.paths import SAMPLES  # noqa: E402

RAW_TEXT = (PRME / "assessments" / "raw_output_reader_openai.json").read_text()
READER = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")


def ours() -> dict:
    assessment = derive_assessment("What database and cache?", READER, RAW_TEXT,
                                   config=AnswerabilityConfig(provider="replay", model="r"))
    return assessment.model_dump(mode="json")


def test_our_assessment_verifies_with_and_without_its_bundle() -> None:
    assert verify_assessment(ours()).ok
    assert verify_assessment(ours(), bundle=READER).ok


def _problems(change, bundle=None) -> list[str]:  # type: ignore[no-untyped-def]
    data = ours()
    change(data)
    report = verify_assessment(data, bundle=bundle)
    assert not report.ok
    return list(report.problems)


def _set_decision(data: dict, **fields: object) -> None:
    data["requirements"][0]["citations"][0].update(fields)


@pytest.mark.parametrize(
    "change, field",
    [
        pytest.param(lambda d: d["requirements"][1].update(claimed_status="unsupported"),
                     "requirements[1].claimed_status", id="claimed_status"),
        pytest.param(lambda d: _set_decision(d, decision="discarded", reason="unknown_reference"),
                     "requirements[0].citations[0].decision", id="decision_flipped"),
        pytest.param(lambda d: _set_decision(d, token="m7"), "requirements[0].citations[0].token", id="token"),
        pytest.param(lambda d: d["requirements"][0]["citations"].pop(), "requirements[0].citations",
                     id="decision_dropped"),
        pytest.param(lambda d: d.update(provider_metadata={"engine": "openai", "origin": "live", "recorded": True}),
                     "$.provider_metadata: Value error, recorded=True contradicts origin", id="recorded_flag"),
        pytest.param(lambda d: d.update(surprise=1), "$.surprise: unknown field", id="unknown_field"),
        pytest.param(lambda d: d["requirements"][0].update(note="x"), "$.requirements[0].note: unknown field",
                     id="unknown_nested_field"),
        pytest.param(lambda d: d["raw_output"]["requirements"][0].update(status="unsupported"), "raw_output:",
                     id="raw_output_edited"),
        pytest.param(lambda d: d["requirements"][2].update(explanation="edited"),
                     "requirements[2].explanation", id="explanation"),
    ],
)
def test_answerlens_fields_are_checked_against_the_raw_reply(change, field: str) -> None:  # type: ignore[no-untyped-def]
    assert any(field in problem for problem in _problems(change)), _problems(change)


def test_with_the_bundle_spans_are_rederived() -> None:
    def move_span(data: dict) -> None:
        _set_decision(data, span={"start": 0, "end": 2})

    assert verify_assessment(ours() | {}, bundle=None).ok
    assert any("citations[0].span" in problem for problem in _problems(move_span, bundle=READER))


def test_a_different_bundle_is_named() -> None:
    other = load_sample(SAMPLES / "answerable_billing_database.json").load()
    problems = verify_assessment(ours(), bundle=other).problems
    assert problems == ("context_sha256: the bundle given is not the one assessed (its exact context hashes "
                        "differently)",)


def test_a_prme_assessment_verifies_against_its_bundle() -> None:
    data = json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text())
    assert verify_assessment(data, bundle=READER).ok
    other = load_sample(SAMPLES / "answerable_billing_database.json").load()
    assert not verify_assessment(data, bundle=other).ok


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.json")), ids=lambda p: p.stem)
async def test_every_replayed_sample_verifies_deeply_against_its_bundle(path) -> None:  # type: ignore[no-untyped-def]
    from answerlens import AnswerabilityEvaluator

    sample = load_sample(path)
    bundle = sample.load()
    try:
        bundle.ensure_citable()
    except ValueError:
        pytest.skip("a reader bundle without citations is not assessed")
    config = AnswerabilityConfig(provider="replay", model=sample.recorded_model)
    async with AnswerabilityEvaluator(config, recording=sample.recording()) as evaluator:
        assessment = await evaluator.assess(sample.question, bundle, answer=sample.answer)
    report = verify_assessment(assessment, bundle=bundle)
    assert report.ok, report.problems

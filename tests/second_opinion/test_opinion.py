"""``second_opinion_for`` end to end: the superseded sample stays unflagged, the audited assessment is untouched,
inputs are checked, hostile record text is carried as data, and the hashes are stable."""

import json

import pytest

from answerlens import (
    AnswerabilityAssessment,
    AnswerabilityConfig,
    ClaimVerifier,
    EvidencePolicy,
    derive_assessment,
    load_bundle,
    verify_assessment,
)
from answerlens.second_opinion.models import VerifierState
from answerlens.second_opinion.opinion import second_opinion_for
from answerlens.verdict import AnswerabilityVerdict
from tests.paths import PRME
from tests.second_opinion.builders import replayed

PRME_QUESTION = "What database and cache does the dashboard API use, and what is Craig's background?"


class Entails:
    """An injected scorer: every pair is entailed."""

    def score(self, pairs: list[tuple[str, str]]) -> list[tuple[float, float, float]]:
        return [(0.9, 0.05, 0.05)] * len(pairs)


async def test_the_superseded_timeline_stays_unflagged_and_answerable() -> None:
    item, bundle, assessment = replayed("superseded_database_timeline")
    opinion = await second_opinion_for(assessment, bundle, item.question, policy="strict")
    assert [r.flags for r in opinion.requirements] == [(), ()]
    assert [[e.lifecycle_state.value for e in r.typed_evidence] for r in opinion.requirements] == [
        ["stable"], ["superseded"]]
    assert opinion.strict is not None and opinion.strict.verdict == AnswerabilityVerdict.ANSWERABLE
    assert opinion.strict.changes == ()


async def test_the_audited_assessment_is_never_changed() -> None:
    item, bundle, assessment = replayed("second_opinion_plan_as_fact")
    before = assessment.model_dump(mode="json")
    opinion = await second_opinion_for(assessment, bundle, item.question, policy=EvidencePolicy.STRICT)
    assert assessment.model_dump(mode="json") == before
    assert verify_assessment(assessment, bundle=bundle).ok
    assert (opinion.assessment_evaluation_id, opinion.assessment_sha256) == (
        assessment.evaluation_id, assessment.assessment_sha256)
    assert opinion.strict is not None and opinion.strict.verdict == AnswerabilityVerdict.INSUFFICIENT
    assert assessment.verdict == AnswerabilityVerdict.ANSWERABLE


async def test_published_upstream_assessment_still_verifies_beside_a_second_opinion() -> None:
    published = json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text())
    assessment = AnswerabilityAssessment.model_validate(published)
    bundle = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
    opinion = await second_opinion_for(assessment, bundle, PRME_QUESTION)
    assert verify_assessment(published, bundle=bundle).ok
    assert assessment.prme_dict() == published  # field for field, hashes included
    assert [r.requirement for r in opinion.requirements] == [r["requirement"] for r in published["requirements"]]
    # The published reply's conflicting requirement was downgraded: nothing to question there.
    assert [[f.code.value for f in r.flags] for r in opinion.requirements] == [[], [], [], []]


async def test_a_closed_window_cited_for_the_present_is_flagged_in_a_prme_bundle() -> None:
    bundle = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
    reply = {"requirements": [{"requirement": "Database the dashboard API uses", "status": "supported",
                               "evidence_refs": ["m2"], "explanation": "m2"}], "reasoning": "r"}
    assessment = derive_assessment(PRME_QUESTION, bundle, json.dumps(reply),
                                   config=AnswerabilityConfig(provider="replay", model="m"))
    opinion = await second_opinion_for(assessment, bundle, PRME_QUESTION)
    (flag,) = opinion.requirements[0].flags
    assert flag.code.value == "superseded_for_present"
    assert flag.reason.startswith("m2's validity ended 2024-01-01, before the bundle's latest record (2026-12-02)")


async def test_the_question_and_bundle_must_be_the_ones_assessed() -> None:
    item, bundle, assessment = replayed("second_opinion_plan_as_fact")
    with pytest.raises(ValueError, match="question is not the one assessed"):
        await second_opinion_for(assessment, bundle, "Another question?")
    _, other, _ = replayed("answerable_billing_database")
    with pytest.raises(ValueError, match="bundle is not the one assessed"):
        await second_opinion_for(assessment, other, item.question)
    # Surrounding whitespace is not part of the question, as for query_sha256.
    assert (await second_opinion_for(assessment, bundle, f"  {item.question}\n")).question == item.question


async def test_hostile_record_text_is_carried_as_data() -> None:
    """The core builds no HTML: record text and speakers are kept verbatim, and reasons never quote them."""
    item, bundle, assessment = replayed("hostile_record_text")
    opinion = await second_opinion_for(assessment, bundle.model_dump(mode="json"), item.question)
    assert [r.flags for r in opinion.requirements] == [(), ()]
    reply = {"requirements": [{"requirement": "Who approved the hotfix", "status": "supported",
                               "evidence_refs": ["m1", "m2", "m3", "m4"], "explanation": "all"}], "reasoning": "r"}
    cites_all = derive_assessment(item.question, bundle, json.dumps(reply),
                                  config=AnswerabilityConfig(provider="replay", model="m"))
    (requirement,) = (await second_opinion_for(cites_all, bundle, item.question)).requirements
    texts = {e.ref: e.text for e in requirement.typed_evidence}
    assert "<script>alert('xss')</script>" in texts["m2"] and "\u2028" in texts["m4"]
    assert {e.ref: e.speaker for e in requirement.typed_evidence}["m2"] == "<img src=x onerror=alert(1)>"
    assert {flag.code.value for flag in requirement.flags} == {"epistemic_not_actual"}  # m2, m3 are unverified
    for flag in requirement.flags:
        assert "<" not in flag.reason and "\u2028" not in flag.reason


async def test_hashes_are_stable_and_follow_their_inputs() -> None:
    item, bundle, assessment = replayed("second_opinion_incident_count")
    first = await second_opinion_for(assessment, bundle, item.question)
    again = await second_opinion_for(assessment, bundle, item.question)
    assert (first.opinion_id, first.opinion_sha256) == (again.opinion_id, again.opinion_sha256)
    strict = await second_opinion_for(assessment, bundle, item.question, policy="strict")
    checked = await second_opinion_for(assessment, bundle, item.question, verifier=ClaimVerifier(scorer=Entails()))
    assert len({first.opinion_id, strict.opinion_id, checked.opinion_id}) == 3
    assert first.verifier_note.state == VerifierState.NOT_REQUESTED and first.verifier_configuration_sha256 is None
    assert checked.verifier_note.state == VerifierState.CHECKED


async def test_the_default_configuration_hash_is_upstreams() -> None:
    _, _, standard = replayed("second_opinion_plan_as_fact")
    _, _, explicit = replayed("second_opinion_plan_as_fact", evidence_policy="standard")
    _, _, strict = replayed("second_opinion_plan_as_fact", evidence_policy="strict")
    assert standard.configuration_sha256 == explicit.configuration_sha256 != strict.configuration_sha256
    assert standard.assessment_sha256 == explicit.assessment_sha256

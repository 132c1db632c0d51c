"""The claim verifier on every supported or conflicting requirement: with the tiny ONNX model, with injected
scorers, and without a model (the flags still show, with the note and its one-line remedy)."""

from pathlib import Path

import pytest

from answerlens import ClaimVerificationError, ClaimVerifier
from answerlens.claims.models import ClaimVerificationLimitation, ClaimVerificationStatus
from answerlens.claims.onnx_scorer import RUNTIME_MISSING, OnnxNliScorer
from answerlens.second_opinion.models import FlagCode, VerifierState
from answerlens.second_opinion.nli import MODEL_REMEDY, NOT_INSTALLED, RUNTIME_REMEDY
from answerlens.second_opinion.opinion import second_opinion_for
from answerlens.verdict import AnswerabilityStatus, AnswerabilityVerdict
from tests.claims.tiny_nli import build_model
from tests.second_opinion.builders import assess, replayed
from tests.second_opinion.helpers import Fixed, Raises

YES = "yes yes yes yes yes yes yes yes"


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_model(tmp_path_factory.mktemp("tiny") / "model")


async def test_the_tiny_onnx_model_verifies_each_supported_requirement(tiny_model: Path) -> None:
    bundle, assessment = assess(
        [{"text": YES}, {"text": "maybe maybe maybe"}],
        [{"requirement": "yes", "evidence_refs": ["m1"]}, {"requirement": "maybe", "status": "unsupported"}],
        "yes or maybe?")
    verifier = ClaimVerifier(scorer=OnnxNliScorer(tiny_model))
    opinion = await second_opinion_for(assessment, bundle, "yes or maybe?", verifier=verifier, policy="strict")
    checked, unsupported = opinion.requirements
    assert checked.verifier is not None and checked.verifier.status == ClaimVerificationStatus.SUPPORTED
    assert checked.verifier.supporting_group == assessment.requirements[0].evidence_ids
    assert checked.verifier.model_called and checked.verifier.claim == "yes"
    assert unsupported.verifier is None  # the model claimed no support: nothing to verify
    assert opinion.verifier_note.state == VerifierState.CHECKED
    assert opinion.strict is not None and opinion.strict.changes == ()


async def test_only_the_cited_passages_are_given_to_the_verifier() -> None:
    scorer = Fixed((0.9, 0.05, 0.05))
    bundle, assessment = assess([{"text": "first passage"}, {"text": "second passage"}],
                                [{"requirement": "It is the second", "evidence_refs": ["m2"]}], "Which?")
    await second_opinion_for(assessment, bundle, "Which?", verifier=ClaimVerifier(scorer=scorer))
    assert scorer.pairs == [("second passage", "It is the second")]


async def test_a_refuting_verifier_makes_strict_surface_a_conflict() -> None:
    scorer = Fixed((0.05, 0.9, 0.05))
    bundle, assessment = assess([{"text": "The pool has 12 connections."}],
                                [{"requirement": "The pool has 32 connections", "evidence_refs": ["m1"]}],
                                "How large is the pool?")
    opinion = await second_opinion_for(assessment, bundle, "How large is the pool?",
                                       verifier=ClaimVerifier(scorer=scorer), policy="strict")
    (item,) = opinion.requirements
    assert item.flags == () and item.verifier is not None and item.verifier.status == ClaimVerificationStatus.REFUTED
    assert opinion.strict is not None and opinion.strict.verdict == AnswerabilityVerdict.CONFLICTING
    (change,) = opinion.strict.changes
    assert change.to_status == AnswerabilityStatus.CONFLICTING
    assert change.verifier_status == ClaimVerificationStatus.REFUTED


async def test_an_exhaustive_requirement_is_incomplete_without_a_model_call() -> None:
    scorer = Fixed((0.9, 0.05, 0.05))
    item, bundle, assessment = replayed("second_opinion_incident_count")
    opinion = await second_opinion_for(assessment, bundle, item.question, verifier=ClaimVerifier(scorer=scorer))
    (result,) = opinion.requirements
    assert [flag.code for flag in result.flags] == [FlagCode.EXHAUSTIVE_NEEDS_AGGREGATION]
    assert result.verifier is not None and result.verifier.status == ClaimVerificationStatus.INCOMPLETE
    assert result.verifier.limitations == (ClaimVerificationLimitation.COMPLETE_SET_REQUIRES_STRUCTURED_AGGREGATION,)
    assert scorer.pairs == []


async def test_no_model_installed_keeps_the_flags_and_says_how_to_fix_it(tmp_path: Path) -> None:
    item, bundle, assessment = replayed("second_opinion_plan_as_fact")
    scorer = OnnxNliScorer(tmp_path / "no-model-here")
    opinion = await second_opinion_for(assessment, bundle, item.question, verifier=ClaimVerifier(scorer=scorer),
                                       policy="strict")
    note = opinion.verifier_note
    assert (note.state, note.message, note.remedy) == (VerifierState.UNAVAILABLE, NOT_INSTALLED, MODEL_REMEDY)
    assert note.detail is not None and "no-model-here" in note.detail and "\n" not in note.detail
    assert [flag.code for flag in opinion.requirements[0].flags] == [FlagCode.SPEECH_ACT_MISMATCH]
    assert opinion.requirements[0].verifier is None
    assert opinion.verifier_configuration_sha256 is not None
    assert opinion.strict is not None and opinion.strict.verdict == AnswerabilityVerdict.INSUFFICIENT


@pytest.mark.parametrize("error, state, remedy", [
    pytest.param(ClaimVerificationError(RUNTIME_MISSING), VerifierState.UNAVAILABLE, RUNTIME_REMEDY, id="runtime"),
    pytest.param(RuntimeError("boom"), VerifierState.FAILED, None, id="scorer_crash"),
])
async def test_verifier_failures_are_notes_never_errors(error: Exception, state: VerifierState,
                                                        remedy: str | None) -> None:
    item, bundle, assessment = replayed("answerable_billing_database")
    opinion = await second_opinion_for(assessment, bundle, item.question, verifier=ClaimVerifier(scorer=Raises(error)))
    assert (opinion.verifier_note.state, opinion.verifier_note.remedy) == (state, remedy)
    assert all(requirement.verifier is None for requirement in opinion.requirements)
    if state == VerifierState.FAILED:
        assert opinion.verifier_note.message == "the claim verifier failed on requirement 1"
        assert opinion.verifier_note.detail == "Claim verification inference failed"


async def test_malformed_scorer_rows_are_a_failure_note() -> None:
    item, bundle, assessment = replayed("answerable_billing_database")
    opinion = await second_opinion_for(assessment, bundle, item.question,
                                       verifier=ClaimVerifier(scorer=Fixed((0.9, 0.9, 0.9))))
    assert opinion.verifier_note.state == VerifierState.FAILED
    assert opinion.verifier_note.detail == "Claim verifier probabilities must be normalized to [0, 1]"


async def test_too_many_cited_passages_is_a_refusal_note() -> None:
    records = [{"text": f"passage {n}"} for n in range(3)]
    bundle, assessment = assess(records, [{"requirement": "All three", "evidence_refs": ["m1", "m2", "m3"]},
                                          {"requirement": "First", "evidence_refs": ["m1"]}], "Which?")
    verifier = ClaimVerifier({"max_evidence": 2}, scorer=Fixed((0.9, 0.05, 0.05)))
    opinion = await second_opinion_for(assessment, bundle, "Which?", verifier=verifier)
    note = opinion.verifier_note
    assert (note.state, note.message) == (VerifierState.FAILED, "the claim verifier refused requirement 1")
    assert note.detail == "evidence count exceeds configured maximum 2"


async def test_a_passage_the_models_token_limit_cut_is_recorded_and_drawn_as_unread(tiny_model: Path) -> None:
    from answerlens.html import opinion as opinion_html
    from answerlens.html.highlight import highlight
    from answerlens.html.markup import context_html
    from answerlens.verification.opinion import verify_second_opinion

    long = "yes yes yes yes yes yes yes yes yes yes redis cache"
    bundle, assessment = assess([{"text": long}, {"text": "yes"}],
                                [{"requirement": "yes", "evidence_refs": ["m1", "m2"]}], "yes?")
    verifier = ClaimVerifier(scorer=OnnxNliScorer(tiny_model, max_length=8))  # [CLS] premise [SEP] yes [SEP]
    opinion = await second_opinion_for(assessment, bundle, "yes?", verifier=verifier)
    (item,) = opinion.requirements
    (unread,) = item.verifier_unread  # m2 ("yes") fits whole; m1 does not
    assert (unread.ref, unread.chars) == ("m1", len(long)) and 0 < unread.read_chars < len(long)
    assert long[: unread.read_chars].strip() == "yes yes yes yes"  # 8 tokens: 3 special, 1 claim, 4 of the passage
    assert not verify_second_opinion(opinion, assessment, bundle=bundle)
    detail = opinion_html.detail_html(0, item, opinion.verifier_note)
    assert f"read the first {unread.read_chars} of {len(long)} characters of m1" in detail
    context = bundle.exact_context
    spans = opinion_html.unread_of(opinion, context)
    (start, end), = spans
    assert context[start:end] == long[unread.read_chars:] and context[end] == '"'
    marks = highlight(context, [r.citations for r in assessment.requirements], unread=spans)
    html = context_html(context, marks)
    assert html.count('data-unread="true"') == 1 and "redis cache</span>" in html
    legend = opinion_html.legend_html(marks, context)
    assert "never read this part of a cited passage" in legend and ">m1</mark>" in legend


async def test_a_whole_passage_leaves_nothing_unread_and_the_stored_opinion_as_before(tiny_model: Path) -> None:
    bundle, assessment = assess([{"text": YES}], [{"requirement": "yes", "evidence_refs": ["m1"]}], "yes?")
    opinion = await second_opinion_for(assessment, bundle, "yes?", verifier=ClaimVerifier(scorer=OnnxNliScorer(
        tiny_model)))
    assert opinion.requirements[0].verifier_unread == ()
    assert "verifier_unread" not in opinion.model_dump_json()  # opinions without a cut hash as they did

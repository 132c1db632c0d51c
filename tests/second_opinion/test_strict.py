"""The strict policy demotes contradicted support only, and re-derives the verdict with the verdict function."""

import pytest

from answerlens.claims.models import ClaimVerificationStatus
from answerlens.second_opinion.models import Flag, FlagCode, RequirementOpinion
from answerlens.second_opinion.strict import strict_change, strict_outcome, strict_statuses
from answerlens.verdict import AnswerabilityAction, AnswerabilityStatus, AnswerabilityVerdict
from tests.second_opinion.builders import verification

S, U, C = AnswerabilityStatus.SUPPORTED, AnswerabilityStatus.UNSUPPORTED, AnswerabilityStatus.CONFLICTING
FLAG = Flag(code=FlagCode.SPEECH_ACT_MISMATCH, reason="m1 states a plan, which the requirement does not", refs=("m1",))


def opinion(status: AnswerabilityStatus, *, flags: tuple[Flag, ...] = (),
            verifier: ClaimVerificationStatus | None = None) -> RequirementOpinion:
    return RequirementOpinion(requirement="Broker", status=status, flags=flags,
                              verifier=None if verifier is None else verification("Broker", verifier))


@pytest.mark.parametrize("item, to_status", [
    pytest.param(opinion(S, flags=(FLAG,)), U, id="flagged_support"),
    pytest.param(opinion(S, verifier=ClaimVerificationStatus.INSUFFICIENT), U, id="verifier_insufficient"),
    pytest.param(opinion(S, verifier=ClaimVerificationStatus.INCOMPLETE), U, id="verifier_incomplete"),
    pytest.param(opinion(S, verifier=ClaimVerificationStatus.REFUTED), C, id="verifier_refuted"),
    pytest.param(opinion(S, flags=(FLAG,), verifier=ClaimVerificationStatus.CONTESTED), C, id="contested_wins"),
    pytest.param(opinion(S), None, id="clean_support_stands"),
    pytest.param(opinion(S, verifier=ClaimVerificationStatus.SUPPORTED), None, id="verifier_agrees"),
    pytest.param(opinion(C, flags=(FLAG,), verifier=ClaimVerificationStatus.INSUFFICIENT), None,
                 id="conflicting_never_changes"),
    pytest.param(opinion(U, verifier=ClaimVerificationStatus.REFUTED), None, id="unsupported_never_changes"),
])
def test_strict_change(item: RequirementOpinion, to_status: AnswerabilityStatus | None) -> None:
    change = strict_change(3, item)
    assert (change.to_status if change else None) == to_status
    if change is not None:
        assert change.index == 3 and change.from_status == S and change.requirement == "Broker"


def test_a_change_names_its_reasons() -> None:
    change = strict_change(0, opinion(S, flags=(FLAG, FLAG), verifier=ClaimVerificationStatus.REFUTED))
    assert change is not None
    assert change.flags == (FlagCode.SPEECH_ACT_MISMATCH,) and change.verifier_status == ClaimVerificationStatus.REFUTED
    plain = strict_change(0, opinion(S, flags=(FLAG,), verifier=ClaimVerificationStatus.SUPPORTED))
    assert plain is not None and plain.verifier_status is None  # the verifier is no reason when it agrees


@pytest.mark.parametrize("items, verdict, action", [
    pytest.param([opinion(S, flags=(FLAG,))], AnswerabilityVerdict.INSUFFICIENT, AnswerabilityAction.ABSTAIN,
                 id="only_requirement_flagged"),
    pytest.param([opinion(S), opinion(S, flags=(FLAG,))], AnswerabilityVerdict.PARTIAL,
                 AnswerabilityAction.ANSWER_PARTIALLY, id="one_of_two"),
    pytest.param([opinion(S), opinion(S, verifier=ClaimVerificationStatus.REFUTED)], AnswerabilityVerdict.CONFLICTING,
                 AnswerabilityAction.SURFACE_CONFLICT, id="refuted"),
    pytest.param([opinion(S), opinion(U)], AnswerabilityVerdict.PARTIAL, AnswerabilityAction.ANSWER_PARTIALLY,
                 id="unchanged"),
])
def test_the_verdict_is_re_derived(items: list[RequirementOpinion], verdict: AnswerabilityVerdict,
                                   action: AnswerabilityAction) -> None:
    outcome = strict_outcome(items)
    assert (outcome.verdict, outcome.recommended_action) == (verdict, action)
    assert [change.index for change in outcome.changes] == [
        index for index, status in enumerate(strict_statuses(items)) if status != items[index].status]

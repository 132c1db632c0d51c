"""Per-requirement badges, verifier agreement and flagged refs for inline marks."""

import pytest

from answerlens.claims.models import ClaimVerificationStatus as V
from answerlens.second_opinion.badges import Badge, badge, flagged_refs, flags_by_ref, verifier_agrees
from answerlens.second_opinion.models import Flag, FlagCode, RequirementOpinion
from answerlens.verdict import AnswerabilityStatus as A
from tests.second_opinion.builders import evidence, verification

PLAN = Flag(code=FlagCode.SPEECH_ACT_MISMATCH, reason="m3 states a plan, which the requirement does not", refs=("m3",))
COUNT = Flag(code=FlagCode.EXHAUSTIVE_NEEDS_AGGREGATION, reason="count", refs=("m1", "m3"))


def item(status: A, *, flags: tuple[Flag, ...] = (), verifier: V | None = None) -> RequirementOpinion:
    return RequirementOpinion(
        requirement="Brokers", status=status, flags=flags,
        typed_evidence=(evidence("a", ref="m1"), evidence("b", ref="m3")),
        verifier=None if verifier is None else verification("Brokers", verifier))


@pytest.mark.parametrize("opinion, expected, agrees", [
    pytest.param(item(A.SUPPORTED), Badge.AGREES, None, id="nothing_to_say"),
    pytest.param(item(A.SUPPORTED, verifier=V.SUPPORTED), Badge.AGREES, True, id="verifier_agrees"),
    pytest.param(item(A.SUPPORTED, flags=(PLAN,)), Badge.FLAGS, None, id="flags"),
    pytest.param(item(A.SUPPORTED, flags=(PLAN,), verifier=V.SUPPORTED), Badge.FLAGS, True, id="flags_despite_nli"),
    pytest.param(item(A.SUPPORTED, verifier=V.INSUFFICIENT), Badge.VERIFIER_DISAGREES, False, id="insufficient"),
    pytest.param(item(A.SUPPORTED, flags=(PLAN,), verifier=V.REFUTED), Badge.VERIFIER_DISAGREES, False,
                 id="verifier_first"),
    pytest.param(item(A.CONFLICTING, verifier=V.CONTESTED), Badge.AGREES, True, id="conflict_contested"),
    pytest.param(item(A.CONFLICTING, verifier=V.REFUTED), Badge.AGREES, True, id="conflict_refuted"),
    pytest.param(item(A.CONFLICTING, verifier=V.SUPPORTED), Badge.VERIFIER_DISAGREES, False, id="conflict_supported"),
    pytest.param(item(A.UNSUPPORTED), Badge.NOT_CHECKED, None, id="unsupported"),
])
def test_badge_and_agreement(opinion: RequirementOpinion, expected: Badge, agrees: bool | None) -> None:
    assert badge(opinion) == expected
    assert verifier_agrees(opinion) is agrees


def test_flagged_refs_follow_citation_order() -> None:
    opinion = item(A.SUPPORTED, flags=(PLAN, COUNT))
    assert flagged_refs(opinion) == ("m1", "m3")
    assert flags_by_ref(opinion) == {"m1": (COUNT,), "m3": (PLAN, COUNT)}
    assert flagged_refs(item(A.SUPPORTED)) == ()

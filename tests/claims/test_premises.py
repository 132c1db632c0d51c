import pytest

from answerlens.claims.models import ClaimEvidence
from answerlens.claims.premises import group_premise, localized_premise


def evidence(ref: str, text: str, **typed: str) -> ClaimEvidence:
    return ClaimEvidence(reference=ref, memory_id=f"00000000-0000-4000-8000-00000000000{ref[-1]}", text=text,
                         **typed)


def test_one_passage_is_its_own_premise_and_groups_are_numbered() -> None:
    assert group_premise(["We use Redis."]) == "We use Redis."
    assert group_premise(["a", "b", "c"]) == "[E1] a\n[E2] b\n[E3] c"


@pytest.mark.parametrize("claim, texts, premise, included", [
    pytest.param("We use Redis.", ["We use Redis. We plan to add Go."], "We use Redis.", ((1,),),
                 id="plan_sentence_dropped"),
    pytest.param("We use Redis.", ["We use Redis. We do not use Go."], "We use Redis.", ((1,),),
                 id="negated_sentence_dropped"),
    pytest.param("We don't use Go.", ["We use Redis. We do not use Go."], "We use Redis.\nWe do not use Go.",
                 ((1, 2),), id="negated_claim_keeps_negations"),
    pytest.param("We use Redis.", ["Maybe Redis.\nWe use Redis", "We use Go."], "[E1] We use Redis\n[E2] We use Go.",
                 ((2,), (1,)), id="lines_are_segments"),
    pytest.param("We use Redis.", ["We might use Redis.", "We use Go. Really."], "We use Go.\nReally.",
                 ((), (1, 2)), id="emptied_passage_drops_out_and_labels_renumber"),
    pytest.param("We use Redis.", ["We might use Redis.", "Should we?"], None, ((), ()), id="nothing_left"),
])
def test_localized_premise(claim: str, texts: list[str], premise: str | None,
                           included: tuple[tuple[int, ...], ...]) -> None:
    group = [evidence(f"m{index}", text) for index, text in enumerate(texts, start=1)]
    assert localized_premise(claim, group) == (premise, included)


def test_localized_premise_keeps_typed_fields_per_segment() -> None:
    archived = evidence("m1", "We use Redis. It is fast.", lifecycle_state="archived")
    assert localized_premise("We use Redis.", [archived]) == (None, ((),))

from uuid import UUID

import pytest

from answerlens.claims.grouping import best_group, group_candidates, groups_of
from answerlens.claims.models import ClaimEvidence, EvidenceGroupScore, LocalizedEvidenceAssessment

IDS = [UUID(f"00000000-0000-4000-8000-00000000000{digit}") for digit in "31425"]


def item(index: int) -> ClaimEvidence:
    return ClaimEvidence(reference=f"m{index}", memory_id=IDS[index], text=f"passage {index}")


def score(indexes: tuple[int, ...], entailment: float, contradiction: float = 0.0) -> EvidenceGroupScore:
    return EvidenceGroupScore(references=tuple(f"m{index}" for index in indexes),
                              memory_ids=tuple(IDS[index] for index in indexes), entailment=entailment,
                              contradiction=contradiction, neutral=1.0 - entailment - contradiction)


def test_candidates_are_the_strongest_either_way_in_caller_order() -> None:
    evidence = [item(index) for index in range(5)]
    singles = [score((0,), 0.1), score((1,), 0.2, 0.7), score((2,), 0.6), score((3,), 0.3), score((4,), 0.05)]
    assert [entry.reference for entry in group_candidates(evidence, singles, 3)] == ["m1", "m2", "m3"]


def test_candidate_ties_go_to_the_smaller_memory_id() -> None:
    evidence = [item(index) for index in range(5)]
    singles = [score((index,), 0.5) for index in range(5)]
    # ids end in 3, 1, 4, 2, 5: the two smallest are items 1 and 3, kept in caller order.
    assert [entry.reference for entry in group_candidates(evidence, singles, 2)] == ["m1", "m3"]


def test_groups_follow_caller_order() -> None:
    evidence = [item(index) for index in range(3)]
    assert [[entry.reference for entry in group] for group in groups_of(evidence, 2)] == [
        ["m0", "m1"], ["m0", "m2"], ["m1", "m2"]]
    assert list(groups_of(evidence, 4)) == []


@pytest.mark.parametrize("scores, expected", [
    pytest.param([score((0, 1), 0.99), score((2,), 0.81)], (2,), id="smallest_first"),
    pytest.param([score((0,), 0.85), score((2,), 0.9)], (2,), id="then_most_probable"),
    pytest.param([score((0,), 0.9), score((1,), 0.9)], (1,), id="then_smallest_ids"),
    pytest.param([], None, id="none"),
])
def test_best_group(scores: list[EvidenceGroupScore], expected: tuple[int, ...] | None) -> None:
    best = best_group(scores, "entailment")
    assert (best.memory_ids if best else None) == (None if expected is None else tuple(IDS[i] for i in expected))


def test_best_group_prefers_the_earlier_of_equal_keys() -> None:
    direct = score((0,), 0.9)
    localized = LocalizedEvidenceAssessment(references=("m0",), memory_ids=(IDS[0],), included_segment_numbers=((1,),),
                                            premise_sha256="a" * 64, model_called=True, entailment=0.9,
                                            contradiction=0.05, neutral=0.05)
    assert best_group([direct, localized], "entailment") is direct
    uncalled = LocalizedEvidenceAssessment(references=("m0",), memory_ids=(IDS[0],), included_segment_numbers=((),),
                                           model_called=False)
    with pytest.raises(ValueError, match="unavailable"):
        best_group([uncalled, direct], "entailment")

import pytest

from answerlens import AnswerabilityAction, AnswerabilityVerdict
from answerlens.verdict import derive_verdict


@pytest.mark.parametrize(
    "statuses, verdict, action",
    [
        pytest.param(["supported"], "answerable", "answer", id="all_supported"),
        pytest.param(["supported", "supported"], "answerable", "answer", id="all_supported_many"),
        pytest.param(["supported", "unsupported"], "partial", "answer_partially", id="some_supported"),
        pytest.param(["unsupported"], "insufficient", "abstain", id="none_supported"),
        pytest.param(["supported", "conflicting"], "conflicting", "surface_conflict", id="any_conflict_wins"),
        pytest.param(["unsupported", "conflicting"], "conflicting", "surface_conflict", id="conflict_over_missing"),
        pytest.param([], "insufficient", "abstain", id="no_requirements"),
    ],
)
def test_verdict_table(statuses: list[str], verdict: str, action: str) -> None:
    assert derive_verdict(statuses) == (AnswerabilityVerdict(verdict), AnswerabilityAction(action))

import json

import pytest

from answerlens import (
    AnswerabilityError,
    AnswerlensError,
    BundleError,
    ClaimVerificationError,
    DatasetError,
    TrialError,
)
from answerlens.errors import json_problem


def test_tree() -> None:
    assert issubclass(AnswerabilityError, AnswerlensError) and issubclass(AnswerabilityError, RuntimeError)
    assert issubclass(BundleError, AnswerlensError) and issubclass(BundleError, ValueError)
    assert issubclass(DatasetError, AnswerlensError) and issubclass(TrialError, AnswerlensError)
    assert issubclass(ClaimVerificationError, AnswerlensError) and issubclass(ClaimVerificationError, RuntimeError)


def test_messages_carry_place_and_remedy() -> None:
    assert str(BundleError("broken", source="a.json", path="$.x")) == "a.json, at $.x: broken"
    error = AnswerabilityError("Ollama is down", kind="connection_refused", remedy="start it with `ollama serve`")
    assert str(error) == "Ollama is down — start it with `ollama serve`"
    assert error.kind == "connection_refused"


@pytest.mark.parametrize(("text", "phrase"), [
    pytest.param('{"a": "cut', "Unterminated string starting here", id="ends_in_at"),
    pytest.param("{", "Expecting property name enclosed in double quotes", id="whole_already"),
])
def test_a_json_problem_never_reads_as_cut_off(text: str, phrase: str) -> None:
    with pytest.raises(json.JSONDecodeError) as raised:
        json.loads(text)
    assert json_problem(raised.value) == phrase and not phrase.endswith(" at")

from answerlens import (
    AnswerabilityError,
    AnswerlensError,
    BundleError,
    ClaimVerificationError,
    DatasetError,
    TrialError,
)


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

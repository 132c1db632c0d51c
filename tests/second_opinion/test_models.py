"""The second opinion's models are strict, frozen boundaries with closed vocabularies."""

import pytest
from pydantic import ValidationError

from answerlens.second_opinion.models import Flag, FlagCode, SecondOpinion, VerifierNote


def test_flag_codes_are_stable() -> None:
    assert [code.value for code in FlagCode] == [
        "superseded_for_present", "epistemic_not_actual", "speech_act_mismatch", "negated_support",
        "time_not_covered", "exhaustive_needs_aggregation"]


def test_models_are_frozen_and_refuse_unknown_fields() -> None:
    flag = Flag(code=FlagCode.NEGATED_SUPPORT, reason="r", refs=("m1",))
    with pytest.raises(ValidationError):
        flag.reason = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        Flag(code="made_up", reason="r", refs=())  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        VerifierNote(state="checked", colour="red")  # type: ignore[call-arg]
    assert SecondOpinion.model_config["extra"] == "forbid"

import json
import math
from uuid import UUID

import pytest
from pydantic import ValidationError

from answerlens.claims.models import (
    ClaimEvidence,
    ClaimVerification,
    ClaimVerificationConfig,
    ClaimVerificationLimitation,
    EvidenceGroupScore,
    LocalizedEvidenceAssessment,
)
from tests.claims.fixtures import PRME

NO_MODEL = json.loads((PRME / "claims" / "claim_verifier_no_model.json").read_text())
ID = UUID("14061fff-40d1-4326-9536-4d88693e0768")


def test_default_config_is_upstreams() -> None:
    assert ClaimVerificationConfig().model_dump(mode="json") == NO_MODEL["default_config"]


@pytest.mark.parametrize("field, value", [
    pytest.param("entailment_threshold", 0.49, id="entailment_below_half"),
    pytest.param("entailment_threshold", 1.01, id="entailment_above_one"),
    pytest.param("contradiction_threshold", math.inf, id="contradiction_inf"),
    pytest.param("contradiction_threshold", math.nan, id="contradiction_nan"),
    pytest.param("batch_size", 0, id="batch_zero"),
    pytest.param("batch_size", 257, id="batch_over_256"),
    pytest.param("max_evidence", 0, id="evidence_zero"),
    pytest.param("max_evidence", 257, id="evidence_over_256"),
    pytest.param("max_group_size", 0, id="group_zero"),
    pytest.param("max_group_size", 4, id="group_four"),
    pytest.param("group_candidate_limit", 1, id="candidates_one"),
    pytest.param("group_candidate_limit", 17, id="candidates_17"),
    pytest.param("entailment_policy", "lenient", id="unknown_entailment_policy"),
    pytest.param("refutation_policy", "speech_act_guarded", id="unknown_refutation_policy"),
    pytest.param("model", "   ", id="blank_model"),
    pytest.param("revision", "", id="empty_revision"),
    pytest.param("seed", 1, id="unknown_field"),
])
def test_config_refuses_out_of_range_settings(field: str, value: object) -> None:
    with pytest.raises(ValidationError):
        ClaimVerificationConfig(**{field: value})


@pytest.mark.parametrize("field, value", [
    pytest.param("entailment_threshold", 0.5, id="entailment_half"),
    pytest.param("entailment_threshold", 1.0, id="entailment_one"),
    pytest.param("batch_size", 256, id="batch_256"),
    pytest.param("max_group_size", 3, id="group_three"),
    pytest.param("group_candidate_limit", 16, id="candidates_16"),
    pytest.param("entailment_policy", "model_only", id="model_only_entailment"),
    pytest.param("refutation_policy", "model_only", id="model_only_refutation"),
])
def test_config_accepts_the_bounds(field: str, value: object) -> None:
    assert getattr(ClaimVerificationConfig(**{field: value}), field) == value


def test_config_is_frozen_and_strips_names() -> None:
    config = ClaimVerificationConfig(model="  my/nli ", revision=" main ")
    assert (config.model, config.revision) == ("my/nli", "main")
    with pytest.raises(ValidationError):
        config.batch_size = 4  # type: ignore[misc]


def test_evidence_strips_and_validates() -> None:
    item = ClaimEvidence(reference=" m1 ", memory_id=str(ID), text="\n text \t", lifecycle_state="superseded",
                         event_time="2024-01-15T00:00:00Z")
    assert (item.reference, item.text, item.lifecycle_state.value) == ("m1", "text", "superseded")
    assert item.model_dump(mode="json")["event_time"] == "2024-01-15T00:00:00Z"
    for bad in ({"text": "   "}, {"reference": ""}, {"memory_id": "m1"}, {"speaker": "Ann"},
                {"epistemic_type": "rumour"}):
        with pytest.raises(ValidationError):
            ClaimEvidence.model_validate({"reference": "m1", "memory_id": str(ID), "text": "t", **bad})


@pytest.mark.parametrize("row, ok", [
    pytest.param((0.5, 0.3, 0.2), True, id="exact"),
    pytest.param((0.5, 0.3, 0.2 + 9e-6), True, id="within_1e-5"),
    pytest.param((0.5, 0.3, 0.2 + 2e-5), False, id="beyond_1e-5"),
    pytest.param((1.0, 0.0, 0.0), True, id="certain"),
    pytest.param((1.1, -0.1, 0.0), False, id="out_of_range"),
    pytest.param((math.nan, 0.5, 0.5), False, id="nan"),
])
def test_group_scores_are_probabilities(row: tuple[float, float, float], ok: bool) -> None:
    values = dict(zip(("entailment", "contradiction", "neutral"), row, strict=True))
    if ok:
        EvidenceGroupScore(references=("m1",), memory_ids=(ID,), **values)
    else:
        with pytest.raises(ValidationError):
            EvidenceGroupScore(references=("m1",), memory_ids=(ID,), **values)


@pytest.mark.parametrize("fields, message", [
    pytest.param({"included_segment_numbers": ()}, "equal lengths", id="lengths"),
    pytest.param({"included_segment_numbers": ((2, 1),)}, "sorted and positive", id="unsorted"),
    pytest.param({"included_segment_numbers": ((0,),)}, "sorted and positive", id="zero"),
    pytest.param({"included_segment_numbers": ((1, 1),)}, "sorted and positive", id="repeated"),
    pytest.param({"model_called": True}, "requires scores and hash", id="called_without_scores"),
    pytest.param({"entailment": 0.5}, "cannot contain scores", id="uncalled_with_score"),
    pytest.param({"model_called": True, "premise_sha256": "a" * 64, "entailment": 0.5, "contradiction": 0.5,
                  "neutral": 0.5}, "sum to one", id="called_bad_sum"),
])
def test_localized_assessments_are_consistent(fields: dict[str, object], message: str) -> None:
    base: dict[str, object] = {"references": ("m1",), "memory_ids": (ID,), "included_segment_numbers": ((1, 3),),
                               "model_called": False}
    with pytest.raises(ValidationError, match=message):
        LocalizedEvidenceAssessment(**{**base, **fields})


@pytest.mark.parametrize("version", [pytest.param(1, id="v1"), pytest.param(2, id="v2"), pytest.param(3, id="v3")])
def test_results_of_older_schema_versions_are_read(version: int) -> None:
    data = {**NO_MODEL["requires_complete_set"], "schema_version": version}
    if version < 3:
        data.pop("localized_assessments")
    result = ClaimVerification.model_validate(data)
    assert result.schema_version == version
    assert result.limitations == (ClaimVerificationLimitation.COMPLETE_SET_REQUIRES_STRUCTURED_AGGREGATION,)
    with pytest.raises(ValidationError):
        ClaimVerification.model_validate({**data, "schema_version": 4})


def test_results_round_trip_as_upstream_wrote_them() -> None:
    for name in ("requires_complete_set", "no_evidence"):
        dump = NO_MODEL[name]
        assert ClaimVerification.model_validate_json(json.dumps(dump)).model_dump(mode="json") == dump

import json

import pytest

from answerlens.claims.audit import (
    claim_sha256,
    configuration_sha256,
    evaluation_id,
    evidence_sha256,
    recorded_hash_problems,
    result_sha256,
)
from answerlens.claims.models import ClaimEvidence, ClaimVerification, ClaimVerificationConfig
from tests.claims.fixtures import PRME

NO_MODEL = json.loads((PRME / "claims" / "claim_verifier_no_model.json").read_text())


@pytest.mark.parametrize("name", [pytest.param("requires_complete_set", id="incomplete"),
                                  pytest.param("no_evidence", id="insufficient")])
def test_upstream_hashes_are_reproduced(name: str) -> None:
    recorded = NO_MODEL[name]
    evidence = [ClaimEvidence.model_validate(item) for item in NO_MODEL["bundle_evidence_reader_citations"]]
    used = evidence if name == "requires_complete_set" else []
    assert configuration_sha256(ClaimVerificationConfig()) == recorded["configuration_sha256"]
    assert claim_sha256(recorded["claim"]) == recorded["claim_sha256"]
    assert evidence_sha256(used) == recorded["evidence_sha256"]
    identity = evaluation_id(claim_sha256=recorded["claim_sha256"], evidence_sha256=recorded["evidence_sha256"],
                             configuration_sha256=recorded["configuration_sha256"])
    assert identity == recorded["evaluation_id"]
    result = ClaimVerification.model_validate(recorded)
    assert result_sha256(evaluation_id=identity, status=result.status, supporting_group=(), refuting_group=(),
                         supporting_basis=None, refuting_basis=None, group_scores=(), localized_assessments=(),
                         limitations=result.limitations) == recorded["result_sha256"]


def test_configuration_hash_changes_with_any_setting() -> None:
    assert configuration_sha256(ClaimVerificationConfig(batch_size=8)) != NO_MODEL["no_evidence"][
        "configuration_sha256"]


@pytest.mark.parametrize("field, value, problem", [
    pytest.param("status", "supported", "result_sha256", id="edited_status"),
    pytest.param("claim", "Something else.", "claim_sha256", id="edited_claim"),
    pytest.param("evidence_sha256", "0" * 64, "evaluation_id", id="edited_input_hash"),
])
def test_recorded_hash_problems_find_edits(field: str, value: str, problem: str) -> None:
    recorded = NO_MODEL["requires_complete_set"]
    assert recorded_hash_problems(ClaimVerification.model_validate(recorded)) == []
    problems = recorded_hash_problems(ClaimVerification.model_validate({**recorded, field: value}))
    assert len(problems) == 1 and problems[0].startswith(problem)


def test_older_schema_versions_are_not_rechecked() -> None:
    edited = {**NO_MODEL["no_evidence"], "schema_version": 2, "status": "supported"}
    assert recorded_hash_problems(ClaimVerification.model_validate(edited)) == []

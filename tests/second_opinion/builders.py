"""Small builders for the second-opinion tests: typed evidence and samples replayed through the pure path."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any
from uuid import UUID

from answerlens import AnswerabilityAssessment, AnswerabilityConfig, MemoryBundle, derive_assessment, load_bundle
from answerlens.claims.audit import claim_sha256, configuration_sha256, evaluation_id, evidence_sha256, result_sha256
from answerlens.claims.models import ClaimVerification, ClaimVerificationConfig, ClaimVerificationStatus
from answerlens.records import EpistemicType, LifecycleState, NodeType, SourceType
from answerlens.samples import Sample, load_sample
from answerlens.second_opinion.models import TypedEvidence
from tests.paths import SAMPLES


def evidence(text: str, ref: str = "m1", **fields: Any) -> TypedEvidence:
    values: dict[str, Any] = {
        "ref": ref, "memory_id": UUID(int=int(ref.lstrip("m")) if ref.lstrip("m").isdigit() else 99),
        "section": "passages", "node_type": NodeType.FACT, "text": text, "source_type": SourceType.USER_STATED,
        "epistemic_type": EpistemicType.ASSERTED, "lifecycle_state": LifecycleState.STABLE,
    }
    return TypedEvidence(**{**values, **fields})


def utc(year: int, month: int = 1, day: int = 1) -> datetime:
    return datetime(year, month, day, tzinfo=timezone.utc)


def sample(name: str) -> Sample:
    return load_sample(SAMPLES / f"{name}.json")


def replayed(name: str, **config: Any) -> tuple[Sample, MemoryBundle, AnswerabilityAssessment]:
    """A sample's recorded reply through the pure derivation path (the replay provider's configuration)."""
    item = sample(name)
    bundle = item.load(name)
    settings = AnswerabilityConfig(provider="replay", model=item.recorded_model, **config)
    recording = item.recording()
    assert recording is not None
    return item, bundle, derive_assessment(item.question, bundle, recording.text, config=settings, answer=item.answer)


def assess(records: list[dict[str, Any]], requirements: list[dict[str, Any]], question: str,
           **config: Any) -> tuple[MemoryBundle, AnswerabilityAssessment]:
    """A simple-format bundle and a hand-written reply over it, through the pure derivation path."""
    bundle = load_bundle({"records": records})
    reply = {"requirements": [{"explanation": "hand-written", "evidence_refs": [], "status": "supported", **item}
                              for item in requirements], "reasoning": "hand-written"}
    settings = AnswerabilityConfig(provider="replay", model="hand-written", **config)
    return bundle, derive_assessment(question, bundle, json.dumps(reply), config=settings)


def verification(claim: str, status: ClaimVerificationStatus, *, supporting: tuple[UUID, ...] = (),
                 refuting: tuple[UUID, ...] = ()) -> ClaimVerification:
    """A consistent ``ClaimVerification`` (its hashes follow from its fields) with the given status."""
    config = ClaimVerificationConfig()
    hashes = {"configuration_sha256": configuration_sha256(config), "claim_sha256": claim_sha256(claim),
              "evidence_sha256": evidence_sha256([])}
    identity = evaluation_id(**hashes)
    decision: dict[str, Any] = {
        "status": status, "supporting_group": supporting, "refuting_group": refuting, "supporting_basis": None,
        "refuting_basis": None, "group_scores": (), "localized_assessments": (), "limitations": (),
    }
    return ClaimVerification(claim=claim, **decision, model=config.model, requested_revision=config.revision,
                             model_called=False, **hashes, evaluation_id=identity,
                             result_sha256=result_sha256(evaluation_id=identity, **decision))

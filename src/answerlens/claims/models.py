"""The claim verifier's typed values: settings, evidence passages, scores and the audited result.

Field names, defaults, ranges and JSON dumps equal PRME 0.15.0's, because the audit hashes are taken over them.
"""

from __future__ import annotations

import math
from datetime import datetime
from enum import Enum
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from answerlens.records import EpistemicType, LifecycleState, SourceType

DEFAULT_NLI_MODEL = "cross-encoder/nli-deberta-v3-base"
DEFAULT_NLI_REVISION = "6c749ce3425cd33b46d187e45b92bbf96ee12ec7"
CLAIM_VERIFICATION_SCHEMA_VERSION: Literal[3] = 3
"""Written by this version; results of schema versions 1 and 2 are still read."""
PROBABILITY_TOLERANCE = 1e-5
"""Relative and absolute tolerance of ``entailment + contradiction + neutral == 1``."""


class ClaimVerificationStatus(str, Enum):
    """Machine-derived relationship between a claim and the supplied evidence."""

    SUPPORTED = "supported"
    REFUTED = "refuted"
    CONTESTED = "contested"
    INSUFFICIENT = "insufficient"
    INCOMPLETE = "incomplete"


class ClaimVerificationLimitation(str, Enum):
    """Why a result is weaker than it may look."""

    COMPLETE_SET_REQUIRES_STRUCTURED_AGGREGATION = "complete_set_requires_structured_aggregation"
    UNCORROBORATED_MODEL_ENTAILMENT = "uncorroborated_model_entailment"
    UNCORROBORATED_MODEL_CONTRADICTION = "uncorroborated_model_contradiction"


class ClaimVerificationDecisionBasis(str, Enum):
    """What established the deciding group."""

    MODEL_ENTAILMENT = "model_entailment"
    LOCALIZED_MODEL_ENTAILMENT = "localized_model_entailment"
    MODEL_CONTRADICTION = "model_contradiction"
    EXPLICIT_NEGATION_OVERLAP = "explicit_negation_overlap"


# The two policies are string literals, not enums, exactly as upstream: a bad value then fails validation with
# upstream's own words (``literal_error``), and the configuration dump and hash are upstream's.
EntailmentPolicy = Literal["speech_act_guarded", "model_only"]
"""Whether model entailment must also pass the speech-act and typed-field guards (``speech_act_guarded``)."""
RefutationPolicy = Literal["explicit_corroboration", "model_only"]
"""Whether model contradiction must also be corroborated by explicit text (``explicit_corroboration``)."""


class ClaimVerificationConfig(BaseModel):
    """Settings of bounded local claim verification: exactly upstream's ten fields."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    model: str = Field(default=DEFAULT_NLI_MODEL, min_length=1)
    """The NLI cross-encoder (a Hugging Face model id)."""
    revision: str = Field(default=DEFAULT_NLI_REVISION, min_length=1)
    """The pinned model revision (a commit)."""
    entailment_threshold: float = Field(default=0.80, ge=0.5, le=1.0)
    """Entailment probability at or above which a group may support the claim."""
    contradiction_threshold: float = Field(default=0.80, ge=0.5, le=1.0)
    """Contradiction probability at or above which a group may refute the claim."""
    batch_size: int = Field(default=32, ge=1, le=256)
    """Pairs per model run."""
    max_evidence: int = Field(default=64, ge=1, le=256)
    """More passages than this is an error, not a silent cut."""
    max_group_size: int = Field(default=2, ge=1, le=3)
    """Largest group of passages scored together when no single passage decides."""
    group_candidate_limit: int = Field(default=8, ge=2, le=16)
    """Passages (the strongest singles) that groups are formed from."""
    entailment_policy: EntailmentPolicy = "speech_act_guarded"
    refutation_policy: RefutationPolicy = "explicit_corroboration"

    @field_validator("model", "revision")
    @classmethod
    def _strip_required_text(cls, value: str) -> str:
        normalized = value.strip()
        if not normalized:
            raise ValueError("must be nonempty")
        return normalized


class ClaimEvidence(BaseModel):
    """One exact, citable passage and its typed memory provenance."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reference: str = Field(min_length=1)
    """The bundle-local token (``m3``) or the memory id as text."""
    memory_id: UUID
    text: str = Field(min_length=1)
    """The passage exactly as packed (whitespace-stripped)."""
    source_type: SourceType | None = None
    epistemic_type: EpistemicType | None = None
    lifecycle_state: LifecycleState | None = None
    event_time: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None

    @field_validator("reference", "text")
    @classmethod
    def _strip_text(cls, value: str) -> str:
        normalized = value.strip()
        if not normalized:
            raise ValueError("must be nonempty")
        return normalized


def _sums_to_one(*values: float) -> bool:
    return math.isclose(sum(values), 1.0, rel_tol=PROBABILITY_TOLERANCE, abs_tol=PROBABILITY_TOLERANCE)


class EvidenceGroupScore(BaseModel):
    """NLI probabilities for one exact evidence group (premise = its passages, hypothesis = the claim)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    references: tuple[str, ...]
    memory_ids: tuple[UUID, ...]
    entailment: float = Field(ge=0.0, le=1.0)
    contradiction: float = Field(ge=0.0, le=1.0)
    neutral: float = Field(ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _probabilities_sum_to_one(self) -> EvidenceGroupScore:
        if not _sums_to_one(self.entailment, self.contradiction, self.neutral):
            raise ValueError("NLI probabilities must sum to one")
        return self


class LocalizedEvidenceAssessment(BaseModel):
    """The recheck of a guard-blocked group after dropping the passage segments that cannot establish the claim."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    references: tuple[str, ...]
    memory_ids: tuple[UUID, ...]
    included_segment_numbers: tuple[tuple[int, ...], ...]
    """Per passage, the 1-based numbers of the segments kept in the localized premise."""
    premise_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    model_called: bool
    """False when no segment survived, so there was nothing to score."""
    entailment: float | None = Field(default=None, ge=0.0, le=1.0)
    contradiction: float | None = Field(default=None, ge=0.0, le=1.0)
    neutral: float | None = Field(default=None, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _consistent(self) -> LocalizedEvidenceAssessment:
        if not len(self.references) == len(self.memory_ids) == len(self.included_segment_numbers):
            raise ValueError("localized evidence identities must have equal lengths")
        if any(
            numbers != tuple(sorted(set(numbers))) or any(number < 1 for number in numbers)
            for numbers in self.included_segment_numbers
        ):
            raise ValueError("localized segment numbers must be sorted and positive")
        probabilities = (self.entailment, self.contradiction, self.neutral)
        if not self.model_called:
            if self.premise_sha256 is not None or any(value is not None for value in probabilities):
                raise ValueError("uncalled localized assessment cannot contain scores")
            return self
        if self.premise_sha256 is None or self.entailment is None or self.contradiction is None \
                or self.neutral is None:
            raise ValueError("called localized assessment requires scores and hash")
        if not _sums_to_one(self.entailment, self.contradiction, self.neutral):
            raise ValueError("localized probabilities must sum to one")
        return self


class ClaimVerification(BaseModel):
    """An auditable claim decision over fixed evidence and verifier settings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1, 2, 3] = CLAIM_VERIFICATION_SCHEMA_VERSION
    claim: str
    status: ClaimVerificationStatus
    supporting_group: tuple[UUID, ...] = ()
    """Memory ids of the deciding supporting group (smallest, then most probable, then by id)."""
    refuting_group: tuple[UUID, ...] = ()
    supporting_basis: ClaimVerificationDecisionBasis | None = None
    refuting_basis: ClaimVerificationDecisionBasis | None = None
    group_scores: tuple[EvidenceGroupScore, ...] = ()
    """Every group scored, singles first, in scoring order."""
    localized_assessments: tuple[LocalizedEvidenceAssessment, ...] = ()
    limitations: tuple[ClaimVerificationLimitation, ...] = ()
    model: str
    requested_revision: str
    resolved_revision: str | None = None
    """The revision the scorer actually ran, when a model was called and the scorer knows it."""
    model_called: bool
    configuration_sha256: str
    claim_sha256: str
    evidence_sha256: str
    evaluation_id: str
    """Fixed-input identity: claim, evidence, configuration and schema version."""
    result_sha256: str
    """Identity of the decision itself, so repeats with one ``evaluation_id`` can be compared."""

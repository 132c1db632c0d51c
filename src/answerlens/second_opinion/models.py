"""The second opinion's typed values: typed evidence, flags, the verifier's note, the strict outcome and the
stored result with its own hashes (kept beside an assessment, never inside its hashed fields)."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from answerlens.claims.models import ClaimVerification, ClaimVerificationStatus
from answerlens.config import EvidencePolicy
from answerlens.records import EpistemicType, LifecycleState, NodeType, SourceType
from answerlens.verdict import AnswerabilityAction, AnswerabilityStatus, AnswerabilityVerdict

SECOND_OPINION_SCHEMA_VERSION: Literal[1] = 1


class FlagCode(str, Enum):
    """Why deterministic code doubts a requirement's support (stable codes: UIs, counts and tests key on them)."""

    SUPERSEDED_FOR_PRESENT = "superseded_for_present"
    """A superseded, deprecated or archived record (or a closed validity window) for a question about now."""
    EPISTEMIC_NOT_ACTUAL = "epistemic_not_actual"
    """A hypothetical, conditional, unverified or deprecated record for a requirement that does not say so."""
    SPEECH_ACT_MISMATCH = "speech_act_mismatch"
    """The passage wishes, plans, tries, advises, doubts, conditions, reports or asks; the requirement does not."""
    NEGATED_SUPPORT = "negated_support"
    """The passage negates what a positive requirement states."""
    TIME_NOT_COVERED = "time_not_covered"
    """The record's validity window and event time miss the time the question names."""
    EXHAUSTIVE_NEEDS_AGGREGATION = "exhaustive_needs_aggregation"
    """A count or complete list rests on a retrieved (top-k) set, which cannot show it is complete."""


class Flag(BaseModel):
    """One deterministic doubt: a stable code, a one-line reason, and the citation refs it concerns."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: FlagCode
    reason: str
    """One line, built from refs, typed values and the requirement's own words; never from record text."""
    refs: tuple[str, ...]


class TypedEvidence(BaseModel):
    """One accepted citation's record with its typed fields, read from the bundle (never from the model)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ref: str
    memory_id: UUID
    section: str
    node_type: NodeType
    text: str
    """The packed passage (the candidate's rendered text, else the record's content): data, never markup."""
    source_type: SourceType
    epistemic_type: EpistemicType
    lifecycle_state: LifecycleState
    event_time: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    superseded_by: UUID | None = None
    speaker: str | None = None


class VerifierState(str, Enum):
    """Whether the claim verifier could give its opinion."""

    NOT_REQUESTED = "not_requested"
    CHECKED = "checked"
    """It ran on every supported or conflicting requirement."""
    UNAVAILABLE = "unavailable"
    """The NLI runtime or model is not installed; the flags still stand."""
    FAILED = "failed"
    """The scorer failed; results before the failure are kept."""


class VerifierNote(BaseModel):
    """What happened to the verifier as a whole, with the one-line remedy when it could not run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    state: VerifierState
    message: str | None = None
    """One line for people: "NLI model not installed", "the claim verifier failed on requirement[2]"."""
    detail: str | None = None
    """The verifier's own error text (what is missing and where it was looked for)."""
    remedy: str | None = None
    """The one-line fix, when there is one."""


class UnreadPassage(BaseModel):
    """A cited passage the claim verifier read only the start of: its model takes a bounded number of tokens for
    a (passage, requirement) pair, and the tokenizer cut the rest before the model saw it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ref: str
    memory_id: UUID
    read_chars: int = Field(ge=0)
    """Characters of the passage the model read, from its start."""
    chars: int = Field(ge=0)
    """The passage's length."""


class RequirementOpinion(BaseModel):
    """The second opinion on one requirement, in the assessment's requirement order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    requirement: str
    status: AnswerabilityStatus
    """The assessment's final (model-derived) status, repeated so the opinion reads on its own."""
    typed_evidence: tuple[TypedEvidence, ...] = ()
    flags: tuple[Flag, ...] = ()
    """Empty when nothing is flagged; only supported or conflicting requirements are flagged."""
    verifier: ClaimVerification | None = None
    """None when the verifier did not run on this requirement."""
    verifier_unread: tuple[UnreadPassage, ...] = Field(default=(), exclude_if=lambda value: not value)
    """Cited passages the verifier's model read only the start of (present only then)."""


class StrictChange(BaseModel):
    """One requirement the strict policy demoted, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int
    requirement: str
    from_status: AnswerabilityStatus
    to_status: AnswerabilityStatus
    flags: tuple[FlagCode, ...] = ()
    verifier_status: ClaimVerificationStatus | None = None
    """Set when the verifier's result is (part of) the reason."""


class StrictOutcome(BaseModel):
    """The verdict the strict policy re-derives with the pure verdict function, and what it changed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    verdict: AnswerabilityVerdict
    recommended_action: AnswerabilityAction
    changes: tuple[StrictChange, ...] = ()


class SecondOpinion(BaseModel):
    """Typed evidence, flags and the verifier on every requirement of one assessment, with its own hashes.

    ``opinion_id`` hashes the fixed inputs (the assessment's ``evaluation_id`` and ``assessment_sha256``, the
    verifier configuration hash, the flag rules version, the policy); ``opinion_sha256`` hashes everything else.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = SECOND_OPINION_SCHEMA_VERSION
    question: str
    """The question assessed (its sha256 is the assessment's ``query_sha256``); the flags read its clauses."""
    assessment_evaluation_id: str
    assessment_sha256: str
    flag_rules_version: str
    verifier_configuration_sha256: str | None = None
    """The verifier's configuration hash when one was asked for (even if its model was missing)."""
    policy: EvidencePolicy = EvidencePolicy.STANDARD
    evidence_as_of: datetime | None = None
    """The latest event or validity-start time of any record in the bundle: the "now" a closed validity
    window is compared with (None when the bundle has no times)."""
    requirements: tuple[RequirementOpinion, ...]
    verifier_note: VerifierNote
    strict: StrictOutcome | None = None
    """Present exactly when the policy is strict."""
    opinion_id: str
    opinion_sha256: str

"""The bundle and record data models (pure): PRME's ``MemoryBundle`` and ``MemoryNode`` shapes.

PRME's objects are read tolerantly: a record keeps every field it arrives with (``MemoryRecord.prme_fields``),
other unknown fields are ignored. Loading lives in ``loading``; rendering in ``render``, which imports these
models and is never imported by them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from datetime import datetime, timezone
from enum import Enum
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, field_validator

SPEAKER_METADATA_KEY = "prme_speaker_v1"
MAX_SPEAKER_LENGTH = 200


class NodeType(str, Enum):
    ENTITY = "entity"
    EVENT = "event"
    FACT = "fact"
    DECISION = "decision"
    PREFERENCE = "preference"
    TASK = "task"
    SUMMARY = "summary"
    NOTE = "note"
    INSTRUCTION = "instruction"


class Scope(str, Enum):
    PERSONAL = "personal"
    PROJECT = "project"
    ORGANISATION = "organisation"
    AGENT = "agent"
    SYSTEM = "system"
    SANDBOX = "sandbox"


class LifecycleState(str, Enum):
    TENTATIVE = "tentative"
    STABLE = "stable"
    CONTESTED = "contested"
    SUPERSEDED = "superseded"
    DEPRECATED = "deprecated"
    ARCHIVED = "archived"


class SourceType(str, Enum):
    USER_STATED = "user_stated"
    USER_DEMONSTRATED = "user_demonstrated"
    SYSTEM_INFERRED = "system_inferred"
    EXTERNAL_DOCUMENT = "external_document"
    TOOL_OUTPUT = "tool_output"


class EpistemicType(str, Enum):
    OBSERVED = "observed"
    ASSERTED = "asserted"
    INFERRED = "inferred"
    HYPOTHETICAL = "hypothetical"
    CONDITIONAL = "conditional"
    DEPRECATED = "deprecated"
    UNVERIFIED = "unverified"


class ConditionState(str, Enum):
    UNKNOWN = "unknown"
    TRUE = "true"
    FALSE = "false"
    EXPIRED = "expired"


class RepresentationLevel(str, Enum):
    REFERENCE = "reference"
    KEY_VALUE = "key_value"
    STRUCTURED = "structured"
    PROSE = "prose"
    FULL = "full"


class ContextFormat(str, Enum):
    READER = "reader"
    AUDITABLE = "auditable"
    COMPACT = "compact"


class MemoryRecord(BaseModel):
    """A memory record (PRME's ``MemoryNode``).

    Fields answerlens does not read (PRME's ``user_id``, ``confidence``, ``salience``, ``evidence_refs``, ``pinned``
    … and any unknown one) are kept as they arrived, for audit: ``prme_fields`` holds them and ``model_dump`` writes
    them back unchanged. Nothing renders or hashes them, so they change no context and no hash."""

    model_config = ConfigDict(frozen=True, extra="allow")

    id: UUID
    node_type: NodeType
    content: str
    scope: Scope = Scope.PERSONAL
    metadata: dict[str, Any] | None = None
    epistemic_type: EpistemicType = EpistemicType.ASSERTED
    source_type: SourceType = SourceType.USER_STATED
    lifecycle_state: LifecycleState = LifecycleState.TENTATIVE
    event_time: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    superseded_by: UUID | None = None
    created_at: datetime | None = None

    @field_validator("event_time", "valid_from", "valid_to", "created_at")
    @classmethod
    def _representable_in_utc(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.utcoffset() is not None:
            try:
                value.astimezone(timezone.utc)
            except OverflowError:
                raise ValueError(f"{value.isoformat()} cannot be expressed in UTC") from None
        return value

    @property
    def prme_fields(self) -> dict[str, Any]:
        """The fields this record arrived with that answerlens does not read, as they arrived (JSON values)."""
        return dict(self.__pydantic_extra__ or {})

    @property
    def speaker(self) -> str | None:
        """The stored speaker name, or None when absent or malformed (as PRME reads it)."""
        value = (self.metadata or {}).get(SPEAKER_METADATA_KEY)
        if not isinstance(value, str):
            return None
        try:
            return normalize_speaker(value)
        except ValueError:
            return None


class Candidate(BaseModel):
    """A packed record (PRME's ``RetrievalCandidate``): the record plus the text the packer selected."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    node: MemoryRecord
    rendered_text: str | None = None
    representation: RepresentationLevel | None = None
    composite_score: float | None = None
    token_cost: int | None = None


class MemoryBundle(BaseModel):
    """The packed evidence: sections of candidates and the exact rendered context the model sees."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    sections: dict[str, tuple[Candidate, ...]] = Field(default_factory=dict)
    included_count: int = 0
    excluded_ids: tuple[UUID, ...] = ()
    tokens_used: int = 0
    token_budget: int = 0
    budget_remaining: int = 0
    min_fidelity: RepresentationLevel | None = RepresentationLevel.REFERENCE
    rendered_context: str = ""
    tokenizer: str | None = None
    coverage_notice: str | None = None
    context_guidance: str | None = None
    context_format: ContextFormat = ContextFormat.AUDITABLE
    context_references: dict[str, UUID] = Field(default_factory=dict)

    def render(self) -> str:
        """The rendered context, as packed; never reconstructed."""
        return self.rendered_context

    def resolve_context_ref(self, reference: str) -> UUID:
        """The memory id a bundle-local reference such as ``m3`` names, as PRME resolves it: an exact key of
        ``context_references``, else ``ValueError("Unknown context reference: m3")`` (from the ``KeyError``)."""
        try:
            return self.context_references[reference]
        except KeyError as exc:
            raise ValueError(f"Unknown context reference: {reference}") from exc

    @property
    def exact_context(self) -> str:
        """``render().strip()``: exactly what the model is sent, what is hashed, and what spans index into."""
        return self.rendered_context.strip()

    def candidates(self) -> Iterator[tuple[str, Candidate]]:
        """Every packed candidate with its section name, in rendering order."""
        for section, candidates in self.sections.items():
            for candidate in candidates:
                yield section, candidate

    @property
    def record_count(self) -> int:
        return sum(len(candidates) for candidates in self.sections.values())

    def ensure_citable(self) -> None:
        """Raise ``ValueError`` for a reader bundle whose records carry no citation references."""
        if (
            self.context_format == ContextFormat.READER
            and not self.context_references
            and any(self.sections.values())
        ):
            raise ValueError(
                "This reader-format bundle has no citation references; pack it "
                "with PackingConfig(context_format='reader', context_citations=True)"
            )


def normalize_speaker(speaker: str) -> str:
    """Validate a speaker name as PRME does: trimmed, 1–200 characters, no control or bidi characters."""
    name = speaker.strip()
    if not name:
        raise ValueError("speaker must be a non-empty name")
    if len(name) > MAX_SPEAKER_LENGTH:
        raise ValueError(f"speaker must be at most {MAX_SPEAKER_LENGTH} characters")
    if any(char in _BIDI_CONTROLS or unicodedata.category(char) in _FORBIDDEN_CATEGORIES for char in name):
        raise ValueError("speaker must not contain control characters, line breaks or bidirectional controls")
    return name


_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

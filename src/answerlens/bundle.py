"""Bundle and record models, and loading them from PRME dumps or the simple passage format.

PRME's objects are read tolerantly (unknown fields are ignored); the simple answerlens format is strict.
Every load failure is a ``BundleError`` naming the source and the JSON path, never a bare traceback.
"""

from __future__ import annotations

import json
import os
import unicodedata
from collections.abc import Iterator, Mapping
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from answerlens.errors import BundleError, describe_validation

MAX_BUNDLE_BYTES = 50 * 1024 * 1024
"""Largest bundle file ``load_bundle`` reads (50 MB, counted as MiB)."""
MB = 1024 * 1024

SPEAKER_METADATA_KEY = "prme_speaker_v1"
MAX_SPEAKER_LENGTH = 200
SIMPLE_SECTION = "passages"
"""Section that records of the simple format are placed in."""


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
    """A memory record (PRME's ``MemoryNode``); extra PRME fields are ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")

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
        """The exact context, as packed; never reconstructed."""
        return self.rendered_context

    def resolve_context_ref(self, reference: str) -> UUID:
        """The memory id a bundle-local reference such as ``m3`` names, as PRME resolves it: an exact key of
        ``context_references``, else ``ValueError("Unknown context reference: m3")`` (from the ``KeyError``)."""
        try:
            return self.context_references[reference]
        except KeyError as exc:
            raise ValueError(f"Unknown context reference: {reference}") from exc

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


# --- the simple passage format -------------------------------------------------------------------


class SimpleRecord(BaseModel):
    """One passage of the simple format; answerlens renders it itself."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    id: UUID | None = None
    speaker: str | None = None
    event_time: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    epistemic: EpistemicType = EpistemicType.ASSERTED
    lifecycle: LifecycleState = LifecycleState.TENTATIVE
    type: NodeType = NodeType.NOTE
    condition_state: ConditionState | None = None
    section: str = Field(default=SIMPLE_SECTION, min_length=1)

    @field_validator("speaker")
    @classmethod
    def _speaker(cls, value: str | None) -> str | None:
        return None if value is None else normalize_speaker(value)

    @field_validator("event_time", "valid_from", "valid_to")
    @classmethod
    def _naive_is_utc(cls, value: datetime | None) -> datetime | None:
        # A bare timestamp in a hand-written file means UTC; PRME stores aware times.
        if value is not None and value.utcoffset() is None:
            return value.replace(tzinfo=timezone.utc)
        return value


class SimplePacking(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    context_format: ContextFormat = ContextFormat.READER
    context_citations: bool = True


class SimpleBundle(BaseModel):
    """``{"records": [...], "packing": {...}}``; a bare list of records means the default packing."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    records: list[SimpleRecord]
    packing: SimplePacking = SimplePacking()
    coverage_notice: str | None = None
    context_guidance: str | None = None


def _simple_to_bundle(simple: SimpleBundle) -> MemoryBundle:
    from answerlens.render import render_bundle  # render depends on these models

    given = {record.id for record in simple.records if record.id is not None}
    counter = 0
    sections: dict[str, list[Candidate]] = {}
    for record in simple.records:
        record_id = record.id
        if record_id is None:
            # Deterministic ids that sort in document order, so m1 is the first passage.
            counter += 1
            while (record_id := UUID(int=counter)) in given:
                counter += 1
        metadata: dict[str, Any] = {}
        if record.speaker is not None:
            metadata[SPEAKER_METADATA_KEY] = record.speaker
        if record.condition_state is not None:
            metadata["condition_state"] = record.condition_state.value
        node = MemoryRecord(
            id=record_id,
            node_type=record.type,
            content=record.text,
            metadata=metadata or None,
            epistemic_type=record.epistemic,
            lifecycle_state=record.lifecycle,
            event_time=record.event_time,
            valid_from=record.valid_from,
            valid_to=record.valid_to,
        )
        candidate = Candidate(node=node, rendered_text=record.text, representation=RepresentationLevel.FULL)
        sections.setdefault(record.section, []).append(candidate)
    ids = [candidate.node.id for group in sections.values() for candidate in group]
    if len(set(ids)) != len(ids):
        raise ValueError("record ids must be unique")
    unrendered = MemoryBundle(
        sections={name: tuple(group) for name, group in sections.items()},
        included_count=len(ids),
        coverage_notice=simple.coverage_notice,
        context_guidance=simple.context_guidance,
        context_format=simple.packing.context_format,
    )
    return render_bundle(
        unrendered, simple.packing.context_format, context_citations=simple.packing.context_citations
    )


# --- loading ---------------------------------------------------------------------------------------


def load_bundle(source: Any, *, name: str | None = None) -> MemoryBundle:
    """Load a bundle from a path, a dict, a list, a JSON string, bytes, or a PRME ``MemoryBundle`` object.

    Accepted shapes: a PRME ``MemoryBundle`` dump, the simple format (``{"records": [...], "packing":
    {...}}`` or a bare list of records), or a wrapper with the bundle under ``"bundle"`` (sample files).
    ``name`` labels the source in error messages. Raises ``BundleError``.
    """
    if isinstance(source, MemoryBundle):
        return source
    if isinstance(source, (Path, os.PathLike)):
        return _load_path(Path(source))
    if isinstance(source, bytes):
        return _from_json_text(_decode(source, name or "<bytes>"), name or "<bytes>")
    if isinstance(source, str):
        stripped = source.lstrip()
        if stripped.startswith(("{", "[", "\"")):
            return _from_json_text(source, name or "<json text>")
        if not stripped:
            raise BundleError("the bundle text is empty", source=name or "<json text>")
        return _load_path(Path(source))
    if isinstance(source, (Mapping, list)):
        return _from_data(source, name or "<data>")
    if _looks_like_prme_bundle(source):
        return _from_prme_object(source, name or type(source).__name__)
    raise BundleError(
        f"cannot load a bundle from {type(source).__name__}; pass a path, a dict, JSON text "
        "or a PRME MemoryBundle",
        source=name,
    )


def read_json_file(path: Path, *, max_bytes: int = MAX_BUNDLE_BYTES, error: type[BundleError] = BundleError) -> Any:
    """Read a JSON file with a size limit; every failure is a ``BundleError`` naming the file."""
    label = str(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise error("file not found", source=label) from None
    except OSError as exc:
        raise error(f"cannot read file ({exc.strerror})", source=label) from None
    if path.is_dir():
        raise error("is a directory, not a JSON file", source=label)
    if size > max_bytes:
        raise error(
            f"file is {size / MB:.1f} MB; the limit is {max_bytes / MB:.0f} MB — pack fewer records",
            source=label,
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise error(f"cannot read file ({exc.strerror})", source=label) from None
    return parse_json(_decode(data, label), label)


def parse_json(text: str, label: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BundleError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", source=label
        ) from None
    except RecursionError:
        raise BundleError("JSON is nested too deeply", source=label) from None


def _decode(data: bytes, label: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BundleError(f"not UTF-8 text (byte {exc.start})", source=label) from None


def _load_path(path: Path) -> MemoryBundle:
    return _from_data(read_json_file(path), str(path))


def _from_json_text(text: str, label: str) -> MemoryBundle:
    return _from_data(parse_json(text, label), label)


def _from_data(data: Any, label: str, prefix: str = "$") -> MemoryBundle:
    if isinstance(data, list):
        return _validate_simple({"records": data}, label, prefix, bare_list=True)
    if not isinstance(data, Mapping):
        raise BundleError(
            f"expected a JSON object or a list of records, got {_json_type(data)}", source=label, path=prefix
        )
    if "sections" in data or "rendered_context" in data:
        return _validate(MemoryBundle, data, label, prefix)
    if "records" in data:
        return _validate_simple(data, label, prefix)
    if "bundle" in data:
        return _from_data(data["bundle"], label, f"{prefix}.bundle")
    raise BundleError(
        "not a bundle: expected a PRME MemoryBundle (with 'sections' and 'rendered_context'), "
        "the simple format (with 'records'), or a sample with 'bundle'",
        source=label,
        path=prefix,
    )


def _validate_simple(data: Mapping[str, Any], label: str, prefix: str, bare_list: bool = False) -> MemoryBundle:
    simple = _validate(SimpleBundle, data, label, prefix, bare_list=bare_list)
    try:
        return _simple_to_bundle(simple)
    except ValueError as exc:
        raise BundleError(str(exc), source=label, path=f"{prefix}.records" if not bare_list else prefix) from None


def _validate(model: Any, data: Any, label: str, prefix: str, bare_list: bool = False) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        message = describe_validation(exc, prefix, drop_first="records" if bare_list else None)
        raise BundleError(message, source=label) from None


def _json_type(value: Any) -> str:
    names = {str: "a string", int: "a number", float: "a number", bool: "a boolean", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _looks_like_prme_bundle(obj: Any) -> bool:
    return all(hasattr(obj, attr) for attr in ("render", "context_format", "context_references", "sections"))


def _from_prme_object(obj: Any, label: str) -> MemoryBundle:
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        return _from_data(dump(mode="json"), label)
    data = {
        "sections": obj.sections,
        "rendered_context": obj.render(),
        "context_format": getattr(obj.context_format, "value", obj.context_format),
        "context_references": {key: str(value) for key, value in dict(obj.context_references).items()},
    }
    return _validate(MemoryBundle, data, label, "$")

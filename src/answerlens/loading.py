"""Reading bundles: one bounded JSON reader, PRME dumps, the simple passage format and sample wrappers.

The simple answerlens format is strict. Every load failure is a ``BundleError`` naming the source and the JSON
path, never a bare traceback.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from uuid import UUID, uuid5

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from answerlens.errors import BundleError, describe_validation
from answerlens.json_reader import DEFAULT_MAX_BYTES, decode, parse_json, read_json
from answerlens.records import (
    SPEAKER_METADATA_KEY,
    Candidate,
    ConditionState,
    ContextFormat,
    EpistemicType,
    LifecycleState,
    MemoryBundle,
    MemoryRecord,
    NodeType,
    RepresentationLevel,
    normalize_speaker,
)
from answerlens.render import render_bundle

MAX_BUNDLE_BYTES = DEFAULT_MAX_BYTES
"""Largest bundle file ``load_bundle`` reads (50 MB, counted as MiB)."""
DEFAULT_MAX_RECORDS = 50_000
"""Most records a bundle may hold unless ``max_records`` (or ``ANSWERLENS_MAX_RECORDS``) says otherwise: more than
a 50 MB PRME export holds (about 31,000) and far more than any model's context takes, while a file of millions of
one-word records — a few KB of models each — is refused before it fills memory."""
MAX_RECORDS_ENV = "ANSWERLENS_MAX_RECORDS"
OBJECTS_PER_RECORD = 10
"""JSON objects a packed record may take (a PRME candidate takes 8); parsing stops past this many per record."""
SIMPLE_SECTION = "passages"
"""Section that records of the simple format are placed in."""


# --- the simple passage format -------------------------------------------------------------------


class SimpleRecord(BaseModel):
    """One passage of the simple format; answerlens renders it itself."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    id: UUID | str | None = None
    """A UUID, or any other non-blank text (e.g. a retriever's document id), which stands for the UUID
    ``record_uuid`` derives from it: assessments cite records by UUID."""
    speaker: str | None = None
    event_time: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    epistemic: EpistemicType = EpistemicType.ASSERTED
    lifecycle: LifecycleState = LifecycleState.TENTATIVE
    type: NodeType = NodeType.NOTE
    condition_state: ConditionState | None = None
    section: str = Field(default=SIMPLE_SECTION, min_length=1)
    metadata: dict[str, Any] | None = None
    """Kept on the record for audit (e.g. an imported document's id, score and metadata); never rendered or hashed.
    The keys the renderer reads are set through ``speaker`` and ``condition_state`` instead."""

    @field_validator("metadata")
    @classmethod
    def _unread_keys_only(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        read = sorted({SPEAKER_METADATA_KEY, "condition_state"} & set(value or {}))
        if read:
            raise ValueError(f"metadata key {read[0]!r} is read by the renderer: set it with "
                             f"{'speaker' if read[0] == SPEAKER_METADATA_KEY else 'condition_state'} instead")
        return value

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: Any) -> Any:
        if isinstance(value, str):
            if not value.strip():
                raise ValueError("a record id is a UUID or non-blank text")
            try:
                return UUID(value)
            except ValueError:
                return value
        return value

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


RECORD_ID_NAMESPACE = UUID("8d1f3c52-6b0e-5a47-9c2d-3e4f5a6b7c8d")
"""The namespace of the UUIDs derived from text record ids (uuid5)."""


def record_uuid(identifier: UUID | str) -> UUID:
    """The UUID a record id stands for: itself when it is (or reads as) a UUID, else uuid5 of its text in
    ``RECORD_ID_NAMESPACE``, so a text id always names the same record."""
    if isinstance(identifier, UUID):
        return identifier
    try:
        return UUID(identifier)
    except ValueError:
        return uuid5(RECORD_ID_NAMESPACE, identifier)


def _simple_to_bundle(simple: SimpleBundle) -> MemoryBundle:
    given = {record_uuid(record.id) for record in simple.records if record.id is not None}
    counter = 0
    sections: dict[str, list[Candidate]] = {}
    for record in simple.records:
        record_id = record_uuid(record.id) if record.id is not None else None
        if record_id is None:
            # Deterministic ids that sort in document order, so m1 is the first passage.
            counter += 1
            while (record_id := UUID(int=counter)) in given:
                counter += 1
        metadata: dict[str, Any] = dict(record.metadata or {})
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


def load_bundle(source: Any, *, name: str | None = None, max_records: int | None = None) -> MemoryBundle:
    """Load a bundle from a path, a dict, a list, a JSON string, bytes, or a PRME ``MemoryBundle`` object.

    Accepted shapes: a PRME ``MemoryBundle`` dump, the simple format (``{"records": [...], "packing":
    {...}}`` or a bare list of records), or a wrapper with the bundle under ``"bundle"`` (sample files).
    ``name`` labels the source in error messages. A bundle of more than ``max_records`` records (default
    ``ANSWERLENS_MAX_RECORDS`` or 50,000) is refused before it is built. Raises ``BundleError``.
    """
    if isinstance(source, MemoryBundle):
        return source
    limit = record_limit(max_records)
    if isinstance(source, (Path, os.PathLike)):
        return _load_path(Path(source), limit)
    if isinstance(source, bytes):
        text = decode(source, name or "<bytes>", max_bytes=MAX_BUNDLE_BYTES)
        return _from_json_text(text, name or "<bytes>", limit)
    if isinstance(source, str):
        stripped = source.lstrip()
        if stripped.startswith(("{", "[", "\"")):
            return _from_json_text(source, name or "<json text>", limit)
        if not stripped:
            raise BundleError("the bundle text is empty", source=name or "<json text>")
        return _load_path(Path(source), limit)
    if isinstance(source, (Mapping, list)):
        return _from_data(source, name or "<data>", limit)
    if _looks_like_prme_bundle(source):
        return _from_prme_object(source, name or type(source).__name__)
    raise BundleError(
        f"cannot load a bundle from {type(source).__name__}; pass a path, a dict, JSON text "
        "or a PRME MemoryBundle",
        source=name,
    )


def record_limit(max_records: int | None = None) -> int:
    """The record limit in force: the argument, else ``ANSWERLENS_MAX_RECORDS``, else 50,000."""
    if max_records is not None:
        if max_records < 1:
            raise ValueError("max_records must be at least 1")
        return max_records
    configured = os.environ.get(MAX_RECORDS_ENV, "").strip()
    if not configured:
        return DEFAULT_MAX_RECORDS
    if not configured.isdigit() or int(configured) < 1:
        raise BundleError(f"{MAX_RECORDS_ENV}={configured!r} is not a positive whole number")
    return int(configured)


def _load_path(path: Path, limit: int) -> MemoryBundle:
    # A user may stream a bundle through a pipe they name (``<(jq … bundle.json)``).
    return _from_data(read_json(path, max_objects=_object_cap(limit), pipes=True), str(path), limit)


def _from_json_text(text: str, label: str, limit: int) -> MemoryBundle:
    return _from_data(parse_json(text, label, max_objects=_object_cap(limit)), label, limit)


def _object_cap(limit: int) -> int:
    return OBJECTS_PER_RECORD * limit + 1000


def _check_count(data: Mapping[str, Any] | list[Any], label: str, limit: int) -> None:
    if isinstance(data, list):
        count = len(data)
    elif isinstance(data.get("records"), list):
        count = len(data["records"])
    elif isinstance(data.get("sections"), Mapping):
        count = sum(len(group) for group in data["sections"].values() if isinstance(group, list))
    else:
        return
    if count > limit:
        raise BundleError(f"the bundle holds {count:,} records; the limit is {limit:,} — pack fewer records, or "
                          f"raise it with {MAX_RECORDS_ENV} (or max_records=…)", source=label)


def _from_data(data: Any, label: str, limit: int, prefix: str = "$") -> MemoryBundle:
    if isinstance(data, list):
        _check_count(data, label, limit)
        return _validate_simple({"records": data}, label, prefix, bare_list=True)
    if not isinstance(data, Mapping):
        raise BundleError(
            f"expected a JSON object or a list of records, got {_json_type(data)}", source=label, path=prefix
        )
    if "bundle" not in data or "records" in data or "sections" in data:
        _check_count(data, label, limit)
    if "sections" in data or "rendered_context" in data:
        return _validate(MemoryBundle, data, label, prefix)
    if "records" in data:
        return _validate_simple(data, label, prefix)
    if "bundle" in data:
        return _from_data(data["bundle"], label, limit, f"{prefix}.bundle")
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
        return _from_data(dump(mode="json"), label, record_limit())
    data = {
        "sections": obj.sections,
        "rendered_context": obj.render(),
        "context_format": getattr(obj.context_format, "value", obj.context_format),
        "context_references": {key: str(value) for key, value in dict(obj.context_references).items()},
    }
    return _validate(MemoryBundle, data, label, "$")

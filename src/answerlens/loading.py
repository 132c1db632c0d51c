"""Reading bundles: one bounded JSON reader, PRME dumps, the simple passage format and sample wrappers.

The simple answerlens format is strict. Every load failure is a ``BundleError`` naming the source and the JSON
path, never a bare traceback.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from answerlens.errors import BundleError, describe_validation
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

MAX_BUNDLE_BYTES = 50 * 1024 * 1024
"""Largest bundle file ``load_bundle`` reads (50 MB, counted as MiB)."""
MB = 1024 * 1024
SIMPLE_SECTION = "passages"
"""Section that records of the simple format are placed in."""


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
        return _from_json_text(decode(source, name or "<bytes>", max_bytes=MAX_BUNDLE_BYTES), name or "<bytes>")
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


ErrorFactory = Callable[[str, "str | None"], Exception]
"""Builds the error a reader raises from a message and the source's label."""


def _bundle_error(message: str, label: str | None) -> Exception:
    return BundleError(message, source=label)


def read_text(path: Path, *, max_bytes: int = MAX_BUNDLE_BYTES, error: ErrorFactory = _bundle_error) -> str:
    """A file's UTF-8 text, read in bounded chunks whatever the file is (regular file, FIFO, device).

    A regular file over the limit is refused before reading; anything else stops one chunk past it.
    """
    label = str(path)
    try:
        if path.is_dir():
            raise error("is a directory, not a JSON file", label)
        size = path.stat().st_size
        if path.is_file() and size > max_bytes:
            raise error(_too_large(size, max_bytes), label)
        chunks, total = [], 0
        with path.open("rb") as handle:
            while chunk := handle.read(min(1 << 20, max_bytes + 1 - total)):
                chunks.append(chunk)
                total += len(chunk)
                if total > max_bytes:
                    raise error(f"is larger than the limit of {_mb(max_bytes)} — pack fewer records", label)
    except FileNotFoundError:
        raise error("file not found", label) from None
    except OSError as exc:
        raise error(f"cannot read file ({exc.strerror or exc})", label) from None
    return decode(b"".join(chunks), label, error=error)


def _too_large(size: int, max_bytes: int) -> str:
    return f"file is {size / MB:.1f} MB; the limit is {_mb(max_bytes)} — pack fewer records"


def _mb(size: int) -> str:
    return f"{size / MB:.0f} MB" if size >= 10 * MB else f"{size / MB:.2g} MB"


def decode(data: bytes, label: str | None, *, max_bytes: int | None = None,
           error: ErrorFactory = _bundle_error) -> str:
    """UTF-8 text (a leading BOM is dropped); bytes over ``max_bytes`` or not UTF-8 are refused."""
    if max_bytes is not None and len(data) > max_bytes:
        raise error(_too_large(len(data), max_bytes), label)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text (byte {exc.start})", label) from None


def parse_json(text: str, label: str | None, *, error: ErrorFactory = _bundle_error) -> Any:
    """JSON that Python can hold exactly: no lone surrogate in a string, no number out of range.

    Every failure names the line and column, or the JSON path of the offending value.
    """
    found: list[str] = []
    try:
        data = json.loads(text, parse_int=_int_or_marker(found), parse_float=_float_or_marker(found))
    except json.JSONDecodeError as exc:
        raise error(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", label) from None
    except RecursionError:
        raise error("JSON is nested too deeply", label) from None
    if found or _SURROGATE_ESCAPE.search(text):
        problem = _unrepresentable(data)
        if problem is not None:
            raise error(problem, label)
    return data


def read_json(path: Path, *, max_bytes: int = MAX_BUNDLE_BYTES, error: ErrorFactory = _bundle_error) -> Any:
    """The one bounded JSON reader: ``read_text`` then ``parse_json``."""
    return parse_json(read_text(path, max_bytes=max_bytes, error=error), str(path), error=error)



_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _OutOfRange:
    """A JSON number Python cannot hold exactly (kept as its text until the path is known)."""

    def __init__(self, text: str) -> None:
        self.text = text


def _int_or_marker(found: list[str]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            return int(text)
        except ValueError:  # more digits than int() converts
            found.append(text)
            return _OutOfRange(text)
    return parse


def _float_or_marker(found: list[str]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = float(text)
        if math.isinf(value):
            found.append(text)
            return _OutOfRange(text)
        return value
    return parse


def _unrepresentable(data: Any) -> str | None:
    """The first out-of-range number or lone surrogate, with its JSON path (walked without recursion)."""
    stack: list[tuple[Any, str]] = [(data, "$")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, _OutOfRange):
            shown = value.text if len(value.text) <= 24 else f"{value.text[:20]}… ({len(value.text)} digits)"
            return f"at {path}: the number {shown} is out of range"
        if isinstance(value, str) and _has_lone_surrogate(value):
            return f"at {path}: the text holds a lone surrogate (an unpaired \\ud800–\\udfff escape), not valid Unicode"
        if isinstance(value, dict):
            for key, item in reversed(value.items()):
                if _has_lone_surrogate(key):
                    return f"at {path}: a key holds a lone surrogate, not valid Unicode"
                stack.append((item, f"{path}.{key}"))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{index}]") for index, item in reversed(list(enumerate(value))))
    return None


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _load_path(path: Path) -> MemoryBundle:
    return _from_data(read_json(path), str(path))


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

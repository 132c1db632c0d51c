"""Spans from an OTLP JSON file: one ``{"resourceSpans": [...]}`` document (OTLP/HTTP JSON), or JSON lines of them
(a collector's file exporter). Decoded by OpenTelemetry's own OTLP/JSON codec (``opentelemetry-proto-json``: ids in
hex, 64-bit integers as strings, as the OTLP/JSON encoding writes them), read through the one bounded JSON reader."""

from __future__ import annotations

import base64
import math
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answerlens.errors import TraceError
from answerlens.json_reader import parse_json, read_text
from answerlens.traces.spans import KIND_ATTRIBUTE, UNKNOWN_KIND, TraceSpan

if TYPE_CHECKING:
    from opentelemetry.proto_json.common.v1.common import AnyValue, KeyValue
    from opentelemetry.proto_json.trace.v1.trace import Span

PROJECT_ATTRIBUTE = "openinference.project.name"
EXTRA = "pip install 'answerlens[traces]'"


def _error(message: str, label: str | None) -> Exception:
    return TraceError(f"{label}: {message}" if label else message)


def _not_otlp(message: str, label: str | None) -> Exception:
    """What JSON that does not parse is: not OTLP JSON, with where it stopped parsing."""
    return _error(f"not OTLP JSON: {message}", label)


def read_otlp(path: Path) -> list[TraceSpan]:
    """Every span the file holds, in file order; anything that is not OTLP JSON is a ``TraceError`` saying what the
    file is instead."""
    label = str(path)
    text = read_text(path, error=_error)
    if not text.strip():
        raise TraceError(f"{label}: the file is empty: expected OTLP JSON (an object with \"resourceSpans\")")
    return spans_of_text(text, label)


def spans_of_text(text: str, label: str) -> list[TraceSpan]:
    """The spans of OTLP JSON text (an uploaded file): one document, or one per line."""
    try:
        documents = [(label, parse_json(text, label, error=_not_otlp))]
    except TraceError:
        lines = [(f"{label}, line {number}", line) for number, line in enumerate(text.splitlines(), 1)
                 if line.strip()]
        if len(lines) < 2:
            raise
        documents = [(where, parse_json(line, where, error=_not_otlp)) for where, line in lines]
    spans: list[TraceSpan] = []
    for where, document in documents:
        spans += _decoded(document, where)
    return spans


def _decoded(document: Any, where: str) -> list[TraceSpan]:
    if not isinstance(document, dict) or "resourceSpans" not in document:
        raise TraceError(f"{where}: not OTLP JSON: {_what_instead(document)}")
    try:
        from opentelemetry.proto_json.trace.v1.trace import TracesData
    except ImportError:
        raise TraceError(f"reading OTLP JSON needs OpenTelemetry's OTLP/JSON codec: {EXTRA}") from None
    try:
        traces = TracesData.from_dict(document)
    except (TypeError, ValueError) as exc:
        raise TraceError(f"{where}: not OTLP JSON: {exc} (trace and span ids are hex, enums are numbers, as the "
                         "OTLP/JSON encoding writes them)") from None
    spans = []
    for resource in traces.resource_spans:
        resource_attributes = _attributes(resource.resource.attributes) if resource.resource is not None else {}
        project = resource_attributes.get(PROJECT_ATTRIBUTE)
        for scope in resource.scope_spans:
            spans += [_span(span, project if isinstance(project, str) else None, where) for span in scope.spans]
    return spans


def _what_instead(document: Any) -> str:
    expected = "expected an object with \"resourceSpans\" (OTLP/HTTP JSON, or a collector's file exporter)"
    if isinstance(document, dict) and isinstance(document.get("data"), list) and "next_cursor" in document:
        return (f"{expected}; this looks like Phoenix's span listing: import from Phoenix itself "
                "(--phoenix URL --project NAME)")
    if isinstance(document, dict):
        keys = ", ".join(sorted(map(str, document))[:6]) or "none"
        return f"{expected}; found an object with keys: {keys}"
    return f"{expected}; found {type(document).__name__ if document is not None else 'null'}"


def _span(span: Span, project: str | None, where: str) -> TraceSpan:
    # Fields left out of the JSON decode as None (proto3 defaults): an id missing is empty.
    trace_id, span_id, parent = span.trace_id or b"", span.span_id or b"", span.parent_span_id or b""
    if len(trace_id) != 16 or len(span_id) != 8:
        raise TraceError(f"{where}: not OTLP JSON: span {span.name!r} has no valid traceId/spanId (16 and 8 bytes "
                         "in hex)")
    attributes = _attributes(span.attributes or [])
    kind = attributes.get(KIND_ATTRIBUTE)
    started = datetime.fromtimestamp(span.start_time_unix_nano / 1e9, tz=timezone.utc) \
        if span.start_time_unix_nano else None
    return TraceSpan(trace_id=trace_id.hex(), span_id=span_id.hex(), name=span.name or "",
                     kind=kind.upper() if isinstance(kind, str) else UNKNOWN_KIND, attributes=attributes,
                     parent_id=parent.hex() or None, start_time=started, project=project,
                     dropped_attributes=span.dropped_attributes_count or 0)


def _attributes(pairs: list[KeyValue]) -> dict[str, Any]:
    return {pair.key or "": _value(pair.value) for pair in pairs}


def _value(value: AnyValue | None) -> Any:
    if value is None:
        return None
    if value.array_value is not None:
        return [_value(item) for item in value.array_value.values]
    if value.kvlist_value is not None:
        return _attributes(value.kvlist_value.values)
    if value.bytes_value is not None:
        return base64.b64encode(value.bytes_value).decode("ascii")
    for item in (value.string_value, value.bool_value, value.int_value):
        if item is not None:
            return item
    if value.double_value is not None:
        return value.double_value if math.isfinite(value.double_value) else str(value.double_value)
    return None

"""One span as answerlens reads it, whatever its source (an OTLP JSON file or Phoenix's REST API): ids in hex,
its OpenInference kind, its attributes flattened (``retrieval.documents.0.document.content``), and their hash."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from answerlens.audit import canonical_json_ascii, sha256_text

KIND_ATTRIBUTE = "openinference.span.kind"
UNKNOWN_KIND = "UNKNOWN"


@dataclass(frozen=True)
class TraceSpan:
    """A span: ids as lowercase hex, the OpenInference kind, the attributes exactly as the source gave them."""

    trace_id: str
    span_id: str
    name: str
    kind: str
    attributes: Mapping[str, Any] = field(default_factory=dict)
    parent_id: str | None = None
    start_time: datetime | None = None
    project: str | None = None
    """The Phoenix project, or the file's ``openinference.project.name`` resource attribute."""
    dropped_attributes: int = 0
    """How many attributes the tracer dropped (OTLP's ``droppedAttributesCount``; Phoenix does not say)."""
    node_id: str | None = None
    """Phoenix's own id of the span (for links into its UI); None from a file."""

    @property
    def sha256(self) -> str:
        """sha256 of the canonical JSON of the attributes as read (the ``import`` block's ``span_sha256``)."""
        return sha256_text(canonical_json_ascii(dict(self.attributes)))

    def text(self, key: str) -> str | None:
        """A string attribute (None when absent, empty or not a string)."""
        value = self.attributes.get(key)
        return value if isinstance(value, str) and value.strip() else None


def kinds(spans: Iterable[TraceSpan]) -> str:
    """The span kinds present, counted, for a message: ``CHAIN ×1, LLM ×2``."""
    counted = Counter(span.kind for span in spans)
    return ", ".join(f"{kind} ×{count}" for kind, count in sorted(counted.items())) or "no spans"


def in_trace(spans: Iterable[TraceSpan], trace_id: str) -> list[TraceSpan]:
    return [span for span in spans if span.trace_id == trace_id]


def root_of(trace: list[TraceSpan]) -> TraceSpan | None:
    """The trace's root: the span with no parent, else (a partial trace) the earliest whose parent is absent."""
    ids = {span.span_id for span in trace}
    roots = [span for span in trace if span.parent_id is None] or [s for s in trace if s.parent_id not in ids]
    return min(roots, key=_started, default=None)


def _started(span: TraceSpan) -> tuple[bool, datetime | str]:
    return (span.start_time is None, span.start_time or span.span_id)


def normalized_id(text: str, length: int, what: str) -> str:
    """A trace or span id as typed by a user: lowercase hex of the right length, or a ``ValueError`` saying so."""
    value = text.strip().lower().removeprefix("0x")
    if len(value) != length or any(c not in "0123456789abcdef" for c in value):
        raise ValueError(f"{what} {text!r} is not {length} hex digits (OTLP JSON and Phoenix write ids in hex)")
    return value

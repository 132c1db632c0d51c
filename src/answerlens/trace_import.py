"""Where an imported sample's evidence came from: the ``import`` block a sample file carries, and every assessment
of it (outside the audit hashes), so a report and ``verify`` can say which span the verdict is about and the
write-back knows which span to annotate. Pure; pydantic only."""

from __future__ import annotations

from enum import Enum
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

IMPORT_KEY = "import"
"""The key of the block in a sample file and in an assessment's JSON."""
HEX_TRACE_ID = r"^[0-9a-f]{32}$"
HEX_SPAN_ID = r"^[0-9a-f]{16}$"


class TraceSource(str, Enum):
    OTLP_FILE = "otlp-file"
    PHOENIX = "phoenix"


class TraceImport(BaseModel):
    """The ``import`` block (DESIGN §13): the span the bundle's records were read from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: TraceSource
    trace_id: str = Field(pattern=HEX_TRACE_ID)
    """The trace's id in lowercase hex, as OTLP JSON and Phoenix write it."""
    span_id: str = Field(pattern=HEX_SPAN_ID)
    """The retriever (or reranker) span's id in lowercase hex: the span the write-back annotates."""
    project: str | None = None
    """The Phoenix project (from Phoenix, or the file's ``openinference.project.name`` resource attribute)."""
    positions: tuple[int, ...] = Field(min_length=1)
    """Each record's document position in the span (``retrieval.documents.{i}``), in the bundle's record order."""
    record_ids: tuple[UUID, ...] = Field(min_length=1)
    """Each record's id, aligned with ``positions``: a cited memory maps back to its document with the assessment
    alone (answerlens' addition to the DESIGN shape: assessments cite records by UUID, and a document id that is no
    UUID stands for the one ``answerlens.loading.record_uuid`` derives from it)."""
    span_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    """sha256 of the canonical JSON of the span's attributes as read."""

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        data.setdefault("project", self.project)  # always said, null when none (DESIGN §13)
        return data

    @model_validator(mode="after")
    def _aligned(self) -> TraceImport:
        if len(self.positions) != len(self.record_ids):
            raise ValueError(f"positions has {len(self.positions)} entries but record_ids has {len(self.record_ids)}")
        if len(set(self.positions)) != len(self.positions) or min(self.positions) < 0:
            raise ValueError("positions must be distinct document positions (0 or more)")
        if len(set(self.record_ids)) != len(self.record_ids):
            raise ValueError("record_ids must be distinct")
        return self

    def position_of(self, memory_id: UUID) -> int | None:
        """The document position a cited memory was read from (None: not one of this span's documents)."""
        for position, record_id in zip(self.positions, self.record_ids, strict=True):
            if record_id == memory_id:
                return position
        return None

    def describe(self) -> str:
        """One line: where the evidence came from."""
        where = "Phoenix" if self.source == TraceSource.PHOENIX else "an OTLP JSON file"
        project = f", project {self.project!r}" if self.project else ""
        documents = "document" if len(self.positions) == 1 else "documents"
        return (f"{where}{project}: trace {self.trace_id}, span {self.span_id}, {documents} "
                f"{', '.join(map(str, self.positions))}")


def import_facts(block: TraceImport | None) -> list[tuple[str, Any]]:
    """The audit row the Inspect page and the report show for an imported sample's assessment (its span_sha256 is in
    the assessment's JSON, which the report embeds)."""
    if block is None:
        return []
    return [("evidence from", block.describe())]

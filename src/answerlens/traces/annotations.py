"""An assessment of an imported sample → the Phoenix annotations that carry its verdict back onto the span (pure):
one span annotation (label = action, score = supported requirements / requirements, explanation = the *why* text,
``identifier`` = evaluation_id, so writing it again updates it) and one document annotation per retrieved document
(``accepted`` / ``discarded`` / ``not cited``, with the requirement numbers and reason codes). The shapes are
Phoenix's ``SpanAnnotationData`` and ``SpanDocumentAnnotationData`` (arize-phoenix 20.26.1)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from answerlens.assessment import AnswerabilityAssessment
from answerlens.citations import Decision
from answerlens.explanation import why
from answerlens.trace_import import TraceImport
from answerlens.verdict import AnswerabilityStatus

NAME = "answerlens.answerability"
ANNOTATOR_KIND = "CODE"


class DocumentLabel(str, Enum):
    ACCEPTED = "accepted"
    """At least one requirement cites the document with a citation that was accepted."""
    DISCARDED = "discarded"
    """Cited, but every citation of it was discarded (e.g. by its UUID, which is no reference in the context)."""
    NOT_CITED = "not cited"


class AnnotationResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str
    score: float
    explanation: str


class Annotation(BaseModel):
    """One annotation as Phoenix's REST API takes it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    span_id: str
    name: str = NAME
    annotator_kind: str = ANNOTATOR_KIND
    result: AnnotationResult
    metadata: dict[str, Any]
    identifier: str = ""
    document_position: int | None = None

    def body(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


@dataclass(frozen=True)
class DocumentVerdict:
    """What the assessment did with one retrieved document."""

    position: int
    label: DocumentLabel
    explanation: str
    requirements: tuple[int, ...]
    """The requirements (numbered from 1) that cited it, accepted or not."""


def supported_fraction(assessment: AnswerabilityAssessment) -> float:
    """Supported requirements / requirements (the span annotation's score)."""
    items = assessment.requirements
    return sum(item.status == AnswerabilityStatus.SUPPORTED for item in items) / len(items) if items else 0.0


def span_annotation(assessment: AnswerabilityAssessment, block: TraceImport, *,
                    run_url: str | None = None) -> Annotation:
    metadata: dict[str, Any] = {"evaluation_id": assessment.evaluation_id,
                                "assessment_sha256": assessment.assessment_sha256,
                                "verdict": assessment.verdict.value, "span_sha256": block.span_sha256}
    if run_url:
        metadata["run_url"] = run_url
    result = AnnotationResult(label=assessment.recommended_action.value, score=supported_fraction(assessment),
                              explanation=why(assessment))
    return Annotation(span_id=block.span_id, result=result, metadata=metadata, identifier=assessment.evaluation_id)


def document_verdicts(assessment: AnswerabilityAssessment, block: TraceImport) -> list[DocumentVerdict]:
    """One verdict per retrieved document, in position order."""
    accepted: dict[int, list[str]] = {}
    discarded: dict[int, list[str]] = {}
    citing: dict[int, set[int]] = {}
    for number, item in enumerate(assessment.requirements, 1):
        for citation in item.citations:
            memory = citation.memory_id or _uuid(citation.normalized)
            position = block.position_of(memory) if memory is not None else None
            if position is None:
                continue
            citing.setdefault(position, set()).add(number)
            if citation.decision == Decision.ACCEPTED:
                accepted.setdefault(position, []).append(f"requirement {number} ({citation.ref})")
            else:
                reason = citation.reason.value if citation.reason is not None else "discarded"
                discarded.setdefault(position, []).append(f"requirement {number} ({reason})")
    verdicts = []
    for position in sorted(block.positions):
        said = [f"accepted by {', '.join(accepted[position])}"] if position in accepted else []
        said += [f"discarded by {', '.join(discarded[position])}"] if position in discarded else []
        label = DocumentLabel.ACCEPTED if position in accepted else DocumentLabel.DISCARDED \
            if position in discarded else DocumentLabel.NOT_CITED
        verdicts.append(DocumentVerdict(position, label, "; ".join(said) or "no requirement cites it",
                                        tuple(sorted(citing.get(position, ())))))
    return verdicts


def document_annotations(assessment: AnswerabilityAssessment, block: TraceImport) -> list[Annotation]:
    """One per document. Phoenix 20.26 takes no identifier on document annotations: one per name, span and
    position, so writing again replaces them."""
    metadata = {"evaluation_id": assessment.evaluation_id, "assessment_sha256": assessment.assessment_sha256}
    return [Annotation(span_id=block.span_id, document_position=verdict.position,
                       result=AnnotationResult(label=verdict.label.value,
                                               score=1.0 if verdict.label == DocumentLabel.ACCEPTED else 0.0,
                                               explanation=verdict.explanation),
                       metadata={**metadata, "requirements": list(verdict.requirements)})
            for verdict in document_verdicts(assessment, block)]


def _uuid(text: str) -> UUID | None:
    """A discarded token that is a record's UUID still names its document (an id is no reference in the reader
    format); any other unknown token names none."""
    try:
        return UUID(text)
    except ValueError:
        return None

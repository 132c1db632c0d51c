"""A retriever (or reranker) span and its trace → an ordinary sample (pure): the documents in position order as the
records of a simple-format bundle (each document's id is its record's id; positions, scores and metadata kept on
each record for audit), the question from the span's input (else the trace root's), the draft answer from the
trace's LLM span when asked, and the ``import`` block. A span that cannot give a fair bundle is refused with what
to change."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from answerlens.errors import TraceError
from answerlens.loading import load_bundle, record_uuid
from answerlens.samples import Sample
from answerlens.trace_import import TraceImport, TraceSource
from answerlens.traces.spans import TraceSpan, root_of

RETRIEVER, RERANKER, LLM = "RETRIEVER", "RERANKER", "LLM"
RETRIEVED = "retrieval.documents"
RERANKED = "reranker.output_documents"
_FIELD = re.compile(r"^(?P<position>\d+)\.document\.(?P<field>id|content|score|metadata)(?:\.(?P<rest>.+))?$")
COUNT_LIMIT_HELP = ("raise OTEL_ATTRIBUTE_COUNT_LIMIT (default 128) or OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT in the traced "
                    "application and trace the question again")
LENGTH_LIMIT_HELP = ("an attribute length limit: OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT (or "
                     "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT, or SpanLimits(max_span_attribute_length=…) in code); "
                     "raise or unset it in the traced application and trace the question again")


@dataclass(frozen=True)
class Document:
    """One retrieved document as the span recorded it."""

    position: int
    id: str | None = None
    content: str | None = None
    score: float | None = None
    metadata: Any = None


@dataclass(frozen=True)
class Imported:
    """The sample made from a span, and what the import noticed without refusing (e.g. a document with no id)."""

    sample: Sample
    notes: tuple[str, ...] = ()


def kind_wanted(reranker: bool) -> str:
    return RERANKER if reranker else RETRIEVER


def documents_of(span: TraceSpan) -> list[Document]:
    """The span's documents in position order: ``retrieval.documents.{i}.document.*`` (a reranker's
    ``reranker.output_documents.{i}.document.*``); metadata as a JSON string (OTLP) or flattened keys (Phoenix)."""
    prefix = (RERANKED if span.kind == RERANKER else RETRIEVED) + "."
    found: dict[int, dict[str, Any]] = {}
    for key, value in span.attributes.items():
        match = _FIELD.match(key[len(prefix):]) if key.startswith(prefix) else None
        if match is None:
            continue
        fields = found.setdefault(int(match["position"]), {})
        if match["rest"] is None:
            fields[match["field"]] = value
        elif match["field"] == "metadata":
            _nest(fields.setdefault("metadata", {}), match["rest"].split("."), value)
    return [_document(position, fields) for position, fields in sorted(found.items())]


def _nest(target: Any, path: list[str], value: Any) -> None:
    if not isinstance(target, dict):
        return
    for part in path[:-1]:
        target = target.setdefault(part, {})
        if not isinstance(target, dict):
            return
    target[path[-1]] = value


def _document(position: int, fields: dict[str, Any]) -> Document:
    metadata = fields.get("metadata")
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except ValueError:
            pass  # kept as the text it is
    score = fields.get("score")
    identifier = fields.get("id")
    content = fields.get("content")
    return Document(position, str(identifier) if identifier is not None and str(identifier).strip() else None,
                    content if isinstance(content, str) else None,
                    float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None,
                    metadata)


def sample_from(span: TraceSpan, trace: Sequence[TraceSpan], source: TraceSource, *, with_answer: bool = False,
                question: str | None = None) -> Imported:
    """The sample of one retriever or reranker span (``trace``: the spans of its trace, for the question's fallback
    and the draft answer). Raises ``TraceError`` for a span with no documents, documents without content or with
    content cut by a length limit, attributes the tracer dropped, no question, or no answer when one is asked for."""
    what = f"{span.kind} span {span.name!r} ({span.span_id})"
    documents = documents_of(span)
    _check(span, trace, documents, what)
    records, notes = [], []
    for document in documents:
        if document.id is None:
            notes.append(f"document {document.position} has no id: it is named doc{document.position}")
        records.append(_record(document))
    asked = question.strip() if question and question.strip() else _question(span, trace, what)
    answer = _answer(trace, span) if with_answer else None
    bundle = {"records": records, "packing": {"context_format": "reader", "context_citations": True}}
    loaded = load_bundle(bundle, name=f"span {span.span_id}")
    ids = [candidate.node.id for group in loaded.sections.values() for candidate in group]
    block = TraceImport(source=source, trace_id=span.trace_id, span_id=span.span_id, project=span.project,
                        positions=tuple(document.position for document in documents), record_ids=tuple(ids),
                        span_sha256=span.sha256)
    where = f"Phoenix project {span.project!r}" if source == TraceSource.PHOENIX else "an OTLP JSON file"
    sample = Sample(title=f"{span.name} · trace {span.trace_id[:8]}", question=asked, answer=answer, bundle=bundle,
                    description=f"The {len(documents)} documents of {what} of trace {span.trace_id}, imported from "
                    f"{where}.", trace_import=block)
    return Imported(sample, tuple(notes))


def _check(span: TraceSpan, trace: Sequence[TraceSpan], documents: list[Document], what: str) -> None:
    field = RERANKED if span.kind == RERANKER else RETRIEVED
    if span.dropped_attributes:
        raise TraceError(f"the tracer dropped {span.dropped_attributes} attribute(s) of {what}, so documents may be "
                         f"missing: {COUNT_LIMIT_HELP}")
    if not documents:
        raise TraceError(f"{what} has no documents ({field}.N.document.*): nothing to assess; pick a span that "
                         "retrieved something")
    empty = [document.position for document in documents if not (document.content or "").strip()]
    if empty:
        raise TraceError(f"{_positions(empty)} of {what} {'has' if len(empty) == 1 else 'have'} no content "
                         f"({field}.N.document.content): record document content in the retriever's "
                         "instrumentation (OpenInference records it unless told not to) and trace again")
    named: dict[UUID, str] = {}
    for identifier in map(record_id, documents):
        if record_uuid(identifier) in named:
            raise TraceError(f"several documents of {what} have the id {named[record_uuid(identifier)]}: a "
                             "document's id is its record's id, and record ids must be unique; deduplicate the "
                             "retriever's results")
        named[record_uuid(identifier)] = identifier
    cut = _cut_at(span, trace, documents)
    if cut is not None:
        length, positions, why = cut
        raise TraceError(f"{_positions(positions)} of {what} end at exactly {length} characters, {why}: their "
                         f"content looks cut by {LENGTH_LIMIT_HELP}")


LIMIT_VARIABLES = ("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT")
"""Where the OpenTelemetry SDK reads its attribute value length limit (the first set wins)."""


def _limit_here() -> int | None:
    for name in LIMIT_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            return int(value) if value.isdigit() else None
    return None


def _usual_limit(length: int) -> bool:
    """A length a limit is usually set to: a power of two from 128, or a multiple of 1000."""
    return length >= 128 and (length & (length - 1) == 0 or length % 1000 == 0)


def _cut_at(span: TraceSpan, trace: Sequence[TraceSpan],
            documents: list[Document]) -> tuple[int, list[int], str] | None:
    """Where the documents look cut, and why: documents exactly as long as the longest text of the whole trace
    (a length limit holds for every span the application traces), at the limit set in this environment, or at a
    usual limit value that at least two texts of the trace reach. Complete documents of one length (fixed-size
    chunks, a document as long as the question) are none of these."""
    texts = [value for item in [span, *trace] for value in item.attributes.values() if isinstance(value, str)]
    longest = max(map(len, texts), default=0)
    cut = [document.position for document in documents if document.content and len(document.content) == longest]
    if not cut:
        return None
    if _limit_here() == longest:
        return longest, cut, "the attribute value length limit set here and as long as the trace's longest text"
    reaching = len({text for text in texts if len(text) == longest})
    if _usual_limit(longest) and reaching >= 2:
        return longest, cut, f"a usual length limit reached by {reaching} texts of the trace and none longer"
    return None


def _positions(positions: list[int]) -> str:
    return f"document {positions[0]}" if len(positions) == 1 else f"documents {', '.join(map(str, positions))}"


def record_id(document: Document) -> str:
    """The record id of a document: its own id, else ``doc{position}``."""
    return document.id if document.id is not None else f"doc{document.position}"


def _record(document: Document) -> dict[str, Any]:
    kept = {"position": document.position, "score": document.score, "metadata": document.metadata}
    return {"id": record_id(document), "text": document.content,
            "metadata": {"document": {k: v for k, v in kept.items() if v is not None}}}


def _question(span: TraceSpan, trace: Sequence[TraceSpan], what: str) -> str:
    own = span.text("reranker.query") if span.kind == RERANKER else None
    found = own or _input_text(span)
    root = root_of(list(trace))
    if found is None and root is not None and root.span_id != span.span_id:
        found = _input_text(root)
    if found is None:
        raise TraceError(f"no question: neither {what} nor its trace's root span has a text input.value; give the "
                         "question (CLI: --question)")
    return found


def _input_text(span: TraceSpan) -> str | None:
    """``input.value`` as the question: text, or JSON that is a string or an object with one text field (or a
    ``query``/``question``/``input`` field), as chains record their input."""
    value = span.text("input.value")
    if value is None or span.attributes.get("input.mime_type") != "application/json":
        return value
    try:
        data = json.loads(value)
    except ValueError:
        return value
    if isinstance(data, str):
        return data.strip() or None
    if isinstance(data, dict):
        texts = [v for v in data.values() if isinstance(v, str) and v.strip()]
        named = [data[k] for k in ("question", "query", "input") if isinstance(data.get(k), str)]
        chosen = named[0] if named else texts[0] if len(texts) == 1 else None
        return chosen.strip() if chosen else None
    return None


def _answer(trace: Sequence[TraceSpan], span: TraceSpan) -> str:
    """The output of the trace's LLM span (the last to start, when there are several)."""
    llms = [item for item in trace if item.kind == LLM]
    for llm in sorted(llms, key=lambda item: (item.start_time is not None, item.start_time), reverse=True):
        text = llm.text("output.value") or llm.text("llm.output_messages.0.message.content")
        if text is not None:
            return text.strip()
    raise TraceError(f"trace {span.trace_id} has no LLM span with an output.value to check as the draft answer; "
                     "import without --with-answer")

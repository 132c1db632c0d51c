"""A trace source → one sample: the span named by id, else the only retriever span of the trace (or of the file, or
the project's latest ones), else a ``TraceError`` listing the spans to choose from."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from answerlens.errors import TraceError
from answerlens.trace_import import TraceSource
from answerlens.traces.otlp import read_otlp, spans_of_text
from answerlens.traces.phoenix import Phoenix
from answerlens.traces.retrieval import COUNT_LIMIT_HELP, Imported, documents_of, kind_wanted, sample_from
from answerlens.traces.spans import TraceSpan, in_trace, kinds, normalized_id

RECENT = 20
"""How many of a project's latest retriever spans are offered when none is named."""


@dataclass(frozen=True)
class SpanChoice:
    """A retriever span offered for import: what a list or table shows of it."""

    trace_id: str
    span_id: str
    name: str
    started: datetime | None
    question: str | None
    documents: int

    @classmethod
    def of(cls, span: TraceSpan) -> SpanChoice:
        question = span.text("reranker.query") or span.text("input.value")
        return cls(span.trace_id, span.span_id, span.name, span.start_time, question, len(documents_of(span)))


@dataclass(frozen=True)
class Wanted:
    """Which span to import and how: ids as typed (hex), a reranker's output documents, the draft answer."""

    trace_id: str | None = None
    span_id: str | None = None
    reranker: bool = False
    with_answer: bool = False
    question: str | None = None

    def normalized(self) -> Wanted:
        return Wanted(normalized_id(self.trace_id, 32, "trace id") if self.trace_id else None,
                      normalized_id(self.span_id, 16, "span id") if self.span_id else None,
                      self.reranker, self.with_answer, self.question)


def import_file(path: Path, wanted: Wanted = Wanted()) -> Imported:
    """The sample of one span of an OTLP JSON file."""
    return _from_spans(read_otlp(path), wanted.normalized(), str(path), TraceSource.OTLP_FILE)


def import_text(text: str, name: str, wanted: Wanted = Wanted()) -> Imported:
    """The sample of one span of OTLP JSON text (an uploaded file)."""
    return _from_spans(spans_of_text(text, name), wanted.normalized(), name, TraceSource.OTLP_FILE)


def _from_spans(spans: list[TraceSpan], wanted: Wanted, where: str, source: TraceSource) -> Imported:
    span = choose(spans, wanted, where)
    return sample_from(span, in_trace(spans, span.trace_id), source, with_answer=wanted.with_answer,
                       question=wanted.question)


def choose(spans: Sequence[TraceSpan], wanted: Wanted, where: str) -> TraceSpan:
    """The span named, or the only retriever (reranker) span among ``spans`` (of the trace named)."""
    kind = kind_wanted(wanted.reranker)
    if wanted.span_id is not None:
        named = [span for span in spans if span.span_id == wanted.span_id]
        if not named:
            raise TraceError(f"{where} has no span {wanted.span_id}")
        if named[0].kind != kind:
            raise TraceError(f"span {wanted.span_id} ({named[0].name!r}) of {where} is a {named[0].kind} span, not a "
                             f"{kind}: name a {kind} span" + ("" if wanted.reranker else
                                                             " (or pass --reranker for a RERANKER span's output)")
                             + _dropped(named))
        return named[0]
    scope = list(spans)
    if wanted.trace_id is not None:
        scope = in_trace(spans, wanted.trace_id)
        if not scope:
            raise TraceError(f"{where} has no trace {wanted.trace_id}")
        where = f"trace {wanted.trace_id}"
    found = [span for span in scope if span.kind == kind]
    if not found:
        raise TraceError(f"{where} has no {kind} span (its spans: {kinds(scope)}); import a trace with a retrieval "
                         "step" + ("" if wanted.reranker else ", or pass --reranker for a RERANKER span")
                         + _dropped(scope))
    if len(found) > 1:
        raise TraceError(f"{where} has {len(found)} {kind} spans: choose one by its span id",
                         choices=[SpanChoice.of(span) for span in found])
    return found[0]


def _dropped(spans: Sequence[TraceSpan]) -> str:
    """What to say when the tracer dropped attributes: the SDK drops the oldest first, and the span kind is
    usually set first, so a retriever whose attributes overflowed no longer says it is one."""
    lossy = [span for span in spans if span.dropped_attributes]
    if not lossy:
        return ""
    return (f". The tracer dropped attributes of {len(lossy)} span(s) (the span kind and documents among them, "
            f"perhaps): {COUNT_LIMIT_HELP}")


def import_phoenix(phoenix: Phoenix, project: str, wanted: Wanted = Wanted(), *, recent: int = RECENT) -> Imported:
    """The sample of one span of a Phoenix project: the span named, the only retriever span of the trace named, or
    of the project's ``recent`` latest retriever spans the only one (else they are offered to choose from)."""
    wanted = wanted.normalized()
    kind = kind_wanted(wanted.reranker)
    where = f"Phoenix project {project!r}"
    if wanted.span_id is not None:
        named = phoenix.spans(project, span_ids=[wanted.span_id])
        trace = phoenix.spans(project, trace_ids=[named[0].trace_id]) if named else []
        span = choose(trace or named, wanted, where)
    elif wanted.trace_id is not None:
        trace = phoenix.spans(project, trace_ids=[wanted.trace_id])
        span = choose(trace, wanted, where)
    else:
        latest = phoenix.spans(project, kinds=[kind], limit=recent)
        if not latest:
            others = phoenix.spans(project, limit=100)
            raise TraceError(f"{where} has no {kind} span (its latest spans: {kinds(others)}); trace a pipeline "
                             "with a retrieval step into it, or name another project")
        span = choose(latest, Wanted(reranker=wanted.reranker), f"{where} (its latest {len(latest)} {kind} spans)")
        trace = phoenix.spans(project, trace_ids=[span.trace_id])
    return sample_from(span, trace, TraceSource.PHOENIX, with_answer=wanted.with_answer, question=wanted.question)


def recent_choices(phoenix: Phoenix, project: str, *, reranker: bool = False, recent: int = RECENT) -> list[SpanChoice]:
    """The project's latest retriever (reranker) spans, newest first, for a table to open one from."""
    return [SpanChoice.of(span) for span in phoenix.spans(project, kinds=[kind_wanted(reranker)], limit=recent)]


def file_choices(spans: Sequence[TraceSpan], *, reranker: bool = False) -> list[SpanChoice]:
    kind = kind_wanted(reranker)
    return [SpanChoice.of(span) for span in spans if span.kind == kind]

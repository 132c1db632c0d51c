"""A small RAG pipeline instrumented as OpenInference instruments one: a CHAIN root, a RETRIEVER child with its
documents, an LLM child with its input messages and output; traced through the OpenTelemetry SDK to a real Phoenix
(OTLP/HTTP) and/or to an OTLP JSON file (what a collector's file exporter writes: one ``resourceSpans`` document
per line)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openinference.semconv.resource import ResourceAttributes
from openinference.semconv.trace import (
    DocumentAttributes,
    MessageAttributes,
    OpenInferenceSpanKindValues,
    RerankerAttributes,
    SpanAttributes,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

KIND = SpanAttributes.OPENINFERENCE_SPAN_KIND


@dataclass(frozen=True)
class Document:
    content: str | None
    id: str | None = None
    score: float | None = None
    metadata: dict[str, Any] | None = None


@dataclass
class Traced:
    """What one pipeline run emitted: its ids (hex, as OTLP JSON and Phoenix write them) and every span."""

    trace_id: str
    retriever_span_id: str | None
    llm_span_id: str | None
    root_span_id: str
    spans: list[ReadableSpan] = field(default_factory=list)


DOCUMENTS = (
    Document("The dashboard API stores its data in Postgres 16.", id="kb-postgres", score=0.91,
             metadata={"source": "runbook.md", "section": "storage"}),
    Document("Redis 7 caches the dashboard's sessions.", id="kb-redis", score=0.77,
             metadata={"source": "runbook.md"}),
    Document("The billing team moved to the third floor in March.", id="kb-floor", score=0.31),
)
QUESTION = "Which database does the dashboard API use, and who owns billing?"
ANSWER = "The dashboard API uses Postgres 16; billing is owned by the platform team."


def provider(project: str, *exporters: SpanExporter, limits: SpanLimits | None = None) -> TracerProvider:
    """A tracer provider of the pipeline's own (never the process-wide one), filing spans under ``project``."""
    tracer_provider = TracerProvider(resource=Resource({ResourceAttributes.PROJECT_NAME: project,
                                                        "service.name": "rag-pipeline"}),
                                     span_limits=limits)
    for exporter in exporters:
        tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    return tracer_provider


def run_pipeline(tracer_provider: TracerProvider, *, question: str = QUESTION,
                 documents: Sequence[Document] = DOCUMENTS, answer: str | None = ANSWER, retrieve: bool = True,
                 retriever_question: bool = True, reranked: Sequence[int] | None = None) -> Traced:
    """One question through retrieve → (rerank) → generate, as spans; returns their ids."""
    memory = InMemorySpanExporter()
    tracer_provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = tracer_provider.get_tracer("rag-pipeline")
    retriever_id = llm_id = None
    with tracer.start_as_current_span("rag", attributes={KIND: OpenInferenceSpanKindValues.CHAIN.value,
                                                         SpanAttributes.INPUT_VALUE: question}) as root:
        if retrieve:
            with tracer.start_as_current_span("retrieve", attributes=_retriever(question if retriever_question
                                                                                else None, documents)) as span:
                retriever_id = format(span.get_span_context().span_id, "016x")
        if reranked is not None:
            with tracer.start_as_current_span("rerank", attributes=_reranker(question, documents, reranked)):
                pass
        if answer is not None:
            with tracer.start_as_current_span("generate", attributes=_llm(question, documents, answer)) as span:
                llm_id = format(span.get_span_context().span_id, "016x")
        root.set_attribute(SpanAttributes.OUTPUT_VALUE, answer or "")
        context = root.get_span_context()
    tracer_provider.force_flush()
    return Traced(format(context.trace_id, "032x"), retriever_id, llm_id, format(context.span_id, "016x"),
                  list(memory.get_finished_spans()))


def _documents(prefix: str, documents: Sequence[Document]) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    for index, document in enumerate(documents):
        key = f"{prefix}.{index}."
        if document.id is not None:
            attributes[key + DocumentAttributes.DOCUMENT_ID] = document.id
        if document.content is not None:
            attributes[key + DocumentAttributes.DOCUMENT_CONTENT] = document.content
        if document.score is not None:
            attributes[key + DocumentAttributes.DOCUMENT_SCORE] = document.score
        if document.metadata is not None:
            attributes[key + DocumentAttributes.DOCUMENT_METADATA] = json.dumps(document.metadata)
    return attributes


def _retriever(question: str | None, documents: Sequence[Document]) -> dict[str, Any]:
    attributes = {KIND: OpenInferenceSpanKindValues.RETRIEVER.value,
                  **_documents(SpanAttributes.RETRIEVAL_DOCUMENTS, documents)}
    if question is not None:
        attributes[SpanAttributes.INPUT_VALUE] = question
    return attributes


def _reranker(question: str, documents: Sequence[Document], order: Sequence[int]) -> dict[str, Any]:
    return {KIND: OpenInferenceSpanKindValues.RERANKER.value, RerankerAttributes.RERANKER_QUERY: question,
            **_documents(RerankerAttributes.RERANKER_INPUT_DOCUMENTS, documents),
            **_documents(RerankerAttributes.RERANKER_OUTPUT_DOCUMENTS, [documents[i] for i in order])}


def _llm(question: str, documents: Sequence[Document], answer: str) -> dict[str, Any]:
    context = "\n".join(document.content or "" for document in documents)
    messages = SpanAttributes.LLM_INPUT_MESSAGES
    return {KIND: OpenInferenceSpanKindValues.LLM.value, SpanAttributes.LLM_MODEL_NAME: "rag-model",
            f"{messages}.0.{MessageAttributes.MESSAGE_ROLE}": "system",
            f"{messages}.0.{MessageAttributes.MESSAGE_CONTENT}": f"Answer from these passages:\n{context}",
            f"{messages}.1.{MessageAttributes.MESSAGE_ROLE}": "user",
            f"{messages}.1.{MessageAttributes.MESSAGE_CONTENT}": question,
            f"{SpanAttributes.LLM_OUTPUT_MESSAGES}.0.{MessageAttributes.MESSAGE_ROLE}": "assistant",
            f"{SpanAttributes.LLM_OUTPUT_MESSAGES}.0.{MessageAttributes.MESSAGE_CONTENT}": answer,
            SpanAttributes.INPUT_VALUE: question, SpanAttributes.OUTPUT_VALUE: answer}


# --- OTLP JSON, as OTLP/HTTP JSON and a collector's file exporter write it ---------------------------------------


def otlp_json(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """The spans as one OTLP/JSON ``ExportTraceServiceRequest``: the SDK's own protobuf encoding, written with
    protobuf's JSON mapping and then, as the OTLP/JSON encoding requires, trace and span ids in hex (protobuf's
    mapping writes bytes in base64)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    document = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    for resource in document.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = _hex(span[key])
    return document


def _hex(value: str) -> str:
    import base64

    return base64.b64decode(value).hex()


class OtlpJsonLines(SpanExporter):
    """Appends each exported batch to a file as one line of OTLP JSON (a collector's file exporter's format)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(otlp_json(spans)) + "\n")
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None

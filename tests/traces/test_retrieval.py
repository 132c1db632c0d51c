"""Span → sample, on spans as each source writes them: documents in position order with their metadata (a JSON string
from OTLP, flattened keys from Phoenix), UUID document ids kept as record ids, the question from the span, the
trace's root (also JSON input) or the caller, the draft from the trace's last LLM span."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from uuid import UUID

import pytest

from answerlens.errors import TraceError
from answerlens.loading import load_bundle
from answerlens.trace_import import TraceSource
from answerlens.traces.retrieval import Document, documents_of, sample_from
from answerlens.traces.spans import TraceSpan, kinds, normalized_id, root_of

TRACE = "ab" * 16
DOC_UUID = "5F2B7D9E-1C3A-4B6D-8E0F-123456789ABC"


def span(span_id: str, kind: str, attributes: dict, *, parent: str | None = "r" * 16, name: str = "s",
         second: int = 0) -> TraceSpan:
    return TraceSpan(TRACE, span_id, name, kind, attributes, parent_id=parent, project="rag",
                     start_time=datetime(2026, 1, 1, 0, 0, second, tzinfo=timezone.utc))


def retriever(**extra: object) -> TraceSpan:
    return span("1" * 16, "RETRIEVER", {
        "retrieval.documents.1.document.content": "Redis 7 caches sessions.",
        "retrieval.documents.1.document.id": DOC_UUID,
        "retrieval.documents.0.document.content": "The API uses Postgres 16.",
        "retrieval.documents.0.document.id": "kb-1", "retrieval.documents.0.document.score": 0.9,
        "retrieval.documents.0.document.metadata": json.dumps({"source": "a.md"}), **extra}, name="retrieve")


def test_documents_are_read_in_position_order_with_their_metadata_from_either_source() -> None:
    from_file = documents_of(retriever())
    assert from_file == [Document(0, "kb-1", "The API uses Postgres 16.", 0.9, {"source": "a.md"}),
                         Document(1, DOC_UUID, "Redis 7 caches sessions.")]
    from_phoenix = span("2" * 16, "RETRIEVER", {
        "retrieval.documents.0.document.content": "x", "retrieval.documents.0.document.metadata.source": "a.md",
        "retrieval.documents.0.document.metadata.page.number": 3})
    assert documents_of(from_phoenix)[0].metadata == {"source": "a.md", "page": {"number": 3}}
    reranked = span("3" * 16, "RERANKER", {"reranker.input_documents.0.document.content": "in",
                                            "reranker.output_documents.0.document.content": "out"})
    assert [d.content for d in documents_of(reranked)] == ["out"]


def test_a_sample_keeps_document_ids_and_maps_records_back_to_positions() -> None:
    root = span("r" * 16, "CHAIN", {"input.value": "Which database?"}, parent=None)
    imported = sample_from(retriever(), [root, retriever()], TraceSource.OTLP_FILE)
    sample = imported.sample
    assert sample.question == "Which database?"  # the retriever has no input: the root's
    records = sample.bundle["records"]  # type: ignore[call-overload]
    assert records[1]["id"] == DOC_UUID.lower() and "id" not in records[0]
    assert records[1]["metadata"]["document"] == {"id": DOC_UUID, "position": 1}
    block = sample.trace_import
    assert block is not None and block.positions == (0, 1)
    bundle = load_bundle(sample.bundle)
    ids = [candidate.node.id for group in bundle.sections.values() for candidate in group]
    assert list(block.record_ids) == ids and ids[1] == UUID(DOC_UUID)
    assert block.span_sha256 == retriever().sha256 and block.project == "rag"
    assert "[m" in bundle.exact_context and imported.notes == ()


@pytest.mark.parametrize("value, mime, expected", [
    pytest.param("Which database?", None, "Which database?", id="text"),
    pytest.param(json.dumps({"question": "Which database?", "k": "5"}), "application/json", "Which database?",
                 id="json_question_field"),
    pytest.param(json.dumps({"messages": "Which cache?"}), "application/json", "Which cache?", id="json_one_text"),
    pytest.param(json.dumps("Which owner?"), "application/json", "Which owner?", id="json_string"),
])
def test_the_question_is_read_from_the_root_input_as_chains_record_it(value: str, mime: str | None,
                                                                      expected: str) -> None:
    root = span("r" * 16, "CHAIN", {"input.value": value, **({"input.mime_type": mime} if mime else {})}, parent=None)
    assert sample_from(retriever(), [root], TraceSource.PHOENIX).sample.question == expected


def test_without_any_question_the_caller_gives_one() -> None:
    root = span("r" * 16, "CHAIN", {"input.value": json.dumps({"a": "x", "b": "y"}),
                                    "input.mime_type": "application/json"}, parent=None)
    with pytest.raises(TraceError, match="nor its trace's root span has a text input.value; give the question"):
        sample_from(retriever(), [root], TraceSource.PHOENIX)
    assert sample_from(retriever(), [root], TraceSource.PHOENIX, question="Mine?").sample.question == "Mine?"


def test_the_draft_is_the_last_llm_output_and_its_absence_is_said() -> None:
    own = retriever(**{"input.value": "Which database?"})
    early = span("4" * 16, "LLM", {"output.value": "draft one"}, second=1)
    late = span("5" * 16, "LLM", {"llm.output_messages.0.message.content": "draft two"}, second=2)
    assert sample_from(own, [own, late, early], TraceSource.PHOENIX, with_answer=True).sample.answer == "draft two"
    with pytest.raises(TraceError, match="has no LLM span with an output.value .* import without --with-answer"):
        sample_from(own, [own], TraceSource.PHOENIX, with_answer=True)


def test_two_documents_with_one_uuid_are_refused() -> None:
    twice = retriever(**{"retrieval.documents.0.document.id": DOC_UUID, "input.value": "q"})
    with pytest.raises(TraceError, match=f"several documents of RETRIEVER span 'retrieve' .* have the id "
                       f"{DOC_UUID.lower()}: .* record ids must be unique"):
        sample_from(twice, [twice], TraceSource.PHOENIX)


def test_span_helpers() -> None:
    root, child = span("r" * 16, "CHAIN", {}, parent=None), span("c" * 16, "LLM", {})
    assert root_of([child, root]) == root
    orphan = span("o" * 16, "LLM", {}, parent="gone")
    assert root_of([orphan]) == orphan  # a partial trace: the earliest span whose parent is absent
    assert kinds([root, child, child]) == "CHAIN ×1, LLM ×2" and kinds([]) == "no spans"
    assert normalized_id(" 0xABCDEF0123456789 ", 16, "span id") == "abcdef0123456789"
    with pytest.raises(ValueError, match="trace id 'abc' is not 32 hex digits"):
        normalized_id("abc", 32, "trace id")

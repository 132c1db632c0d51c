"""Span → sample, on spans as each source writes them: documents in position order with their metadata (a JSON string
from OTLP, flattened keys from Phoenix), UUID document ids kept as record ids, the question from the span, the
trace's root (also JSON input) or the caller, the draft from the trace's last LLM span."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from uuid import UUID

import pytest

from answerlens.errors import TraceError
from answerlens.loading import load_bundle, record_uuid
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
    assert [record["id"] for record in records] == ["kb-1", DOC_UUID]  # each document's id is its record's
    assert records[1]["metadata"]["document"] == {"position": 1}
    block = sample.trace_import
    assert block is not None and block.positions == (0, 1)
    bundle = load_bundle(sample.bundle)
    ids = [candidate.node.id for group in bundle.sections.values() for candidate in group]
    assert list(block.record_ids) == ids and ids == [record_uuid("kb-1"), UUID(DOC_UUID)]
    assert block.position_of(record_uuid("kb-1")) == 0
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


@pytest.mark.parametrize("first, second", [(DOC_UUID, DOC_UUID.lower()), ("kb-1", "kb-1"), ("doc1", None)],
                         ids=["uuid", "text", "named_like_a_missing_one"])
def test_two_documents_with_one_id_are_refused(first: str, second: str | None) -> None:
    attributes = {"retrieval.documents.0.document.id": first, "input.value": "q"}
    twice = retriever(**attributes)
    if second is None:
        twice = span("1" * 16, "RETRIEVER", {k: v for k, v in twice.attributes.items() if not k.endswith("1.document.id")},
                     name="retrieve")
    else:
        twice = retriever(**{**attributes, "retrieval.documents.1.document.id": second})
    with pytest.raises(TraceError, match=f"several documents of RETRIEVER span 'retrieve' .* have the id "
                       f"{re.escape(first)}: a document's id is its record's id, and record ids must be unique"):
        sample_from(twice, [twice], TraceSource.PHOENIX)


def test_a_missing_id_is_named_by_its_position_and_said() -> None:
    attributes = {k: v for k, v in retriever().attributes.items() if k != "retrieval.documents.0.document.id"}
    own = span("1" * 16, "RETRIEVER", {**attributes, "input.value": "q", "retrieval.documents.1.document.id": " "})
    imported = sample_from(own, [own], TraceSource.PHOENIX)
    assert [record["id"] for record in imported.sample.bundle["records"]] == ["doc0", "doc1"]  # type: ignore[call-overload]
    assert imported.notes == ("document 0 has no id: it is named doc0", "document 1 has no id: it is named doc1")


def test_the_import_block_always_names_its_project() -> None:
    own = TraceSpan(TRACE, "1" * 16, "retrieve", "RETRIEVER", retriever(**{"input.value": "q"}).attributes)
    block = sample_from(own, [own], TraceSource.OTLP_FILE).sample.model_dump(mode="json", exclude_defaults=True)
    assert block["import"]["project"] is None
    assert set(block["import"]) == {"source", "trace_id", "span_id", "project", "positions", "record_ids",
                                    "span_sha256"}


def text_of(length: int, word: str = "chunk ") -> str:
    return (word * length)[:length]


@pytest.mark.parametrize("lengths, other, limit, cut", [
    pytest.param((40, 40), 32, None, False, id="fixed_size_chunks"),
    pytest.param((32, 23), 32, None, False, id="a_document_as_long_as_the_question"),
    pytest.param((40, 40, 12), 40, "40", True, id="the_limit_set_here"),
    pytest.param((1024, 1024, 300), 1024, None, True, id="a_typical_limit_reached_by_two_texts"),
    pytest.param((1024,), 200, None, False, id="one_document_at_a_typical_limit"),
    pytest.param((40, 40), 32, "60", False, id="a_limit_set_here_that_nothing_reaches"),
])
def test_content_looks_cut_only_at_a_limit(monkeypatch: pytest.MonkeyPatch, lengths: tuple[int, ...], other: int,
                                          limit: str | None, cut: bool) -> None:
    for name in ("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT"):
        monkeypatch.delenv(name, raising=False)
    if limit is not None:
        monkeypatch.setenv("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", limit)
    attributes = {"input.value": text_of(other, "what ")}
    for position, length in enumerate(lengths):
        attributes[f"retrieval.documents.{position}.document.content"] = text_of(length)
    own = span("1" * 16, "RETRIEVER", attributes, name="retrieve")
    if not cut:
        assert sample_from(own, [own], TraceSource.PHOENIX).sample.bundle
        return
    with pytest.raises(TraceError, match=f"end at exactly {lengths[0]} characters, .* looks cut by an attribute "):
        sample_from(own, [own], TraceSource.PHOENIX)


def test_texts_at_a_typical_limit_are_not_cut_when_the_trace_holds_a_longer_one() -> None:
    own = span("1" * 16, "RETRIEVER", {"input.value": "q", **{f"retrieval.documents.{i}.document.content":
                                                               text_of(1024) for i in range(2)}}, name="retrieve")
    llm = span("4" * 16, "LLM", {"input.value": text_of(2100)})
    assert sample_from(own, [own, llm], TraceSource.PHOENIX).sample.bundle


def test_span_helpers() -> None:
    root, child = span("r" * 16, "CHAIN", {}, parent=None), span("c" * 16, "LLM", {})
    assert root_of([child, root]) == root
    orphan = span("o" * 16, "LLM", {}, parent="gone")
    assert root_of([orphan]) == orphan  # a partial trace: the earliest span whose parent is absent
    assert kinds([root, child, child]) == "CHAIN ×1, LLM ×2" and kinds([]) == "no spans"
    assert normalized_id(" 0xABCDEF0123456789 ", 16, "span id") == "abcdef0123456789"
    with pytest.raises(ValueError, match="trace id 'abc' is not 32 hex digits"):
        normalized_id("abc", 32, "trace id")

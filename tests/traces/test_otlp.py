"""OTLP JSON files as OpenTelemetry's OTLP/JSON codec reads them: one document or JSON lines, every AnyValue kind as
a plain value, the resource's project, the dropped-attribute count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answerlens.errors import TraceError
from answerlens.traces.otlp import read_otlp, spans_of_text

SPAN = {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b7169203331",
        "parentSpanId": "00f067aa0ba902b7", "name": "retrieve", "kind": 1, "startTimeUnixNano": "1700000000000000000",
        "droppedAttributesCount": 2, "attributes": [
            {"key": "openinference.span.kind", "value": {"stringValue": "RETRIEVER"}},
            {"key": "n", "value": {"intValue": "9007199254740993"}},
            {"key": "x", "value": {"doubleValue": 0.5}},
            {"key": "nan", "value": {"doubleValue": "NaN"}},
            {"key": "b", "value": {"boolValue": False}},
            {"key": "list", "value": {"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": 1}]}}},
            {"key": "map", "value": {"kvlistValue": {"values": [{"key": "k", "value": {"stringValue": "v"}}]}}},
            {"key": "raw", "value": {"bytesValue": "AAE="}},
            {"key": "empty"}]}
DOCUMENT = {"resourceSpans": [{"resource": {"attributes": [
    {"key": "openinference.project.name", "value": {"stringValue": "rag"}}]},
    "scopeSpans": [{"scope": {"name": "s"}, "spans": [SPAN]}]}]}


def test_a_document_reads_into_plain_values() -> None:
    (span,) = spans_of_text(json.dumps(DOCUMENT), "spans.json")
    assert (span.trace_id, span.span_id, span.parent_id, span.name, span.kind, span.project,
            span.dropped_attributes) == (SPAN["traceId"], SPAN["spanId"], SPAN["parentSpanId"], "retrieve",
                                         "RETRIEVER", "rag", 2)
    assert span.start_time is not None and span.start_time.year == 2023
    assert dict(span.attributes) == {"openinference.span.kind": "RETRIEVER", "n": 9007199254740993, "x": 0.5,
                                     "nan": "nan", "b": False, "list": ["a", 1], "map": {"k": "v"}, "raw": "AAE=",
                                     "empty": None}


def test_json_lines_read_line_by_line(tmp_path: Path) -> None:
    other = json.loads(json.dumps(DOCUMENT))
    other["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["spanId"] = "1" * 16
    (tmp_path / "spans.jsonl").write_text(json.dumps(DOCUMENT) + "\n\n" + json.dumps(other) + "\n")
    assert [span.span_id for span in read_otlp(tmp_path / "spans.jsonl")] == [SPAN["spanId"], "1" * 16]


@pytest.mark.parametrize("document, message", [
    pytest.param([], "not OTLP JSON: expected an object with \"resourceSpans\" (OTLP/HTTP JSON, or a collector's "
                 "file exporter); found list", id="a_list"),
    pytest.param({"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "x"}]}]}]},
                 "not OTLP JSON: span 'x' has no valid traceId/spanId", id="no_ids"),
    pytest.param({"resourceSpans": [{"scopeSpans": [{"spans": [{**SPAN, "spanId": "abcd"}]}]}]},
                 "not OTLP JSON: span 'retrieve' has no valid traceId/spanId", id="short_id"),
    pytest.param({"resourceSpans": 3}, "not OTLP JSON: Field 'resource_spans' expected", id="wrong_type"),
])
def test_what_is_not_otlp_json_says_so(document: object, message: str) -> None:
    with pytest.raises(TraceError, match="^spans.json: " + message.replace("(", r"\(").replace(")", r"\)")):
        spans_of_text(json.dumps(document), "spans.json")

"""*From a trace* without streamlit: the span table and labels escape whatever the trace holds, the key note never
holds the key, and an upload that is not a trace says so."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from answerlens.errors import PhoenixError, TraceError
from answerlens.traces.annotations import DocumentLabel, DocumentVerdict
from answerlens.traces.importer import SpanChoice
from answerlens.traces.writeback import Written
from answerlens.ui.common import trace_source

HOSTILE = "<script>alert('q')</script> Which database?"


def test_the_span_table_and_labels_escape_what_the_trace_holds() -> None:
    choice = SpanChoice("ab" * 16, "cd" * 8, "<b>retrieve</b>", datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc),
                        HOSTILE, 3)
    table = trace_source.choices_html([choice])
    assert "<script>" not in table and "&lt;script&gt;" in table and "&lt;b&gt;retrieve" in table
    assert 'data-trace-spans="1"' in table and "2026-01-02 03:04:05" in table
    assert trace_source.choice_label(choice) == f"{HOSTILE} · 3 docs · span {'cd' * 8}"
    long = SpanChoice("ab" * 16, "cd" * 8, "r", None, "x" * 100, 1)
    assert trace_source.choice_label(long) == f"{'x' * 69}… · 1 doc · span {'cd' * 8}"


def test_what_was_written_is_escaped_with_its_link() -> None:
    written = Written("cd" * 8, "ab" * 16, "<p>", "answer", 1.0,
                      (DocumentVerdict(0, DocumentLabel.ACCEPTED, "x", (1,)),), 'http://x/"><script>')
    html = trace_source.written_html(written)
    assert "<script>" not in html and "&lt;p&gt;" in html and "0: accepted" in html and "data-phoenix-link" in html


def test_the_key_note_says_whether_the_key_is_set_never_what_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PHOENIX_API_KEY", "sk-PLANTED-ui-key")
    assert "PHOENIX_API_KEY environment variable (set)" in trace_source.key_note()
    assert "sk-PLANTED" not in trace_source.key_note()
    monkeypatch.delenv("PHOENIX_API_KEY")
    assert "(not set: only a Phoenix without authentication answers)" in trace_source.key_note()


def test_failures_keep_their_remedy_apart() -> None:
    html = trace_source.failure_html("Nothing was written", PhoenixError("down", kind="unreachable", remedy="start"))
    assert "down" in html and "What to do:" in html and "start" in html
    assert "no RETRIEVER" in trace_source.failure_html("Cannot open", TraceError("no RETRIEVER <span>"))


def test_an_upload_that_is_not_a_trace_says_so() -> None:
    with pytest.raises(TraceError, match="bundle.json: not OTLP JSON"):
        trace_source.read_upload(b'{"records": []}', "bundle.json")

"""*From a trace*, without streamlit: an uploaded OTLP JSON file or a Phoenix project → the retriever spans to choose
from (as a table and as choice labels) → the chosen span opened as a ``Source`` (an imported sample); and the
write-back of a verdict. Every call to Phoenix goes through ``answerlens.traces``; the key is its environment's."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from answerlens.assessment import AnswerabilityAssessment
from answerlens.errors import AnswerlensError
from answerlens.html.escape import esc
from answerlens.html.markup import cell, notice_html, table_html
from answerlens.traces.importer import SpanChoice, Wanted, file_choices, import_phoenix, import_text, recent_choices
from answerlens.traces.otlp import spans_of_text
from answerlens.traces.phoenix import API_KEY_ENV, Phoenix
from answerlens.traces.retrieval import Imported
from answerlens.traces.spans import TraceSpan
from answerlens.traces.writeback import Written, write_verdict
from answerlens.ui.common.sources import Source, check_size

DEFAULT_URL = "http://127.0.0.1:6006"
"""Phoenix's own default address."""
UI_TIMEOUT = 15.0
"""Seconds a page waits for Phoenix, at most, per request."""


@dataclass(frozen=True)
class FileSpans:
    """An uploaded OTLP JSON file, read once: its spans and the retriever spans among them."""

    name: str
    text: str
    spans: tuple[TraceSpan, ...]

    @property
    def choices(self) -> list[SpanChoice]:
        return file_choices(self.spans)


def read_upload(data: bytes, name: str) -> FileSpans:
    """The file's spans; a ``TraceError`` (or ``BundleError`` for size or encoding) saying what is wrong."""
    from answerlens.json_reader import decode

    check_size(len(data), name)
    text = decode(data, name)
    return FileSpans(name, text, tuple(spans_of_text(text, name)))


def open_file(upload: FileSpans, span_id: str, *, with_answer: bool) -> Opened:
    return source_of(import_text(upload.text, upload.name, Wanted(span_id=span_id, with_answer=with_answer)))


def phoenix(url: str) -> Phoenix:
    return Phoenix.connect(url, timeout=UI_TIMEOUT)


def list_phoenix(url: str, project: str) -> list[SpanChoice]:
    with phoenix(url) as client:
        return recent_choices(client, project)


def open_phoenix(url: str, project: str, span_id: str, *, with_answer: bool) -> Opened:
    with phoenix(url) as client:
        return source_of(import_phoenix(client, project, Wanted(span_id=span_id, with_answer=with_answer)))


def write(url: str, project: str | None, assessment: AnswerabilityAssessment, run_url: str | None) -> Written:
    with phoenix(url) as client:
        return write_verdict(client, assessment, project=project or None, run_url=run_url)


@dataclass(frozen=True)
class Opened:
    """A span opened as the page's source, and what the import noticed (e.g. a document with no id)."""

    source: Source
    notes: tuple[str, ...] = ()


def source_of(imported: Imported) -> Opened:
    sample = imported.sample
    block = sample.trace_import
    assert block is not None
    source = Source(name=f"span {block.span_id}", bundle=sample.load(f"span {block.span_id}"), sample=sample)
    return Opened(source, imported.notes)


def key_note() -> str:
    """Where the API key comes from, and whether it is set (never the key)."""
    state = "set" if os.environ.get(API_KEY_ENV) else "not set: only a Phoenix without authentication answers"
    return f"API key: the app's {API_KEY_ENV} environment variable ({state})."


def choice_label(choice: SpanChoice) -> str:
    question = " ".join((choice.question or "(no question on the span)").split())
    question = question if len(question) <= 70 else question[:69] + "…"
    return f"{question} · {choice.documents} doc{'s' if choice.documents != 1 else ''} · span {choice.span_id}"


def choices_html(choices: Sequence[SpanChoice]) -> str:
    """The retriever spans as a table: when, question, documents, span and trace ids (all escaped)."""
    rows = [
        cell(choice.started.strftime("%Y-%m-%d %H:%M:%S") if choice.started else "—")
        + f'<td class="al-text">{esc(choice.question or "—")}</td>' + cell(choice.documents)
        + cell(choice.name) + f"<td><code>{esc(choice.span_id)}</code></td>"
        + f"<td><code>{esc(choice.trace_id)}</code></td>"
        for choice in choices]
    return f'<div data-trace-spans="{len(choices)}">' + table_html(
        ["started (UTC)", "question", "documents", "name", "span id", "trace id"], rows) + "</div>"


def failure_html(title: str, exc: AnswerlensError) -> str:
    """A refused source or write, with what to do (a ``PhoenixError``'s remedy apart from its message)."""
    remedy = getattr(exc, "remedy", None)
    detail = getattr(exc, "detail", None) if remedy else None
    return notice_html("error", title, detail or str(exc), remedy=remedy)


def written_html(written: Written) -> str:
    """What was written, for the page (the link is escaped and opens Phoenix's trace view)."""
    counts = ", ".join(f"{verdict.position}: {verdict.label.value}" for verdict in written.documents)
    link = (f' <a href="{esc(written.link)}" target="_blank" rel="noopener" data-phoenix-link>Open the trace in '
            "Phoenix</a>") if written.link else ""
    return (f'<div class="al-muted" data-written="{esc(written.span_id)}">Wrote the verdict '
            f"(<b>{esc(written.label)}</b>, score {written.score:.2f}) onto span <code>{esc(written.span_id)}</code> "
            f"of trace <code>{esc(written.trace_id)}</code> in project {esc(written.project)}, and one annotation "
            f"per document ({esc(counts)}).{link}</div>")

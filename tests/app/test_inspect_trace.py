"""Inspect *From a trace* and *Write verdict to Phoenix*, in AppTest against a real Phoenix and a loopback model:
list a project's retriever spans, open one, assess it, write the verdict back, read it back from Phoenix."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP, assert_clean, assess, html, notices, start, verdicts
from tests.context_server import context_server
from tests.phoenix_server import Phoenix, free_port
from tests.traces.phoenix_reads import document_annotations, send, span_annotations
from tests.traces.pipeline import QUESTION

REQUIREMENTS = {"Which database does the dashboard API use?": "Postgres 16", "Who owns billing?": "owns billing"}


def from_phoenix(at, url: str, project: str) -> None:  # type: ignore[no-untyped-def]
    at.radio(key="inspect.source_kind").set_value("From a trace").run()
    at.radio(key="inspect.trace_mode").set_value("Phoenix").run()
    at.text_input(key="inspect.phoenix_url").set_value(url).run()
    at.text_input(key="inspect.phoenix_project").set_value(project).run()
    at.button(key="inspect.trace_list").click().run()
    assert_clean(at)


def test_open_a_span_from_phoenix_assess_it_and_write_the_verdict_back(
        phoenix: Phoenix, monkeypatch: pytest.MonkeyPatch) -> None:
    project = "app-trace"
    traced = send(phoenix, project)
    monkeypatch.delenv("PHOENIX_API_KEY", raising=False)
    at = start()
    from_phoenix(at, phoenix.url, project)
    assert 'data-trace-spans="1"' in html(at) and QUESTION in html(at)
    assert "API key: the app's PHOENIX_API_KEY environment variable (not set" in " ".join(c.value for c in at.caption)
    at.button(key="inspect.trace_open").click().run()
    assert_clean(at)
    assert f'data-trace-opened="span {traced.retriever_span_id}"' in html(at)
    assert at.text_area(key="inspect.question").value == QUESTION
    with context_server(REQUIREMENTS) as model:
        at.radio(key="inspect.provider").set_value("Ollama").run()
        at.text_input(key="inspect.base_url.ollama").set_value(model.base_url).run()
        at.selectbox(key="inspect.model.ollama").set_value("context-oracle").run()
        assess(at)
    assert verdicts(at) == ["partial"]
    assert "evidence from" in html(at) and traced.retriever_span_id in html(at)

    assert at.text_input(key="inspect.writeback_url").value == phoenix.url
    assert at.text_input(key="inspect.writeback_project").value == project
    at.button(key="inspect.writeback_go").click().run()
    assert_clean(at)
    assert f'data-written="{traced.retriever_span_id}"' in html(at) and "data-phoenix-link" in html(at)
    assert "0: accepted, 1: not cited, 2: not cited" in html(at)
    (annotation,) = span_annotations(phoenix, project, traced.retriever_span_id)
    assert annotation["result"]["label"] == "answer_partially"
    assert [d["label"] for d in document_annotations(phoenix, project, traced.retriever_span_id)] == [
        "accepted", "not cited", "not cited"]

    # The stored run reopens by its link (verified as it is read back) with its import block: still writable.
    reopened = AppTest.from_file(APP, default_timeout=30)
    reopened.query_params["run"] = annotation["identifier"]
    reopened.run()
    assert_clean(reopened)
    assert verdicts(reopened) == ["partial"] and "evidence from" in html(reopened)
    assert "inspect.writeback_go" in [button.key for button in reopened.button]


def test_a_phoenix_that_does_not_answer_is_said_in_place() -> None:
    at = start()
    from_phoenix(at, f"http://127.0.0.1:{free_port()}", "default")
    (error,) = notices(at.main, "error")
    assert "Phoenix could not list its spans" in error and "not reachable" in error and "phoenix serve" in error
    assert verdicts(at) == [] and "inspect.writeback_go" not in [b.key for b in at.button]


def test_the_samples_have_no_write_back() -> None:
    at = start()
    at.radio(key="inspect.provider").set_value("Recorded response").run()
    assess(at)
    assert verdicts(at) and "inspect.writeback_go" not in [b.key for b in at.button]


def test_what_the_import_noticed_is_said_under_the_opened_span(phoenix: Phoenix) -> None:
    from tests.traces.pipeline import Document

    send(phoenix, "app-notes", documents=(Document("The dashboard API stores its data in Postgres 16."),),
         question="Which database?")
    at = start()
    from_phoenix(at, phoenix.url, "app-notes")
    at.button(key="inspect.trace_open").click().run()
    assert_clean(at)
    assert any("document 0 has no id: it is named doc0" in note for note in notices(at.main, "info"))
    assert at.text_area(key="inspect.question").value == "Which database?"

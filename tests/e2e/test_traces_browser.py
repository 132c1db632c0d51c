"""The trace loop in a real headless Chromium: a RAG pipeline's OTLP JSON file uploaded to Inspect (*From a trace*),
a retriever span opened and assessed against a loopback model, the verdict written to a real Phoenix, and the
annotations seen in Phoenix's own UI. With ``ANSWERLENS_SCREENSHOTS=docs`` it saves docs/traces-inspect.png and
docs/traces-phoenix.png."""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.context_server import context_server
from tests.e2e.conftest import TIMEOUT, choose, radio, rerun, settle, shoot, source_kind
from tests.phoenix_server import Phoenix
from tests.traces.pipeline import QUESTION, OtlpJsonLines, provider, run_pipeline

pytestmark = pytest.mark.e2e

REQUIREMENTS = {"Which database does the dashboard API use?": "Postgres 16", "Who owns billing?": "owns billing"}


def traced_into(phoenix: Phoenix, project: str, file: Path) -> Any:
    """The test pipeline traced both into Phoenix and into an OTLP JSON lines file (one run, one trace)."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    tracer_provider = provider(project, OTLPSpanExporter(endpoint=f"{phoenix.url}/v1/traces"), OtlpJsonLines(file))
    traced = run_pipeline(tracer_provider)
    tracer_provider.shutdown()
    phoenix.wait_for_spans(lambda spans: len(spans) >= 3, project)
    return traced


def test_upload_a_trace_assess_it_write_back_and_see_it_in_phoenix(
        page: Any, browser: Any, phoenix: Phoenix, tmp_path: Path, screenshots: Path | None) -> None:
    project = f"rag-{uuid.uuid4().hex[:8]}"
    traced = traced_into(phoenix, project, tmp_path / "rag-trace.jsonl")

    source_kind(page, "From a trace")
    page.locator('[data-testid="stMain"] input[type="file"]').first.set_input_files(str(tmp_path / "rag-trace.jsonl"))
    page.locator('[data-trace-spans="1"]').wait_for(timeout=TIMEOUT)
    settle(page)
    rerun(page, lambda: page.get_by_role("button", name="Open this span").click())
    expect(page.get_by_label("Question")).to_have_value(QUESTION, timeout=TIMEOUT)
    with context_server(REQUIREMENTS) as model:
        radio(page, "Provider", "OpenAI-compatible server")
        sidebar = page.locator('[data-testid="stSidebar"]')
        sidebar.get_by_label("Base URL").fill(model.base_url)
        rerun(page, lambda: sidebar.get_by_label("Base URL").press("Enter"))
        choose(page, "Model", "context-oracle")
        page.get_by_role("button", name="Assess", exact=True).click()
        page.locator("[data-verdict]").wait_for(timeout=TIMEOUT)
        settle(page)
    assert page.locator("[data-verdict]").get_attribute("data-verdict") == "partial"

    page.get_by_label("Phoenix URL").fill(phoenix.url)
    rerun(page, lambda: page.get_by_label("Phoenix URL").press("Enter"))
    rerun(page, lambda: page.get_by_role("button", name="Write verdict to Phoenix").click())
    written = page.locator(f'[data-written="{traced.retriever_span_id}"]')
    written.wait_for(timeout=TIMEOUT)
    assert "0: accepted, 1: not cited, 2: not cited" in written.inner_text()
    assert page.locator('[data-testid="stMain"] [data-notice="error"]').count() == 0
    shoot(page, screenshots, "traces-inspect.png")

    phoenix_page = browser.new_page(viewport={"width": 1440, "height": 1250}, color_scheme="dark")
    try:
        phoenix_page.goto(page.locator("[data-phoenix-link]").get_attribute("href"))
        phoenix_page.get_by_text("accepted by requirement 1 (m1)").first.wait_for(timeout=TIMEOUT)
        # The span's annotations, opened as Phoenix 20.26 lays them out: a folded "Annotations" panel, its table view.
        phoenix_page.locator("h3").filter(has_text=re.compile(r"^Annotations")).first.click()
        phoenix_page.get_by_text("Table", exact=True).first.click()
        phoenix_page.get_by_text("answer_partially").first.wait_for(timeout=TIMEOUT)
        assert phoenix_page.get_by_text("answerlens.answerability").count() >= 2  # the span's and a document's
        if screenshots is not None:
            phoenix_page.screenshot(path=str(screenshots / "traces-phoenix.png"))
    finally:
        phoenix_page.close()

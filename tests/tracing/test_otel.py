"""A trace backend that is not there never fails or slows an assessment: spans are exported in the background,
within the exporter's own timeout, and dropped with one warning that names the endpoint without its userinfo."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from answerlens import AnswerabilityConfig, AnswerabilityEvaluator, tracing
from tests.paths import PRME, REPO, SAMPLES
from tests.scripted_server import ScriptedServer, closed_port, openai_chat, scripted_server_fixture  # noqa: F401

READER = PRME / "bundles" / "bundle_reader_citations.json"
RAW = (PRME / "assessments" / "raw_output_reader_openai.json").read_text()
QUESTION = "What database and cache does the dashboard API use, and what is Craig's background?"
PASSWORD = "pw-PLANTED-otlp"
EXPORT_TIMEOUT = 2.0


@pytest.fixture
def nobody_listening(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    for key in [key for key in os.environ if key.startswith("OTEL_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://collector:{PASSWORD}@127.0.0.1:{closed_port()}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", str(EXPORT_TIMEOUT))
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "10")  # export at once, so the failure happens during the test
    tracing.reset()
    yield os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"]
    tracing.reset()


def test_an_unreachable_collector_costs_one_warning_and_no_time(
        nobody_listening: str, scripted_server: ScriptedServer, caplog: pytest.LogCaptureFixture) -> None:
    scripted_server.always("/v1/chat/completions", openai_chat(RAW))
    config = AnswerabilityConfig(provider="openai", model="m", base_url=scripted_server.base_url,
                                 api_key=SecretStr("k"), timeout=5.0, max_retries=0)

    async def assess(times: int) -> list[float]:
        spent = []
        async with AnswerabilityEvaluator(config) as evaluator:
            for _ in range(times):
                began = time.monotonic()
                await evaluator.assess(QUESTION, READER)
                spent.append(time.monotonic() - began)
        return spent

    assert tracing.flush()  # the provider is made (the SDK imported) here, outside the timed calls
    with caplog.at_level(logging.WARNING):
        first = asyncio.run(assess(3))
        tracing.flush(int(EXPORT_TIMEOUT * 3000))  # the exporter gives up within its timeout
        later = asyncio.run(assess(3))
        tracing.flush(int(EXPORT_TIMEOUT * 3000))
    assert tracing.status().on
    # Each assessment returns while its spans wait for the background export: far below the export timeout.
    assert max(first + later) < EXPORT_TIMEOUT / 2
    warnings = [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]
    assert len(warnings) == 1, warnings
    assert "traces could not be sent to http://127.0.0.1:" in warnings[0]
    assert PASSWORD not in caplog.text


def test_the_cli_with_an_unreachable_collector_exits_ok_within_the_export_timeout(nobody_listening: str) -> None:
    sample = str(SAMPLES / "answerable_billing_database.json")
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "answerlens.cli", "assess", sample, "--provider", "replay",
                           "--json"], env={**os.environ, "PYTHONPATH": str(REPO / "src")}, capture_output=True,
                          text=True, timeout=120)
    spent = time.monotonic() - began
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verdict"] == "answerable"
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "traces could not be sent" in lines[0], done.stderr
    assert PASSWORD not in done.stderr
    # Start-up, the assessment, then at exit one export attempt bounded by the exporter's timeout.
    assert spent < EXPORT_TIMEOUT + 30


APPLICATION = f"""
import json, sys
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

memory = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(memory))
trace.set_tracer_provider(provider)  # the application's own, global provider; no OTLP endpoint anywhere

from answerlens.cli import main
with trace.get_tracer("app").start_as_current_span("app.request"):
    main(["assess", {str(SAMPLES / "answerable_billing_database.json")!r}, "--provider", "replay", "--json"])
print(json.dumps([[span.name, span.parent.span_id if span.parent else None, span.context.span_id]
                  for span in memory.get_finished_spans()]))
"""


def test_an_application_provider_is_used_without_any_endpoint() -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("OTEL_")}
    done = subprocess.run([sys.executable, "-c", APPLICATION], env={**env, "PYTHONPATH": str(REPO / "src")},
                          capture_output=True, text=True, timeout=120, check=True)
    spans = {name: (parent, own) for name, parent, own in json.loads(done.stdout.splitlines()[-1])}
    assert set(spans) == {"app.request", "answerlens.assess", "answerlens.llm"}
    assert spans["answerlens.assess"][0] == spans["app.request"][1]
    assert spans["answerlens.llm"][0] == spans["answerlens.assess"][1]

"""Tracing under hostile settings: content hiding reaches every place content can (a span's status, its exception
event, a sample's error), and a malformed OTLP header or exporter setting turns tracing off with one warning that
never repeats a header value, never failing an assessment."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import SecretStr

from answerlens import AnswerabilityConfig, AnswerabilityError, AnswerabilityEvaluator, tracing
from answerlens.tracing.settings import HIDE_VARIABLES, status
from tests.paths import PRME, REPO, SAMPLES
from tests.scripted_server import Reply, ScriptedServer, closed_port, scripted_server_fixture  # noqa: F401

READER = PRME / "bundles" / "bundle_reader_citations.json"
QUESTION = "Which secret project codename did Dana mention to the auditors?"
TOKEN = "tok-PLANTED-header-9431"


@pytest.fixture
def hidden_memory_spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Spans kept in memory with every OpenInference hiding switch on."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from answerlens.tracing.otel import Tracer
    from answerlens.tracing.settings import Capture

    for name in HIDE_VARIABLES:
        monkeypatch.setenv(name, "true")
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracing.reset()
    tracing._decided["tracer"] = Tracer(provider, Capture.from_env())
    yield memory
    tracing.reset()


def every_text(span: Any) -> str:
    """All a span carries as text: attributes, status description, events and their attributes."""
    parts = [span.name, str(span.status.description or "")]
    parts += [f"{key}={value}" for key, value in (span.attributes or {}).items()]
    for event in span.events:
        parts += [event.name, *(f"{key}={value}" for key, value in (event.attributes or {}).items())]
    return "\n".join(parts)


def test_a_server_error_echoing_the_request_leaves_no_content_in_a_hidden_span(
        hidden_memory_spans: Any, scripted_server: ScriptedServer) -> None:
    echo = f'{{"error": {{"message": "upstream failed for prompt: {QUESTION}"}}}}'.encode()
    scripted_server.always("/v1/chat/completions", Reply(status=500, body=echo))
    config = AnswerabilityConfig(provider="openai", model="m", base_url=scripted_server.base_url,
                                 api_key=SecretStr("k"), timeout=5.0, max_retries=0)

    async def assess() -> None:
        async with AnswerabilityEvaluator(config) as evaluator:
            await evaluator.assess(QUESTION, READER)

    with pytest.raises(AnswerabilityError, match="upstream failed for prompt"):  # the caller still sees it all
        asyncio.run(assess())
    spans = hidden_memory_spans.get_finished_spans()
    assert {span.name for span in spans} == {"answerlens.assess", "answerlens.llm"}
    for span in spans:
        text = every_text(span)
        assert "Dana" not in text and "codename" not in text and "upstream failed" not in text, text
        assert span.status.status_code.name == "ERROR"
        assert "server_error" in str(span.status.description), "the kind of failure is still there"
        assert "hidden" in str(span.status.description)


def test_a_failed_sample_of_a_trial_leaves_no_content_in_a_hidden_span(hidden_memory_spans: Any) -> None:
    from answerlens.tracing.spans import sample

    tracer = tracing._decided["tracer"]
    span = sample(tracer, "q1", 0)

    class Failed:
        assessment = None
        second_opinion = None
        error = type("E", (), {"kind": "server_error", "message": f"HTTP 500: upstream failed for {QUESTION}"})()
        case_id, repeat, label, answer_label, question_type, latency_ms = "q1", 0, "answerable", None, None, 1.0

    span.sampled(Failed())  # type: ignore[arg-type]
    (finished,) = hidden_memory_spans.get_finished_spans()
    assert "codename" not in every_text(finished) and "server_error" in str(finished.status.description)


def otel_env(**settings: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("OTEL_")}
    return {**env, "PYTHONPATH": str(REPO / "src"),
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{closed_port()}", "OTEL_EXPORTER_OTLP_TIMEOUT": "1",
            **settings}


def assess_cli(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "answerlens.cli", "assess",
                           str(SAMPLES / "answerable_billing_database.json"), "--provider", "replay"],
                          env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("settings, named", [
    pytest.param({"OTEL_EXPORTER_OTLP_HEADERS": f"authorization: Bearer {TOKEN}"}, "OTEL_EXPORTER_OTLP_HEADERS",
                 id="header_written_with_a_colon"),
    pytest.param({"OTEL_EXPORTER_OTLP_TRACES_HEADERS": f"x-team=ok,{TOKEN}"}, "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
                 id="header_without_a_name"),
    pytest.param({"OTEL_BSP_MAX_QUEUE_SIZE": "0"}, "OTEL_BSP_MAX_QUEUE_SIZE", id="bsp_zero"),
    pytest.param({"OTEL_BSP_SCHEDULE_DELAY": "soon"}, "OTEL_BSP_SCHEDULE_DELAY", id="bsp_not_a_number"),
    pytest.param({"OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "5000"}, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", id="batch_over_queue"),
    pytest.param({"OTEL_EXPORTER_OTLP_TIMEOUT": "-3"}, "OTEL_EXPORTER_OTLP_TIMEOUT", id="negative_timeout"),
    pytest.param({"OTEL_EXPORTER_OTLP_COMPRESSION": "zip"}, "OTEL_EXPORTER_OTLP_COMPRESSION", id="compression"),
])
def test_a_bad_setting_turns_tracing_off_with_one_warning_and_the_assessment_runs(settings: dict[str, str],
                                                                                   named: str) -> None:
    done = assess_cli(otel_env(**settings))
    assert done.returncode == 0, done.stderr
    assert "verdict: answerable" in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("answerlens: tracing is off: ") and named in lines[0], lines[0]
    assert TOKEN not in done.stdout + done.stderr and "Bearer tok" not in done.stderr
    decided = status({key: value for key, value in otel_env(**settings).items()})
    assert not decided.on and named in decided.reason and TOKEN not in decided.reason


def test_good_settings_still_trace() -> None:
    decided = status(otel_env(OTEL_EXPORTER_OTLP_HEADERS=f"authorization=Bearer%20{TOKEN},x-team = blue",
                              OTEL_BSP_MAX_QUEUE_SIZE="100", OTEL_BSP_MAX_EXPORT_BATCH_SIZE="100",
                              OTEL_BSP_SCHEDULE_DELAY="10", OTEL_EXPORTER_OTLP_COMPRESSION="gzip"))
    assert decided.on, decided.reason


def test_without_hiding_the_message_stays_with_the_key_redacted(memory_spans: Any,
                                                                  scripted_server: ScriptedServer) -> None:
    secret = "sk-PLANTED-trace-77"
    body = f'{{"error": {{"message": "Incorrect API key provided: {secret}"}}}}'.encode()
    scripted_server.always("/v1/chat/completions", Reply(status=401, body=body))
    config = AnswerabilityConfig(provider="openai", model="m", base_url=scripted_server.base_url,
                                 api_key=SecretStr(secret), timeout=5.0, max_retries=0)

    async def assess() -> None:
        async with AnswerabilityEvaluator(config) as evaluator:
            await evaluator.assess(QUESTION, READER)

    with pytest.raises(AnswerabilityError):
        asyncio.run(assess())
    for span in memory_spans.get_finished_spans():
        assert "Incorrect API key provided: ***" in str(span.status.description)
        assert secret not in every_text(span)

"""Assessments traced into a real Arize Phoenix and read back through its own REST API: span names and
OpenInference kinds, attributes, parent/child links (inside a caller's trace too), the CLI, a trial, and a
redacted error."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from answerlens import AnswerabilityConfig, AnswerabilityError, AnswerabilityEvaluator, tracing
from answerlens.engine.runner import run_trial
from answerlens.trials.dataset import load_dataset
from answerlens.trials.gates import Gate
from tests.oracle_server import judgement, oracle_server
from tests.paths import PRME, REPO, SAMPLES
from tests.phoenix_server import Phoenix
from tests.scripted_server import ScriptedServer, openai_chat, openai_error, scripted_server_fixture  # noqa: F401

READER = PRME / "bundles" / "bundle_reader_citations.json"
QUESTION = "What database and cache does the dashboard API use, and what is Craig's background?"
RAW = (PRME / "assessments" / "raw_output_reader_openai.json").read_text()
SECRET = "sk-PLANTED-phoenix-123"
APP = "http://127.0.0.1:8501"

Spans = list[dict[str, Any]]


@pytest.fixture
def project(phoenix: Phoenix, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A Phoenix project of this test's own, traced to through the standard variables only."""
    name = f"answerlens-{uuid.uuid4().hex[:8]}"
    for key in [key for key in os.environ if key.startswith(("OTEL_", "OPENINFERENCE_"))]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", phoenix.url)
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", f"openinference.project.name={name}")
    monkeypatch.setenv("ANSWERLENS_APP_URL", APP)
    tracing.reset()
    yield name
    tracing.reset()


def named(spans: Spans, name: str) -> list[dict[str, Any]]:
    return [span for span in spans if span["name"] == name]


def one(spans: Spans, name: str) -> dict[str, Any]:
    found = named(spans, name)
    assert len(found) == 1, [span["name"] for span in spans]
    return found[0]


def config(server: ScriptedServer) -> AnswerabilityConfig:
    return AnswerabilityConfig(provider="openai", model="qwen3.5:9b", base_url=server.base_url,
                               api_key=SecretStr(SECRET), timeout=5.0, max_retries=0)


def test_library_assessment_is_a_verdict_span_inside_the_callers_trace(
        phoenix: Phoenix, project: str, scripted_server: ScriptedServer) -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    # A RAG pipeline instrumented with OpenTelemetry of its own (not the global provider), exporting to Phoenix.
    pipeline = TracerProvider(resource=Resource({"openinference.project.name": project}))
    pipeline.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{phoenix.url}/v1/traces")))
    scripted_server.script("/v1/chat/completions", openai_chat(RAW))

    async def pipeline_run() -> Any:
        with pipeline.get_tracer("rag").start_as_current_span("rag.pipeline"):
            async with AnswerabilityEvaluator(config(scripted_server)) as evaluator:
                return await evaluator.assess(QUESTION, READER)

    assessment = asyncio.run(pipeline_run())
    assert tracing.flush() and pipeline.force_flush()
    pipeline.shutdown()
    spans = phoenix.wait_for_spans(lambda spans: len(spans) >= 3, project)

    rag, verdict, llm = one(spans, "rag.pipeline"), one(spans, "answerlens.assess"), one(spans, "answerlens.llm")
    assert verdict["parent_id"] == rag["context"]["span_id"]
    assert llm["parent_id"] == verdict["context"]["span_id"]
    assert {span["context"]["trace_id"] for span in (rag, verdict, llm)} == {rag["context"]["trace_id"]}
    assert (verdict["span_kind"], llm["span_kind"], verdict["status_code"]) == ("EVALUATOR", "LLM", "OK")
    attributes = verdict["attributes"]
    assert {key: attributes[key] for key in ("answerlens.verdict", "answerlens.action", "answerlens.evaluation_id",
                                             "answerlens.assessment_sha256", "answerlens.configuration_sha256",
                                             "answerlens.requirements", "answerlens.citation_errors",
                                             "answerlens.source", "answerlens.run_url")} == {
        "answerlens.verdict": assessment.verdict.value,
        "answerlens.action": assessment.recommended_action.value,
        "answerlens.evaluation_id": assessment.evaluation_id,
        "answerlens.assessment_sha256": assessment.assessment_sha256,
        "answerlens.configuration_sha256": assessment.configuration_sha256,
        "answerlens.requirements": len(assessment.requirements),
        "answerlens.citation_errors": len(assessment.citation_errors),
        "answerlens.source": "live",
        "answerlens.run_url": f"{APP}/?run={assessment.evaluation_id}",
    }
    assert attributes["input.value"] == QUESTION
    model = llm["attributes"]
    assert (model["llm.model_name"], model["llm.provider"]) == ("qwen3.5:9b", "openai")
    assert (model["llm.token_count.prompt"], model["llm.token_count.completion"],
            model["llm.token_count.total"]) == (321, 54, 375)
    assert model["answerlens.latency_ms"] > 0
    assert model["llm.input_messages.0.message.role"] == "system"
    assert QUESTION in model["llm.input_messages.1.message.content"]
    assert model["llm.output_messages.0.message.content"] == RAW
    assert SECRET not in json.dumps(spans)


def test_a_failed_model_call_is_an_error_span_with_the_key_redacted(
        phoenix: Phoenix, project: str, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENINFERENCE_HIDE_INPUTS", "true")
    scripted_server.script("/v1/chat/completions", openai_error(f"Incorrect API key provided: {SECRET}", 401))

    async def assess() -> None:
        async with AnswerabilityEvaluator(config(scripted_server)) as evaluator:
            await evaluator.assess(QUESTION, READER)

    with pytest.raises(AnswerabilityError):
        asyncio.run(assess())
    assert tracing.flush()
    spans = phoenix.wait_for_spans(lambda spans: len(spans) >= 2, project)

    for span in (one(spans, "answerlens.assess"), one(spans, "answerlens.llm")):
        assert span["status_code"] == "ERROR"
        (event,) = span["events"]
        assert event["name"] == "exception"
        assert event["attributes"]["exception.type"] == "answerlens.errors.AnswerabilityError"
        # Under content hiding the message, which may quote the server's body, gives way to the kind of failure.
        assert event["attributes"]["exception.message"].startswith("unauthorized: message hidden")
        assert span["attributes"]["answerlens.error_kind"] == "unauthorized"
        assert not any(key.startswith(("input.", "llm.input_messages")) for key in span["attributes"])
    assert SECRET not in json.dumps(spans)


def test_the_cli_traces_a_forced_replay(phoenix: Phoenix, project: str) -> None:
    sample = str(SAMPLES / "answerable_billing_database.json")
    done = subprocess.run([sys.executable, "-m", "answerlens.cli", "assess", sample, "-q", "Who owns billing?",
                           "--provider", "replay", "--force-replay", "--json"],
                          env={**os.environ, "PYTHONPATH": str(REPO / "src")}, capture_output=True, text=True,
                          timeout=120, check=True)
    printed = json.loads(done.stdout)
    spans = phoenix.wait_for_spans(lambda spans: len(spans) >= 2, project)

    verdict, llm = one(spans, "answerlens.assess"), one(spans, "answerlens.llm")
    assert verdict["parent_id"] is None and llm["parent_id"] == verdict["context"]["span_id"]
    assert verdict["attributes"]["answerlens.evaluation_id"] == printed["evaluation_id"]
    assert verdict["attributes"]["answerlens.source"] == "forced replay"
    assert llm["attributes"]["llm.provider"] == "replay"


def test_a_trial_is_one_run_span_with_a_span_per_sample(phoenix: Phoenix, project: str, tmp_path: Path) -> None:
    bundle = {"records": [{"text": "The API uses Postgres 16."}, {"text": "The cache is Redis 7."}]}
    cases = [{"id": "a1", "question": "Q a1", "label": "answerable", "question_type": "t", "bundle": bundle},
             {"id": "u1", "question": "Q u1", "label": "unanswerable", "question_type": "t", "bundle": bundle},
             {"id": "e1", "question": "Q e1", "label": "answerable", "question_type": "t", "bundle": bundle}]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    replies = {"Q a1": judgement(("Database", "supported", ["m1"])), "Q u1": judgement(("Owner", "unsupported", [])),
               "Q e1": 500}
    with oracle_server(replies) as server:
        outcome = asyncio.run(run_trial(
            load_dataset(tmp_path / "cases.json"),
            AnswerabilityConfig(provider="openai", model="oracle", base_url=server.base_url, timeout=10,
                                max_retries=0),
            repeats=2, out=tmp_path / "run", gates={Gate.UNSAFE_FULL_ANSWER_COUNT_MAX: 0}))
    assert outcome.result is not None and tracing.flush()
    spans = phoenix.wait_for_spans(lambda spans: len(spans) >= 13, project)

    run = one(spans, "answerlens.trial")
    samples = named(spans, "answerlens.sample")
    assert run["span_kind"] == "CHAIN" and len(samples) == 6
    assert {span["parent_id"] for span in samples} == {run["context"]["span_id"]}
    assert sorted((span["attributes"]["answerlens.case_id"], span["attributes"]["answerlens.repeat"])
                  for span in samples) == [("a1", 0), ("a1", 1), ("e1", 0), ("e1", 1), ("u1", 0), ("u1", 1)]
    assessed = [span for span in samples if span["attributes"]["answerlens.case_id"] != "e1"]
    failed = [span for span in samples if span["attributes"]["answerlens.case_id"] == "e1"]
    assert {span["attributes"]["answerlens.verdict"] for span in assessed} == {"answerable", "insufficient"}
    assert {span["status_code"] for span in assessed} == {"OK"}
    for span in failed:
        assert span["status_code"] == "ERROR" and "answerlens.verdict" not in span["attributes"]
        assert span["attributes"]["answerlens.error_kind"] == span["events"][0]["attributes"]["exception.type"]
    assert run["attributes"]["answerlens.trial.errors"] == 2
    assert {llm["parent_id"] for llm in named(spans, "answerlens.llm")} == {s["context"]["span_id"] for s in samples}
    assert run["attributes"]["answerlens.gates.passed"] is True
    assert run["attributes"]["answerlens.gate.unsafe_full_answer_count_max.passed"] is True


def test_the_cli_with_a_second_opinion_traces_its_flags_on_the_verdict_span(
        phoenix: Phoenix, project: str, tmp_path: Path) -> None:
    sample = str(SAMPLES / "second_opinion_plan_as_fact.json")
    done = subprocess.run([sys.executable, "-m", "answerlens.cli", "assess", sample, "--provider", "replay",
                           "--evidence-policy", "strict", "--nli-model-dir", str(tmp_path), "--json"],
                          env={**os.environ, "PYTHONPATH": str(REPO / "src")}, capture_output=True, text=True,
                          timeout=120, check=True)
    printed = json.loads(done.stdout)
    spans = phoenix.wait_for_spans(lambda spans: len(spans) >= 2, project)

    verdict, llm = one(spans, "answerlens.assess"), one(spans, "answerlens.llm")
    assert llm["parent_id"] == verdict["context"]["span_id"] and verdict["status_code"] == "OK"
    attributes = verdict["attributes"]
    assert attributes["answerlens.evaluation_id"] == printed["second_opinion"]["assessment_evaluation_id"]
    assert attributes["answerlens.second_opinion.flags"] == ["speech_act_mismatch"]
    # The model's verdict stays the span's; the strict one, printed on top, is beside it.
    assert attributes["answerlens.action"] == "answer"
    assert (attributes["answerlens.second_opinion.strict_verdict"],
            attributes["answerlens.second_opinion.strict_action"]) == (printed["verdict"],
                                                                       printed["recommended_action"])

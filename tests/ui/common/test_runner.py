"""Running the engine from the app: results, labels, and every failure as data with a remedy."""

from __future__ import annotations

import json

import pytest

from answerlens import AnswerabilityConfig, load_bundle
from answerlens.samples import load_sample
from answerlens.ui.common import exports, history, runner
from answerlens.ui.common.runner import Endpoint
from tests.paths import SAMPLES
from tests.scripted_server import ScriptedServer, closed_port, ollama_chat

REPLAY = AnswerabilityConfig(provider="replay", model="hand-written")


def test_recorded_run_is_labelled_and_its_raw_reply_exported_exactly() -> None:
    sample = load_sample(SAMPLES / "conflicting_deploy_freeze.json")
    recording = sample.recording(source="conflicting_deploy_freeze.json")
    run = runner.assess(REPLAY, sample.load(), sample.question, recording=recording)
    assert run.failure is None and run.assessment is not None and recording is not None
    assert runner.source_label(run.assessment) == ("recorded response (hand-written)", recording.ref.note)
    raw = exports.raw_reply(run.assessment)
    assert raw is not None and raw.note and raw.note.startswith("exact")
    assert raw.data == run.assessment.raw_output_text
    inexact = exports.raw_reply(run.assessment.model_copy(update={"raw_output_text": None}))
    assert inexact is not None and json.loads(inexact.data) == run.assessment.raw_output
    assert inexact.note and inexact.note.startswith("parsed")


def test_reader_without_citations_is_a_failure_with_the_fix() -> None:
    sample = load_sample(SAMPLES / "reader_without_citations.json")
    run = runner.assess(REPLAY, sample.load(), sample.question, recording=sample.recording())
    assert run.assessment is None and run.failure is not None
    assert run.failure.kind == "uncitable" and "PRME_PACKING__CONTEXT_CITATIONS=true" in (run.failure.remedy or "")


@pytest.mark.parametrize(
    "question, answer, kind",
    [pytest.param("  ", None, "input", id="blank_question"), pytest.param("q", " ", "input", id="blank_answer")],
)
def test_blank_inputs_fail_before_any_call(question: str, answer: str | None, kind: str) -> None:
    run = runner.assess(REPLAY, load_bundle({"records": [{"text": "x"}]}), question, answer)
    assert run.failure is not None and run.failure.kind == kind


def test_no_recording_says_what_to_do() -> None:
    run = runner.assess(REPLAY, load_bundle({"records": [{"text": "x"}]}), "q")
    assert run.failure is not None and run.failure.kind == "no_recording"
    assert "upload one" in (run.failure.remedy or "")


def test_connection_refused_is_a_failure_not_a_verdict() -> None:
    config = runner.make_config(Endpoint(base_url=f"http://127.0.0.1:{closed_port()}/v1", timeout=5))
    run = runner.assess(config, load_bundle({"records": [{"text": "x"}]}), "q")
    assert run.assessment is None and run.failure is not None
    assert run.failure.kind == "connection_refused" and "ollama serve" in (run.failure.remedy or "")


def test_live_run_labels_the_engine(scripted_server: ScriptedServer) -> None:
    reply = {"requirements": [{"requirement": "r", "status": "supported", "evidence_refs": ["m1"],
                               "explanation": "e"}], "reasoning": "x"}
    scripted_server.script("/api/chat", ollama_chat(json.dumps(reply)))
    config = runner.make_config(Endpoint(base_url=scripted_server.base_url, model="m1"))
    run = runner.assess(config, load_bundle({"records": [{"text": "x"}]}), "q")
    assert run.assessment is not None
    assert runner.source_label(run.assessment)[0] == f"live model: ollama m1 at {scripted_server.base_url}"


def test_invalid_settings_name_the_field() -> None:
    with pytest.raises(ValueError, match="settings.model"):
        runner.make_config(Endpoint(model="  "))


def test_history_add_select_and_find() -> None:
    state: dict = {}
    sample = load_sample(SAMPLES / "speech_act_eslint.json")
    run = runner.assess(REPLAY, sample.load(), sample.question, recording=sample.recording())
    assert run.assessment is not None
    first = history.add(state, source="a", question="q", assessment=run.assessment, context="", label="l")
    second = history.add(state, source="b", question="q", assessment=run.assessment, context="", label="l")
    assert history.current(state) == second and [e.number for e in history.entries(state)] == [1, 2]
    history.select(state, 1)
    assert history.current(state) == first
    history.select(state, 99)
    assert history.current(state) == first


def test_requirements_csv_defuses_formulas() -> None:
    sample = load_sample(SAMPLES / "compact_citation_errors.json")
    run = runner.assess(REPLAY, sample.load(), sample.question, recording=sample.recording())
    assert run.assessment is not None
    text = exports.requirements_csv(run.assessment).data
    assert text.splitlines()[0] == ",".join(exports.CSV_COLUMNS)
    assert exports.cell("=HYPERLINK(1)") == "'=HYPERLINK(1)" and exports.cell("plain") == "plain"

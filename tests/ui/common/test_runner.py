"""Running the engine from the app: one assessment at a time, every failure as data with a remedy."""

from __future__ import annotations

import json

import pytest

from answerlens import AnswerabilityConfig, load_bundle
from answerlens.html.provenance import source_label
from answerlens.recording import Recording
from answerlens.ui.common import endpoint, runner
from answerlens.ui.common.endpoint import Endpoint
from tests.scripted_server import ScriptedServer, closed_port, json_reply, ollama_chat
from tests.ui.conftest import sample

REPLAY = AnswerabilityConfig(provider="replay", model="hand-written")
ONE_RECORD = {"records": [{"text": "x"}]}


def test_recorded_run_holds_an_assessment_and_its_time() -> None:
    found = sample("conflicting_deploy_freeze")
    run = runner.assess(REPLAY, found.load(), found.question, recording=found.recording())
    assert run.failure is None and run.assessment is not None and run.seconds > 0
    assert run.assessment.verdict.value == found.expected.verdict


def test_reader_without_citations_is_a_failure_with_the_fix() -> None:
    found = sample("reader_without_citations")
    run = runner.assess(REPLAY, found.load(), found.question, recording=found.recording())
    assert run.assessment is None and run.failure is not None
    assert run.failure.kind == "uncitable" and run.failure.remedy == runner.READER_FIX


@pytest.mark.parametrize(
    "question, answer, kind",
    [pytest.param("  ", None, "input", id="blank_question"), pytest.param("q", " ", "input", id="blank_answer")],
)
def test_blank_inputs_fail_before_any_call(question: str, answer: str | None, kind: str) -> None:
    run = runner.assess(REPLAY, load_bundle(ONE_RECORD), question, answer)
    assert run.failure is not None and run.failure.kind == kind


def test_no_recording_says_what_to_do() -> None:
    run = runner.assess(REPLAY, load_bundle(ONE_RECORD), "q")
    assert run.failure is not None and run.failure.kind == "no_recording"
    assert "upload one" in (run.failure.remedy or "")


@pytest.mark.parametrize(
    "reply, kind, title",
    [
        pytest.param("not json at all", "not_json", "does not fit the answerability schema", id="not_json"),
        pytest.param('{"requirements": []}', "schema", "does not fit the answerability schema", id="schema"),
    ],
)
def test_a_bad_recorded_reply_is_a_schema_failure_never_a_failed_model_call(reply: str, kind: str,
                                                                            title: str) -> None:
    run = runner.assess(REPLAY, load_bundle(ONE_RECORD), "q", recording=Recording.of(reply))
    assert run.assessment is None and run.failure is not None
    assert run.failure.kind == kind and title in run.failure.title
    assert run.failure.title.startswith("The recorded reply") and "model call failed" not in run.failure.title


def test_a_recording_of_other_inputs_is_refused_with_what_differs_and_how_to_restore() -> None:
    found = sample("speech_act_eslint")
    recording = found.recording(source="speech_act_eslint.json")
    run = runner.assess(REPLAY, found.load(), "Which formatter did I adopt?", recording=recording)
    assert run.assessment is None and run.failure is not None
    assert run.failure.kind == "recording_mismatch" and run.failure.differences == ("question",)
    assert run.failure.restore == (found.question.strip(), None)
    assert "another question" in run.failure.title and "Nothing was called" in run.failure.message
    forced = runner.assess(REPLAY, found.load(), "Which formatter did I adopt?", recording=recording,
                           force_replay=True)
    assert forced.assessment is not None
    assert forced.assessment.provider_metadata.recording.match.value == "forced"  # type: ignore[union-attr]


def test_a_run_can_carry_its_second_opinion() -> None:
    found = sample("second_opinion_plan_as_fact")
    run = runner.assess(REPLAY, found.load(), found.question, found.answer, recording=found.recording(),
                        second_opinion=True)
    assert run.assessment is not None and run.opinion is not None
    assert [len(item.flags) > 0 for item in run.opinion.requirements] == [
        bool(codes) for codes in found.expected.second_opinion.flags]  # type: ignore[union-attr]
    assert run.opinion.verifier_note.state.value in ("unavailable", "checked")


def test_connection_refused_is_a_failure_not_a_verdict() -> None:
    config = endpoint.make_config(Endpoint(base_url=f"http://127.0.0.1:{closed_port()}/v1", timeout=5))
    run = runner.assess(config, load_bundle(ONE_RECORD), "q")
    assert run.assessment is None and run.failure is not None
    assert run.failure.kind == "connection_refused" and "ollama serve" in (run.failure.remedy or "")


def test_live_run_labels_the_engine(scripted_server: ScriptedServer) -> None:
    reply = {"requirements": [{"requirement": "r", "status": "supported", "evidence_refs": ["m1"],
                               "explanation": "e"}], "reasoning": "x"}
    scripted_server.script("/api/chat", ollama_chat(json.dumps(reply)))
    config = endpoint.make_config(Endpoint(base_url=scripted_server.base_url, model="m1"))
    run = runner.assess(config, load_bundle(ONE_RECORD), "q")
    assert run.assessment is not None
    assert source_label(run.assessment)[0] == f"live model: ollama m1 at {scripted_server.base_url}"


def test_check_endpoint_reads_a_real_server(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/api/tags", json_reply({"models": [{"name": "qwen3.5:9b"}]}))
    scripted_server.always("/api/version", json_reply({"version": "0.9.0"}))
    scripted_server.always("/api/show", json_reply({"model_info": {"qwen3.context_length": 32768}}))
    config = endpoint.make_config(Endpoint(base_url=scripted_server.base_url))
    check = runner.check_endpoint(config, context_chars=4200)
    assert check.reachable and check.models == ("qwen3.5:9b",) and check.fits is True
    assert endpoint.preflight_line(config, check).kind == "ok"


def test_check_endpoint_never_raises_for_an_unreachable_server() -> None:
    config = endpoint.make_config(Endpoint(base_url=f"http://127.0.0.1:{closed_port()}"))
    check = runner.check_endpoint(config, context_chars=None)
    assert not check.reachable and check.problem
    assert endpoint.preflight_line(config, check).kind == "error"

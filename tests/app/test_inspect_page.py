"""The Inspect page, driven through AppTest: samples, recorded and live assessments, failures, history."""

from __future__ import annotations

import json
import os
import re

import pytest

from answerlens.samples import load_sample
from tests.app.conftest import assert_clean, assess, choose_sample, html, notices, start, use_recorded, verdicts
from tests.paths import SAMPLES
from tests.scripted_server import ScriptedServer, closed_port, json_reply, ollama_chat, ollama_error

SAMPLE_FILES = sorted(SAMPLES.glob("*.json"))


def test_inspect_is_the_default_page_and_lists_every_sample() -> None:
    at = start()
    assert at.title[0].value == "Inspect"
    assert at.selectbox(key="inspect.sample").options and len(at.selectbox(key="inspect.sample").options) == len(
        SAMPLE_FILES)
    assert at.button(key="inspect.assess").proto.label == "Assess"


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=[p.stem for p in SAMPLE_FILES])
def test_every_sample_assesses_with_its_recorded_reply_as_expected(path) -> None:
    sample = load_sample(path)
    at = start()
    choose_sample(at, path.stem)
    assert at.text_area(key="inspect.question").value == sample.question
    assert at.text_area(key="inspect.answer").value == (sample.answer or "")
    use_recorded(at)
    assess(at)
    if sample.expected.error:
        assert verdicts(at) == []
        (message,) = notices(at.main, "error")
        assert sample.expected.error in message
        assert "PackingConfig(context_format='reader', context_citations=True)" in message
        assert "PRME_PACKING__CONTEXT_CITATIONS=true" in message and "auditable" in message
    else:
        assert verdicts(at) == [sample.expected.verdict]


def test_recorded_result_is_labelled_hand_written_and_highlights_citations() -> None:
    at = start()
    choose_sample(at, "prme_reader_citations")
    use_recorded(at)
    assess(at)
    page = html(at)
    assert 'data-source="recorded"' in page and "recorded response" in page
    marks = re.findall(r'<mark [^>]*data-citation="(\w+)" data-requirement="(\d+)" data-ref="([^"]+)"', page)
    assert ("accepted", "0", "m1") in marks and ("accepted", "1", "m4") in marks
    assert ("discarded", "1", "m4") not in marks, "the repeated m4 is skipped: it does not outline the accepted one"
    assert ("uncounted", "2", "m2") in marks, "the downgraded requirement's valid m2 is not drawn accepted"
    chips = re.findall(r'class="al-chip al-discarded al-gone" data-citation="discarded" data-requirement="3" data-ref="m99"', page)
    assert len(chips) == 1  # the invented m99 is not in the context: a struck-through chip
    for field in ("evaluation_id", "assessment_sha256", "context_sha256", "query_sha256", "configuration_sha256",
                  "prompt_sha256", "raw_output_sha256", "answer_sha256"):
        assert f'data-hash="{field}"' in page


def test_hand_written_label() -> None:
    at = start()
    choose_sample(at, "speech_act_eslint")
    use_recorded(at)
    assess(at)
    assert "recorded response (hand-written)" in html(at)


def test_selecting_a_requirement_narrows_the_highlighting() -> None:
    at = start()
    choose_sample(at, "prme_reader_citations")
    use_recorded(at)
    assess(at)
    before = set(re.findall(r'<mark [^>]*data-requirement="(\d+)"', html(at)))
    assert before == {"0", "1", "2"}
    at.radio(key="inspect.focus").set_value(1).run()
    assert_clean(at)
    assert set(re.findall(r'<mark [^>]*data-requirement="(\d+)"', html(at))) == {"1"}
    assert set(re.findall(r'data-requirements="([^"]+)"', html(at))) == {"1"}


def test_history_keeps_every_run_and_reopens_one() -> None:
    at = start()
    use_recorded(at)
    choose_sample(at, "conflicting_deploy_freeze")
    assess(at)
    choose_sample(at, "answerable_billing_database")
    assess(at)
    assert verdicts(at) == ["answerable"]
    picker = at.selectbox(key="inspect.history")
    assert picker.options and len(picker.options) == 2
    (table,) = at.dataframe
    assert table.value["verdict"].tolist() == ["answerable", "conflicting"]
    picker.set_value(1).run()
    assert_clean(at)
    assert verdicts(at) == ["conflicting"]
    assert [b.proto.label for b in at.get("download_button")] == [
        "Assessment", "Requirements", "Raw reply", "Recording", "Download report"]


def test_blank_question_disables_assess() -> None:
    at = start()
    at.text_area(key="inspect.question").set_value("   ").run()
    assert at.button(key="inspect.assess").disabled


def test_paste_broken_json_names_the_problem_and_the_page_stays_usable() -> None:
    at = start()
    at.radio(key="inspect.source_kind").set_value("Paste JSON").run()
    at.text_area(key="inspect.paste").set_value('{"records": [{"text": "a"},]}').run()
    assert_clean(at)
    (message,) = notices(at.main, "error")
    assert "invalid JSON at line 1" in message
    at.radio(key="inspect.source_kind").set_value("Sample").run()
    assert_clean(at)
    assert not notices(at.main, "error")


def test_paste_is_never_read_as_a_path() -> None:
    at = start()
    at.radio(key="inspect.source_kind").set_value("Paste JSON").run()
    at.text_area(key="inspect.paste").set_value(str(SAMPLES / "speech_act_eslint.json")).run()
    (message,) = notices(at.main, "error")
    assert "invalid JSON" in message


def test_upload_simple_format_then_assess_with_an_uploaded_reply() -> None:
    at = start()
    at.radio(key="inspect.source_kind").set_value("Upload a file").run()
    bundle = {"records": [{"text": "The cache is Redis.", "speaker": "Craig"}]}
    at.file_uploader(key="inspect.upload").set_value(("mine.json", json.dumps(bundle).encode(), "application/json"))
    at.run()
    assert_clean(at)
    at.text_area(key="inspect.question").set_value("Which cache?").run()
    use_recorded(at)
    reply = {"requirements": [{"requirement": "cache", "status": "supported", "evidence_refs": ["m1"],
                               "explanation": "m1"}], "reasoning": "r"}
    at.file_uploader(key="inspect.reply_upload").set_value(("reply.json", json.dumps(reply).encode(),
                                                            "application/json"))
    at.run()
    assess(at)
    assert verdicts(at) == ["answerable"]
    assert "recorded reply (its author is not stated), from reply.json" in html(at)


@pytest.mark.parametrize(
    "name, data, expected",
    [
        pytest.param("big.json", b" " * (50 * 1024 * 1024 + 1), "the limit is 50 MB", id="over_50_mb"),
        pytest.param("broken.json", b'{"sections": ', "invalid JSON", id="truncated_json"),
        pytest.param("latin.json", b'{"records": [{"text": "caf\xe9"}]}', "not UTF-8", id="not_utf8"),
        pytest.param("wrong.json", b'{"records": [{"txt": "a"}]}', "$.records[0].text", id="schema"),
    ],
)
def test_bad_uploads_name_the_problem(name: str, data: bytes, expected: str) -> None:
    at = start()
    at.radio(key="inspect.source_kind").set_value("Upload a file").run()
    at.file_uploader(key="inspect.upload").set_value((name, data, "application/json"))
    at.run()
    assert_clean(at)
    (message,) = notices(at.main, "error")
    assert expected in message and name in message


def _ollama(server: ScriptedServer, models: list[str]) -> None:
    server.always("/api/tags", json_reply({"models": [{"name": name} for name in models]}))
    server.always("/api/version", json_reply({"version": "0.9.0"}))
    server.always("/api/show", json_reply({"model_info": {"qwen3.context_length": 32768}}))


def _live(at, server: ScriptedServer, model: str | None = None) -> None:
    at.radio(key="inspect.provider").set_value("Ollama").run()  # a fresh page with no server opens on the recording
    at.text_input(key="inspect.base_url.ollama").set_value(server.base_url).run()
    if model is not None:
        at.selectbox(key="inspect.model.ollama").set_value(model).run()


def test_live_ollama_assessment_with_model_picker_and_preflight(scripted_server: ScriptedServer) -> None:
    sample = load_sample(SAMPLES / "answerable_billing_database.json")
    _ollama(scripted_server, ["qwen3.5:9b", "llama3:latest"])
    scripted_server.script("/api/chat", ollama_chat(json.dumps(sample.recorded_reply)))
    at = start()
    choose_sample(at, "answerable_billing_database")
    _live(at, scripted_server, "llama3:latest")
    assert_clean(at)
    assert at.selectbox(key="inspect.model.ollama").options == ["qwen3.5:9b", "llama3:latest"]
    (ready,) = notices(at.sidebar, "ok")
    assert "Ollama 0.9.0" in ready and "fits" in ready and "32,768" in ready
    assess(at)
    assert verdicts(at) == ["answerable"]
    assert "live model: ollama llama3:latest" in html(at)
    (chat,) = scripted_server.requests_to("/api/chat")
    assert chat.json["model"] == "llama3:latest"


def test_missing_model_is_flagged_before_assessing(scripted_server: ScriptedServer) -> None:
    _ollama(scripted_server, ["llama3:latest"])
    at = start()
    _live(at, scripted_server)
    (warning,) = notices(at.sidebar, "warning")
    assert "ollama pull qwen3.5:9b" in warning


def test_unreachable_server_says_how_to_start_one_and_offers_the_recording() -> None:
    at = start()
    at.radio(key="inspect.provider").set_value("Ollama").run()
    at.text_input(key="inspect.base_url.ollama").set_value(f"http://127.0.0.1:{closed_port()}/v1").run()
    (message,) = notices(at.sidebar, "error")
    assert "ollama serve" in message
    at.button(key="inspect.use_recorded").click().run()
    assert at.radio(key="inspect.provider").value == "Recorded response"


def test_provider_failure_shows_the_remedy_and_never_a_verdict(scripted_server: ScriptedServer) -> None:
    _ollama(scripted_server, ["qwen3.5:9b"])
    scripted_server.script("/api/chat", ollama_error('model "qwen3.5:9b" not found, try pulling it first', 404))
    at = start()
    use_recorded(at)
    assess(at)  # a verdict from an earlier run must not survive the failure below
    assert verdicts(at)
    at.radio(key="inspect.provider").set_value("Ollama").run()
    _live(at, scripted_server)
    assess(at)
    assert verdicts(at) == []
    (message,) = notices(at.main, "error")
    assert "ollama pull qwen3.5:9b" in message and "no verdict" in message


def test_schema_failure_shows_the_raw_excerpt(scripted_server: ScriptedServer) -> None:
    _ollama(scripted_server, ["qwen3.5:9b"])
    scripted_server.always("/api/chat", ollama_chat('{"requirements": []}'))
    at = start()
    _live(at, scripted_server)
    assess(at)
    assert verdicts(at) == []
    (message,) = notices(at.main, "error")
    assert "did not fit the answerability schema" in message and "requirements" in message


def test_the_api_key_never_reaches_the_page(scripted_server: ScriptedServer) -> None:
    secret = "sk-do-not-show-4711"
    sample = load_sample(SAMPLES / "answerable_billing_database.json")
    _ollama(scripted_server, ["qwen3.5:9b"])
    scripted_server.script("/api/chat", ollama_chat(json.dumps(sample.recorded_reply)))
    at = start()
    choose_sample(at, "answerable_billing_database")
    at.radio(key="inspect.provider").set_value("Ollama").run()
    at.text_input(key="inspect.api_key.ollama").set_value(secret).run()
    _live(at, scripted_server)
    assess(at)
    assert verdicts(at) == ["answerable"]
    assert secret not in html(at)
    assert all(secret not in str(e.proto) for e in at.markdown)
    assert scripted_server.requests_to("/api/chat")[0].header("Authorization") == f"Bearer {secret}"


def test_cited_lines_only_folds_the_rest() -> None:
    at = start()
    choose_sample(at, "large_platform_history")
    use_recorded(at)
    assess(at)
    assert len(re.findall(r'<div class="al-line"[^>]*data-line=', html(at))) > 200
    at.toggle(key="inspect.cited_only").set_value(True).run()
    assert_clean(at)
    assert re.findall(r'data-line="(\d+)"', html(at)) == ["20", "58"]


def test_openai_compatible_server_with_a_context_that_does_not_fit(scripted_server: ScriptedServer) -> None:
    from tests.scripted_server import openai_chat

    sample = load_sample(SAMPLES / "large_platform_history.json")
    scripted_server.always("/v1/models", json_reply({"data": [{"id": "local-7b"}]}))
    scripted_server.always("/props", json_reply({"default_generation_settings": {"n_ctx": 2048}}))
    scripted_server.script("/v1/chat/completions", openai_chat(json.dumps(sample.recorded_reply)))
    at = start()
    choose_sample(at, "large_platform_history")
    at.radio(key="inspect.provider").set_value("OpenAI-compatible server").run()
    at.text_input(key="inspect.base_url.openai").set_value(scripted_server.base_url).run()
    # The provider's default (PRME's gpt-4o-mini) comes first and is flagged as missing until one is picked.
    assert at.selectbox(key="inspect.model.openai").options == ["gpt-4o-mini", "local-7b"]
    (missing,) = notices(at.sidebar, "warning")
    assert "'gpt-4o-mini' is not on the OpenAI-compatible server" in missing
    at.selectbox(key="inspect.model.openai").set_value("local-7b").run()
    (warning,) = notices(at.sidebar, "warning")
    assert "does not fit the context window of 2048 tokens" in warning
    assess(at)  # the warning does not block: the server decides
    assert verdicts(at) == [sample.expected.verdict]
    assert "live model: openai local-7b" in html(at)


def test_prmes_prompt_can_be_chosen_in_the_endpoint_panel(scripted_server: ScriptedServer) -> None:
    import hashlib

    sample = load_sample(SAMPLES / "answerable_billing_database.json")
    _ollama(scripted_server, ["qwen3.5:9b"])
    scripted_server.script("/api/chat", ollama_chat(json.dumps(sample.recorded_reply)))
    at = start()
    choose_sample(at, "answerable_billing_database")
    at.radio(key="inspect.provider").set_value("Ollama").run()
    assert at.radio(key="inspect.prompt").value == "answerlens (default)"
    at.radio(key="inspect.prompt").set_value("PRME 0.15 (verbatim)").run()
    _live(at, scripted_server)
    assess(at)
    assert verdicts(at) == ["answerable"]
    (chat,) = scripted_server.requests_to("/api/chat")
    system = chat.json["messages"][0]["content"]
    assert hashlib.sha256(system.encode()).hexdigest().startswith("51db73f0")
    assert "answerability_requirements_v2" in html(at)


@pytest.mark.parametrize(("environ", "says"), [
    pytest.param({}, "Tracing off: set OTEL_EXPORTER_OTLP_ENDPOINT", id="off"),
    pytest.param({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://user:pw-PLANTED@127.0.0.1:6006"},
                 "Tracing on: spans go to http://127.0.0.1:6006/v1/traces (OTLP http/protobuf)", id="on"),
])
def test_sidebar_says_whether_assessments_are_traced_and_where_to(monkeypatch, environ, says) -> None:  # type: ignore[no-untyped-def]
    for key in [key for key in os.environ if key.startswith("OTEL_")]:
        monkeypatch.delenv(key)
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    at = start()
    captions = [caption.value for caption in at.sidebar.caption]
    assert any(caption.startswith(says) for caption in captions), captions
    assert not any("pw-PLANTED" in caption for caption in captions)


@pytest.mark.parametrize("url, said", [
    pytest.param("localhost:11434", "Base URL: 'localhost:11434' has no http:// or https:// — write "
                 "http://localhost:11434/v1", id="no_scheme"),
    pytest.param("http://gpu-host:99999/v1", "Base URL: 'http://gpu-host:99999/v1' has an invalid port (1–65535)",
                 id="bad_port"),
])
def test_an_invalid_base_url_says_what_is_wrong_and_the_model_field_stays(url: str, said: str) -> None:
    at = start()
    at.radio(key="inspect.provider").set_value("Ollama").run()
    at.text_input(key="inspect.model.ollama").set_value("llama3:8b").run()
    at.text_input(key="inspect.base_url.ollama").set_value(url).run()
    assert_clean(at)
    (message,) = notices(at.sidebar, "error")
    assert "Invalid endpoint settings" in message and said in message, message
    assert "Value error" not in message and "settings.base_url" not in message
    assert at.text_input(key="inspect.model.ollama").value == "llama3:8b", "the Model field stays, as typed"

"""The first minute on a machine with no model server (AppTest): a sample opens on its recorded response, a
bundle of one's own is offered the embedded model, and Assess says beside it why it cannot run."""

from __future__ import annotations

import json
import re
import socket

import pytest
from streamlit.testing.v1 import AppTest

from answerlens.samples import load_sample
from tests.app.conftest import APP, assess, html, notices, start, verdicts
from tests.paths import SAMPLES
from tests.scripted_server import ScriptedServer, json_reply, ollama_chat

DEFAULT_SAMPLE = sorted(SAMPLES.glob("*.json"))[0]


@pytest.fixture(autouse=True)
def no_default_server() -> None:
    """These tests describe a machine where nothing answers at Ollama's default address."""
    with socket.socket() as sock:
        sock.settimeout(0.5)
        if sock.connect_ex(("127.0.0.1", 11434)) == 0:
            pytest.skip("a server answers at 127.0.0.1:11434 on this machine")


def blocked(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [re.sub(r"<[^>]+>", "", body).strip()
            for body in re.findall(r'data-assess-blocked="true"[^>]*>(.*?)</p>', html(at), flags=re.S)]


def test_with_no_server_a_sample_opens_on_its_recorded_response_and_says_so() -> None:
    sample = load_sample(DEFAULT_SAMPLE)
    at = start()
    assert at.radio(key="inspect.provider").value == "Recorded response"
    (said,) = [text for text in notices(at.sidebar, "info") if "opened on its recorded response" in text]
    assert "127.0.0.1:11434" in said
    assert not at.button(key="inspect.assess").disabled and blocked(at) == []
    assess(at)
    assert verdicts(at) == [sample.expected.verdict]

    at.button(key="inspect.use_live_model").click().run()  # one click back to a live model
    assert at.radio(key="inspect.provider").value == "Ollama"
    assert 'data-opened-recorded' not in html(at.sidebar)
    assert at.button(key="inspect.assess").disabled
    (reason,) = blocked(at)
    assert reason == "Cannot assess yet: no server answers at http://127.0.0.1:11434/v1: start it with ollama serve"
    assert "<code>ollama serve</code>" in html(at)


def test_a_pasted_bundle_is_offered_the_embedded_model_and_assess_says_to_start_it() -> None:
    data = json.loads(DEFAULT_SAMPLE.read_text())
    at = start()
    at.radio(key="inspect.source_kind").set_value("Paste JSON").run()
    at.text_area(key="inspect.paste").set_value(json.dumps(data["bundle"])).run()
    at.text_area(key="inspect.question").set_value("Which database does billing use?").run()
    at.button(key="inspect.use_embedded").click().run()
    assert at.radio(key="inspect.provider").value == "Embedded model (llama.cpp)"
    assert at.button(key="inspect.assess").disabled
    (reason,) = blocked(at)
    assert "start the embedded model first" in reason


def test_an_empty_question_is_the_reason_given() -> None:
    at = start()
    at.text_area(key="inspect.question").set_value("  ").run()
    assert at.button(key="inspect.assess").disabled
    assert blocked(at) == ["Cannot assess yet: type a question first"]


def test_a_link_opened_fresh_shows_the_runs_own_endpoint_not_a_probe_of_the_default(
        scripted_server: ScriptedServer) -> None:
    sample = load_sample(DEFAULT_SAMPLE)
    scripted_server.always("/api/tags", json_reply({"models": [{"name": "llama3:latest"}]}))
    scripted_server.always("/api/version", json_reply({"version": "0.9.0"}))
    scripted_server.script("/api/chat", ollama_chat(json.dumps(sample.recorded_reply)))
    at = start()
    at.radio(key="inspect.provider").set_value("Ollama").run()
    at.text_input(key="inspect.base_url.ollama").set_value(scripted_server.base_url).run()
    at.selectbox(key="inspect.model.ollama").set_value("llama3:latest").run()
    assess(at)
    evaluation_id = at.query_params["run"]

    linked = AppTest.from_file(APP, default_timeout=30)
    linked.query_params["run"] = evaluation_id
    linked.run()
    assert verdicts(linked) == [sample.expected.verdict]
    assert linked.radio(key="inspect.provider").value == "Ollama"
    assert linked.text_input(key="inspect.base_url.ollama").value == scripted_server.base_url
    assert linked.selectbox(key="inspect.model.ollama").value == "llama3:latest"
    sidebar = html(linked.sidebar)
    assert "data-opened-recorded" not in sidebar and notices(linked.sidebar, "error") == []
    assert "live model: ollama llama3:latest" in html(linked.main)

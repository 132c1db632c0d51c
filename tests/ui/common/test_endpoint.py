"""The endpoint panel's model: settings to a configuration or a named problem, recordings, and the preflight line."""

from __future__ import annotations

import re

import pytest
from pydantic import SecretStr

from answerlens import AnswerabilityConfig
from answerlens.html.markup import Notice, NoticeKind
from answerlens.providers.preflight import Preflight
from answerlens.ui.common import endpoint
from answerlens.ui.common.endpoint import Endpoint
from tests.ui.conftest import sample

SECRET = "sk-never-in-a-key-4711"


@pytest.mark.parametrize(
    "provider, num_ctx, max_tokens",
    [
        pytest.param("ollama", 8192, None, id="ollama_sends_num_ctx"),
        pytest.param("openai", None, None, id="openai_sends_neither"),
        pytest.param("llamacpp", None, 512, id="llamacpp_sends_max_tokens"),
    ],
)
def test_live_settings_become_a_configuration(provider: str, num_ctx: int | None, max_tokens: int | None) -> None:
    settings = Endpoint(provider=provider, model="m", base_url="http://127.0.0.1:9/v1", api_key=SECRET, timeout=7,
                        temperature=0.5, seed=3, num_ctx=8192, max_tokens=512, max_retries=4)
    config = endpoint.make_config(settings)
    assert (config.provider, config.model, config.base_url, config.timeout) == (provider, "m",
                                                                               "http://127.0.0.1:9/v1", 7)
    assert (config.temperature, config.seed, config.max_retries) == (0.5, 3, 4)
    assert config.api_key == SecretStr(SECRET)
    assert (config.num_ctx, config.max_tokens) == (num_ctx, max_tokens)


def test_replay_ignores_the_server_settings() -> None:
    config = endpoint.make_config(Endpoint(provider="replay", model="rec", base_url="http://x", api_key=SECRET))
    assert config == AnswerabilityConfig(provider="replay", model="rec")


@pytest.mark.parametrize(
    "settings, said",
    [
        pytest.param(Endpoint(model="  "), "Model: must be nonempty", id="blank_model"),
        pytest.param(Endpoint(temperature=9.0), "Temperature: must be at most 2", id="temperature_out_of_range"),
        pytest.param(Endpoint(base_url="ftp://example.org"),
                     "Base URL: 'ftp://example.org' is not an http(s) URL such as http://127.0.0.1:11434/v1",
                     id="unsendable_url"),
        pytest.param(Endpoint(base_url="localhost:11434"),
                     "Base URL: 'localhost:11434' has no http:// or https:// — write http://localhost:11434/v1",
                     id="no_scheme"),
        pytest.param(Endpoint(base_url="http://gpu-host:99999/v1"),
                     "Base URL: 'http://gpu-host:99999/v1' has an invalid port (1–65535)", id="bad_port"),
    ],
)
def test_invalid_settings_say_what_is_wrong_in_the_users_words(settings: Endpoint, said: str) -> None:
    """The sidebar's label, what is wrong and the fix: never pydantic's "settings.base_url: Value error"."""
    with pytest.raises(ValueError, match=re.escape(said)):
        endpoint.make_config(settings)
    choice = endpoint.choose(settings)
    assert choice.config is None and choice.problem is not None and choice.problem.startswith(said)
    assert "Value error" not in choice.problem and "settings." not in choice.problem
    assert not choice.recorded


def test_valid_settings_are_a_live_choice() -> None:
    choice = endpoint.choose(Endpoint(model="llama3"))
    assert choice.config is not None and choice.config.model == "llama3" and choice.problem is None
    assert not choice.recorded


def test_preflight_key_never_holds_the_key_but_tells_keys_apart() -> None:
    with_key = endpoint.make_config(Endpoint(api_key=SECRET))
    other = endpoint.make_config(Endpoint(api_key=SECRET + "x"))
    without = endpoint.make_config(Endpoint())
    keys = {endpoint.preflight_key(c) for c in (with_key, other, without)}
    assert len(keys) == 3 and not any(SECRET in key for key in keys)
    assert endpoint.preflight_key(with_key) == endpoint.preflight_key(endpoint.make_config(Endpoint(api_key=SECRET)))


@pytest.mark.parametrize(
    "current, listed, options",
    [
        pytest.param("qwen3.5:9b", ("llama3",), ["qwen3.5:9b", "llama3"], id="current_unlisted_goes_first"),
        pytest.param("llama3", ("a", "llama3"), ["a", "llama3"], id="listed_order_kept"),
        pytest.param("", ("a",), ["a"], id="no_current"),
        pytest.param("", (), [], id="nothing"),
    ],
)
def test_model_options(current: str, listed: tuple[str, ...], options: list[str]) -> None:
    assert endpoint.model_options(current, listed) == options


def test_a_samples_recording_is_replayed_with_its_label() -> None:
    found = sample("speech_act_eslint")
    choice = endpoint.from_sample(found, "speech_act_eslint.json")
    assert choice is not None and choice.recorded
    assert choice.config == AnswerabilityConfig(provider="replay", model=found.recorded_model)
    assert choice.recording == found.recording(source="speech_act_eslint.json")
    assert choice.recording is not None and choice.recording.ref.hand_written
    assert endpoint.from_sample(found.model_copy(update={"recorded_reply": None})) is None


def test_an_uploaded_reply_is_replayed_as_its_exact_text() -> None:
    choice = endpoint.from_reply_file('{"requirements": []}\n', "mine.json")
    assert choice.recorded and choice.recording is not None
    assert choice.recording.text == '{"requirements": []}\n'
    assert choice.recording.ref.note == ("recorded reply (its author is not stated), from mine.json; unbound "
                                         "recording: it does not say which question and context it answered")


def test_replay_without_a_recording() -> None:
    choice = endpoint.without_recording()
    assert choice.recorded and choice.recording is None


OLLAMA = endpoint.make_config(Endpoint(model="qwen3.5:9b"))
OPENAI = endpoint.make_config(Endpoint(provider="openai", model="local", base_url="http://127.0.0.1:8080/v1"))
EMBEDDED = endpoint.make_config(Endpoint(provider="llamacpp", model="smollm2", base_url="http://127.0.0.1:8090/v1"))


@pytest.mark.parametrize(
    "config, check, kind, title, text",
    [
        pytest.param(OLLAMA, Preflight(reachable=False, problem="refused"), "error",
                     "No server answers at http://127.0.0.1:11434", "start it with `ollama serve`", id="ollama_down"),
        pytest.param(OPENAI, Preflight(reachable=False), "error", "No server answers at http://127.0.0.1:8080/v1",
                     "answerlens serve-model", id="openai_down"),
        pytest.param(EMBEDDED, Preflight(reachable=False), "error", "No server answers at", "press Stop, then Start",
                     id="embedded_down"),
        pytest.param(OLLAMA, Preflight(reachable=True, server="Ollama 0.9.0", problem="run `ollama pull x`"),
                     "warning", "Ollama 0.9.0 answers, but:", "ollama pull x", id="problem"),
        pytest.param(OLLAMA, Preflight(reachable=True, problem="p"), "warning", "The server answers, but:", "p",
                     id="problem_unnamed_server"),
        pytest.param(OLLAMA, Preflight(reachable=True, server="Ollama 0.9.0", model_found=True, context_window=32768,
                                       context_tokens_estimate=1200, fits=True), "ok", "Ready",
                     "Ollama 0.9.0 answers at http://127.0.0.1:11434/v1; model qwen3.5:9b is available; "
                     "the context (~1,200 tokens) fits its 32,768-token window", id="ready_fits"),
        pytest.param(OPENAI, Preflight(reachable=True, context_tokens_estimate=2500), "ok", "Ready",
                     "server answers at http://127.0.0.1:8080/v1; the server does not list its models; "
                     "context ~2,500 tokens (the server does not say its window)", id="ready_unknown_window"),
    ],
)
def test_preflight_line(config: AnswerabilityConfig, check: Preflight, kind: str, title: str, text: str) -> None:
    line = endpoint.preflight_line(config, check)
    assert line.kind == kind and line.title.startswith(title)
    assert text in " ".join(filter(None, (line.detail, line.remedy)))
    assert isinstance(line, Notice) and line.kind is NoticeKind(kind), "the one notice type, its kind an enum"

"""The embedded-model choice of the endpoint panel (AppTest): its states, its errors, and the shared host."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from answerlens import local_model
from answerlens.ui.common.local_model import State
from answerlens.ui.common.local_model_view import host
from tests.app.conftest import assert_clean, choose_sample, html, notices, start

EMBEDDED = "Embedded model (llama.cpp)"


@pytest.fixture(autouse=True)
def stopped() -> Iterator[None]:
    """Every test starts and ends with the app's shared server stopped."""
    host().stop()
    yield
    host().stop()


def embedded(at: AppTest) -> None:
    at.radio(key="inspect.provider").set_value(EMBEDDED).run()
    assert_clean(at)


def state(at: AppTest) -> list[str]:
    return re.findall(r'data-local-model="(\w+)"', html(at))


@pytest.mark.local_model
def test_not_started_says_so_and_states_the_caveat() -> None:
    at = start()
    embedded(at)
    assert state(at) == ["not_started"]
    (caveat,) = notices(at.sidebar, "warning")
    assert "only checks the wiring" in caveat and "verdicts mean nothing" in caveat
    assert at.button(key="inspect.local_start").proto.label == "Start"
    assert at.button(key="inspect.assess").disabled  # no endpoint until the model runs


@pytest.mark.parametrize(
    "content, message",
    [
        pytest.param(None, "GGUF file not found", id="missing"),
        pytest.param(b"not a model at all", "is not a GGUF model file", id="not_gguf"),
    ],
)
def test_a_bad_gguf_path_is_refused_before_starting(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "model.gguf"
    if content is not None:
        path.write_bytes(content)
    at = start()
    embedded(at)
    at.text_input(key="inspect.gguf").set_value(str(path)).run()
    assert_clean(at)
    assert state(at) == ["error"]
    (error,) = notices(at.sidebar, "error")
    assert message in error and "give the path of a complete .gguf model file" in error
    assert not [b for b in at.button if b.key == "inspect.local_start"]
    assert "only checks the wiring" not in " ".join(notices(at.sidebar, "warning"))


def test_missing_runtime_says_run_make_local_model(monkeypatch: pytest.MonkeyPatch) -> None:
    # Simulates a machine without xllamacpp: the library's own check answers no.
    monkeypatch.setattr(local_model, "runtime_installed", lambda: False)
    at = start()
    embedded(at)
    assert state(at) == ["error"]
    (error,) = notices(at.sidebar, "error")
    assert "not installed" in error and "make local-model" in error
    assert at.button(key="inspect.local_start").disabled


@pytest.mark.local_model
def test_a_truncated_gguf_fails_to_start_with_a_remedy(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(local_model.bundled_gguf().read_bytes()[:4096])
    at = start()
    embedded(at)
    at.text_input(key="inspect.gguf").set_value(str(broken)).run()
    at.button(key="inspect.local_start").click().run(timeout=60)
    assert_clean(at)
    assert state(at) == ["error"]
    (error,) = notices(at.sidebar, "error")
    assert "could not load" in error and "complete .gguf model file" in error
    assert at.button(key="inspect.local_start").proto.label == "Start again"
    at.text_input(key="inspect.gguf").set_value("").run()  # another model: that error is not its state
    assert state(at) == ["not_started"]


@pytest.mark.local_model
def test_start_shows_the_running_server_and_is_shared_then_stop() -> None:
    at = start()
    embedded(at)
    choose_sample(at, "speech_act_eslint")
    at.button(key="inspect.local_start").click().run(timeout=60)
    assert_clean(at)
    assert state(at) == ["running"]
    status = host().status
    running = " ".join(notices(at.sidebar, "ok"))
    assert f"running at {status.base_url}" in running and "SmolLM2-135M-Instruct" in running
    assert "started at" in running
    assert not at.button(key="inspect.assess").disabled
    assert at.number_input(key="inspect.timeout.llamacpp").value == 300.0
    # A second session sees the same server, running, without starting another.
    other = start("pages/trials.py")
    other.radio(key="trials.mode").set_value("Run a trial").run()  # the page opens on the shipped example first
    other.radio(key="trials.provider").set_value(EMBEDDED).run()
    assert state(other) == ["running"] and f"running at {status.base_url}" in " ".join(notices(other.sidebar, "ok"))
    at.button(key="inspect.local_stop").click().run()
    assert state(at) == ["not_started"] and host().status.state == State.NOT_STARTED

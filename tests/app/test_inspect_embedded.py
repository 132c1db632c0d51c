"""A live assessment on the Inspect page with the embedded model (AppTest): it runs in the background, shows its
stage (prompt processed, tokens generated), can be cancelled, and a context too long is said up front.

The embedded server is stood in for by a loopback server that streams as llama.cpp does, so the stages and the
cancel are driven by the test's events, never by sleeps; the real model is exercised in tests/test_local_model.py.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from answerlens import local_model
from answerlens.local_model import WIRING_MARK, LocalServer
from answerlens.ui.common import report_file as report_download
from answerlens.ui.common.local_model_view import host
from answerlens.ui.inspect.job import AssessJob
from tests.app.conftest import assert_clean, choose_sample, html, notices, settle, start, verdicts
from tests.scripted_server import (
    CACHE_REPLY,
    Reply,
    ScriptedServer,
    json_reply,
    llamacpp_events,
    pieces,
    sse,
    sse_bytes,
)

CHAT = "/v1/chat/completions"

pytestmark = pytest.mark.local_model


@pytest.fixture
def embedded(scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedServer]:
    """The app's embedded-model host, started on the loopback server instead of a GGUF."""

    def starter(gguf: Path | None, *, ctx: int) -> LocalServer:
        return LocalServer(base_url=scripted_server.base_url, model_path=Path("SmolLM2-135M-Instruct.Q4_1.gguf"),
                           model_name="SmolLM2-135M-Instruct (stand-in)", ctx=ctx, started_in=0.0)

    monkeypatch.setattr(local_model, "start_server", starter)
    scripted_server.always("/v1/models", json_reply({"data": [{"id": "smollm2"}]}))
    scripted_server.always("/props", json_reply({"default_generation_settings": {"n_ctx": 8192}}))
    host().stop()
    yield scripted_server
    host().stop()


def page(sample: str = "speech_act_eslint") -> AppTest:
    at = start()
    choose_sample(at, sample)
    at.radio(key="inspect.provider").set_value("Embedded model (llama.cpp)").run()
    at.button(key="inspect.local_start").click().run()
    assert_clean(at)
    return at


def job(at: AppTest) -> AssessJob:
    running: AssessJob = at.session_state["inspect.job"]
    return running


def stage(at: AppTest) -> tuple[str, str] | None:
    found = re.search(r'data-assess-stage="(\w+)" data-generated="(\d+)"', html(at))
    return (found.group(1), found.group(2)) if found else None


def paused_stream(release: threading.Event, hung_up: threading.Event, finished: threading.Event) -> Reply:
    """Prompt progress and one token, then nothing until ``release``; the rest must meet a closed connection."""

    def stream() -> Iterator[bytes]:
        everything = llamacpp_events(pieces(CACHE_REPLY))
        try:
            yield from sse_bytes(everything[:3])
            release.wait(30)
            yield from sse_bytes(everything[3:] * 200)
            finished.set()
        finally:
            hung_up.set()

    return Reply(content_type="text/event-stream", stream=stream)


def test_the_stage_is_shown_while_generating_and_cancel_stops_the_call(embedded: ScriptedServer) -> None:
    release, hung_up, finished = threading.Event(), threading.Event(), threading.Event()
    embedded.script(CHAT, paused_stream(release, hung_up, finished))
    at = page()
    at.button(key="inspect.assess").click().run()
    running = job(at)
    assert running.job.wait_for(lambda j: j.progress is not None and j.progress.generated >= 1, 30)
    at.run()
    assert_clean(at)
    assert stage(at) == ("generating", "1")
    assert "prompt processed (321 tokens); 1 token generated" in html(at)
    assert at.button(key="inspect.assess").disabled  # one run at a time
    assert not verdicts(at)
    at.button(key="inspect.cancel").click().run()
    assert running.job.wait(30)
    settle(at)
    (cancelled,) = notices(at.main, "warning")
    assert "Cancelled — no verdict was produced" in cancelled and "1 token generated" in cancelled
    assert not verdicts(at) and stage(at) is None
    release.set()
    assert hung_up.wait(10) and not finished.is_set()  # the server met a closed connection
    assert not at.button(key="inspect.assess").disabled


def test_a_streamed_run_ends_with_its_verdict_in_the_history(embedded: ScriptedServer) -> None:
    embedded.script(CHAT, sse(llamacpp_events(pieces(CACHE_REPLY))))
    at = page()
    at.button(key="inspect.assess").click().run()
    settle(at)
    assert verdicts(at) and stage(at) is None
    assert "live model: llamacpp smollm2" in html(at)
    # The bundled model's verdict carries the wiring-check mark on the page and in the exported report.
    verdict = re.search(r'<div class="al-verdict.*?</div></div>', html(at), flags=re.S)
    assert verdict is not None and WIRING_MARK in verdict.group(0)
    report = next(b for b in at.get("download_button") if b.proto.label == report_download.LABEL)
    assert report is not None
    body = embedded.requests_to(CHAT)[0].json
    assert body["stream"] is True and body["response_format"]["json_schema"]["schema"]["properties"][
        "requirements"]["maxItems"] == 3


def test_a_context_too_long_is_said_before_and_when_the_server_refuses(embedded: ScriptedServer) -> None:
    embedded.always("/props", json_reply({"default_generation_settings": {"n_ctx": 2048}}))
    refusal: dict[str, Any] = {"error": {"code": 400, "type": "exceed_context_size_error", "message":
                               "request (9542 tokens) exceeds the available context size (2048 tokens), try "
                               "increasing it"}}
    embedded.script(CHAT, Reply(status=400, body=json.dumps(refusal).encode()))
    at = page("large_platform_history")
    (before,) = [n for n in notices(at.sidebar, "warning") if "does not fit" in n]
    assert "context window of 2048 tokens" in before and "--ctx" in before
    at.button(key="inspect.assess").click().run()  # the warning does not block: the server decides
    settle(at)
    (error,) = notices(at.main, "error")
    assert "cannot take this context" in error and "9542 tokens" in error and "--ctx" in error
    assert not verdicts(at)

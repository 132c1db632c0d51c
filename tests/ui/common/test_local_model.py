"""The app's embedded-model host and what the panel shows of it (no server is started: a starter is injected)."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from answerlens import local_model
from answerlens.errors import LocalModelError
from answerlens.local_model import LocalServer
from answerlens.ui.common.local_model import (
    BUNDLED_MODEL,
    LocalModelHost,
    State,
    Status,
    gguf_path,
    remedy_for,
    status_html,
)

GGUF = Path("/models/qwen2.5-7b-instruct-q4_k_m.gguf")


class Starter:
    """Stands in for ``local_model.start_server``: counts starts, can fail, and hands out real LocalServers."""

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error
        self.started: list[Path | None] = []
        self.servers: list[LocalServer] = []

    def __call__(self, gguf: Path | None, *, ctx: int) -> LocalServer:
        self.started.append(gguf)
        if self.error is not None:
            raise self.error
        server = LocalServer(base_url=f"http://127.0.0.1:{8090 + len(self.started)}/v1",
                             model_path=gguf or Path("SmolLM2-135M-Instruct.gguf"), model_name="smol", ctx=ctx,
                             started_in=1.5, _server=object())
        self.servers.append(server)
        return server


def test_start_runs_once_per_model_and_stop_frees_it() -> None:
    starter = Starter()
    host = LocalModelHost(starter)
    status = host.start(None)
    assert status.state == State.RUNNING and status.serves(None) and not status.serves(GGUF)
    assert (status.base_url, status.model, status.started_in) == ("http://127.0.0.1:8091/v1", BUNDLED_MODEL, 1.5)
    assert host.start(None) is status and starter.started == [None]
    host.stop()
    assert host.status == Status(State.NOT_STARTED) and not starter.servers[0].running


def test_another_model_stops_the_running_one_first() -> None:
    starter = Starter()
    host = LocalModelHost(starter)
    host.start(None)
    status = host.start(GGUF)
    assert starter.started == [None, GGUF] and not starter.servers[0].running and starter.servers[1].running
    assert status.serves(GGUF) and status.model == GGUF.stem


@pytest.mark.parametrize(
    "error, message, remedy",
    [
        pytest.param(LocalModelError("could not load /m.gguf"), "could not load", "complete .gguf", id="library_error"),
        pytest.param(RuntimeError("boom"), "RuntimeError: boom", "server log", id="unexpected"),
    ],
)
def test_a_failed_start_is_a_status_never_an_exception(error: Exception, message: str, remedy: str) -> None:
    host = LocalModelHost(Starter(error))
    status = host.start(GGUF)
    assert status.state == State.ERROR and status.gguf == GGUF and host.status == status
    assert message in (status.error or "") and remedy in (status.remedy or "")


@pytest.mark.local_model
def test_a_missing_file_fails_with_the_real_starter(tmp_path: Path) -> None:
    status = LocalModelHost().start(tmp_path / "absent.gguf")
    assert status.state == State.ERROR and "GGUF file not found" in (status.error or "")


def test_while_starting_another_start_waits_its_turn() -> None:
    release = threading.Event()
    entered = threading.Event()

    def slow(gguf: Path | None, *, ctx: int) -> LocalServer:
        entered.set()
        release.wait(10)
        return Starter()(gguf, ctx=ctx)

    host = LocalModelHost(slow)
    thread = threading.Thread(target=host.start, args=(None,))
    thread.start()
    assert entered.wait(10)
    assert host.start(GGUF).state == State.STARTING and host.status.gguf is None
    release.set()
    thread.join(10)
    assert host.status.state == State.RUNNING


def test_runtime_problem_only_without_the_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_model, "runtime_installed", lambda: True)
    assert LocalModelHost().runtime_problem() is None
    monkeypatch.setattr(local_model, "runtime_installed", lambda: False)
    problem = LocalModelHost().runtime_problem()
    assert problem is not None and problem.state == State.ERROR and "make local-model" in (problem.remedy or "")


def test_gguf_field(tmp_path: Path) -> None:
    assert gguf_path("  ") is None and gguf_path("''") is None
    with pytest.raises(LocalModelError, match="GGUF file not found"):
        gguf_path("/nowhere/model.gguf")
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + b"\0" * 64)
    assert gguf_path(f' "{model}" ') == model.resolve()


@pytest.mark.parametrize(
    "message, remedy",
    [
        pytest.param("the llama.cpp runtime (xllamacpp) is not installed", "make local-model", id="not_installed"),
        pytest.param("port 8080 on 127.0.0.1 is already in use", "restart the app", id="port_in_use"),
        pytest.param("/m.gguf is not a GGUF model file", "complete .gguf model file", id="not_gguf"),
        pytest.param("the server did not become healthy in 120 s", "smaller GGUF", id="slow_load"),
        pytest.param("something else", "server log", id="other"),
    ],
)
def test_remedies(message: str, remedy: str) -> None:
    assert remedy in remedy_for(message)


@pytest.mark.parametrize(
    "status, gguf, box, text",
    [
        pytest.param(Status(State.NOT_STARTED), None, "not_started", "Start loads the bundled SmolLM2-135M",
                     id="not_started"),
        pytest.param(Status(State.STARTING, gguf=GGUF), GGUF, "starting", f"loading {GGUF.name}", id="starting"),
        pytest.param(Status(State.RUNNING, base_url="http://127.0.0.1:8091/v1", model_name="smol",
                            model_path=GGUF, started_at=0.0, started_in=2.25), GGUF, "running",
                     f"smol · {GGUF.name} · started at", id="running"),
        pytest.param(Status(State.ERROR, error="<b>could not load</b>", remedy="give a path"), GGUF, "error",
                     "&lt;b&gt;could not load&lt;/b&gt;", id="error_escaped"),
    ],
)
def test_status_html(status: Status, gguf: Path | None, box: str, text: str) -> None:
    html = status_html(status, gguf)
    assert re.match(rf'<div data-local-model="{box}">', html) and text in html
    assert "<b>" not in html

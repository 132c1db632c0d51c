"""The embedded llama.cpp server: real start-up, and the clear errors around it."""

import socket
from pathlib import Path

import httpx
import pytest

from answerlens.errors import LocalModelError
from answerlens.localmodel import bundled_gguf, check_gguf, start_server

pytestmark = pytest.mark.localmodel


def test_bundled_model_is_installed_by_the_setup() -> None:
    path = bundled_gguf()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert check_gguf(path) == path


@pytest.mark.parametrize(
    "content, message",
    [
        pytest.param(None, "GGUF file not found", id="missing"),
        pytest.param(b"not a model at all", "is not a GGUF model file", id="not_gguf"),
    ],
)
def test_bad_gguf_is_refused_before_loading(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "model.gguf"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(LocalModelError, match=message):
        start_server(path)


def test_truncated_gguf_fails_cleanly(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(bundled_gguf().read_bytes()[:4096])
    with pytest.raises(LocalModelError, match="could not load"):
        start_server(broken)


def test_busy_port_is_reported() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        with pytest.raises(LocalModelError, match=f"port {port} on 127.0.0.1 is already in use"):
            start_server(port=port)


def test_server_starts_answers_and_stops() -> None:
    server = start_server(ctx=2048)
    try:
        assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
        assert httpx.get(server.base_url.removesuffix("/v1") + "/health", timeout=5).json()["status"] == "ok"
        assert httpx.get(server.base_url + "/models", timeout=5).status_code == 200
    finally:
        server.stop()
    assert not server.running

"""A real Arize Phoenix server on 127.0.0.1, from its own virtualenv (``make phoenix`` builds it; Phoenix pins
many packages, so it never shares ours), with its own working folder; spans are read back through its REST API."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.paths import REPO

VENV = Path(os.environ.get("ANSWERLENS_PHOENIX_VENV", REPO / "tests" / ".venv-phoenix"))
"""``make phoenix`` builds ``tests/.venv-phoenix``; ``ANSWERLENS_PHOENIX_VENV`` points at another one."""
STARTUP_SECONDS = 240.0
"""Phoenix migrates its database and builds its app on start: ~40 s on a busy machine; this is a ceiling."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Phoenix:
    url: str
    process: subprocess.Popen[bytes]
    log: Path
    key: str | None = None
    """The API key this Phoenix requires (None: it requires none); the test's own reads send it."""

    def get(self, path: str) -> Any:
        headers = {"authorization": f"Bearer {self.key}"} if self.key else {}
        with urllib.request.urlopen(urllib.request.Request(self.url + path, headers=headers), timeout=10) as response:
            return json.loads(response.read())

    def spans(self, project: str = "default") -> list[dict[str, Any]]:
        """Every span of the project, through ``GET /v1/projects/{project}/spans`` (paged)."""
        spans: list[dict[str, Any]] = []
        cursor = None
        while True:
            page = self.get(f"/v1/projects/{project}/spans?limit=1000" + (f"&cursor={cursor}" if cursor else ""))
            spans += page["data"]
            cursor = page.get("next_cursor")
            if not cursor:
                return spans

    def wait_for_spans(self, predicate: Any, project: str = "default", ceiling: float = 60.0) -> list[dict[str, Any]]:
        """Poll until ``predicate(spans)`` holds: Phoenix inserts received spans in the background."""
        deadline = time.monotonic() + ceiling
        while True:
            try:
                spans = self.spans(project)
            except urllib.error.HTTPError as exc:  # the project appears with its first span
                if exc.code != 404:
                    raise
                spans = []
            if predicate(spans) or time.monotonic() > deadline:
                return spans
            time.sleep(0.2)  # polling Phoenix's own API: the spans' arrival is not an event we can wait on


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=2) as response:
            return bool(response.status == 200)
    except (OSError, urllib.error.URLError):
        return False


def start_phoenix(work: Path, env: dict[str, str] | None = None) -> Phoenix:
    """Start Phoenix in ``work``; ``env`` adds settings (e.g. authentication)."""
    executable = VENV / "bin" / "phoenix"
    if not executable.exists():
        pytest.skip(f"Phoenix's virtualenv is missing: build it with `make phoenix` (or set ANSWERLENS_PHOENIX_VENV)"
                    f" — looked for {executable}")
    port, grpc_port = free_port(), free_port()
    env = {**os.environ, "PHOENIX_WORKING_DIR": str(work), "PHOENIX_PORT": str(port),
           "PHOENIX_GRPC_PORT": str(grpc_port), "PHOENIX_HOST": "127.0.0.1", "PHOENIX_TELEMETRY_ENABLED": "false",
           **(env or {})}
    env = {key: value for key, value in env.items() if not key.startswith("OTEL_")}
    log = work / "phoenix.log"
    process = subprocess.Popen([str(executable), "serve"], env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    phoenix = Phoenix(f"http://127.0.0.1:{port}", process, log)
    deadline = time.monotonic() + STARTUP_SECONDS
    while not _healthy(phoenix.url):
        if process.poll() is not None or time.monotonic() > deadline:
            stop(phoenix)
            pytest.fail(f"Phoenix did not start (exit {process.returncode}): {log.read_text()[-2000:]}")
        time.sleep(0.25)  # polling /healthz: the server's readiness is not an event we can wait on otherwise
    return phoenix


def stop(phoenix: Phoenix) -> None:
    phoenix.process.terminate()
    try:
        phoenix.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        phoenix.process.kill()
        phoenix.process.wait()


@pytest.fixture(scope="session")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
    server = start_phoenix(tmp_path_factory.mktemp("phoenix"))
    try:
        yield server
    finally:
        stop(server)


ADMIN_SECRET = "admin-secret-0123456789abcdefghijklmnop"
"""With authentication on, Phoenix takes its admin secret as a bearer API key (phoenix.server.bearer_auth)."""


@pytest.fixture(scope="session")
def phoenix_with_key(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
    """A Phoenix that requires an API key (``ADMIN_SECRET`` is one)."""
    server = start_phoenix(tmp_path_factory.mktemp("phoenix-auth"), env={
        "PHOENIX_ENABLE_AUTH": "true", "PHOENIX_SECRET": "phoenix-secret-0123456789abcdefghijklmnop",
        "PHOENIX_ADMIN_SECRET": ADMIN_SECRET})
    server.key = ADMIN_SECRET
    try:
        yield server
    finally:
        stop(server)

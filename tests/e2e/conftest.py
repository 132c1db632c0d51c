"""One real ``streamlit run`` for the whole session, and a headless Chromium (Debian's) driven by Playwright."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.paths import REPO

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS_ENV = "ANSWERLENS_SCREENSHOTS"
"""When set, the walk-through tests save page screenshots into this directory (e.g. ``docs``)."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as response:
            return response.status == 200 and response.read().strip() == b"ok"
    except OSError:
        return False


@pytest.fixture(scope="session")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``streamlit run app.py`` on a free loopback port; waits for /_stcore/health, stops it afterwards."""
    port = _free_port()
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    command = [str(Path(sys.executable).with_name("streamlit")), "run", "app.py", "--server.address", "127.0.0.1",
               "--server.headless", "true", "--server.port", str(port), "--browser.gatherUsageStats", "false"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with log.open("w") as output:
        process = subprocess.Popen(command, cwd=REPO, stdout=output, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not _healthy(url):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"streamlit did not become healthy:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: run `make chromium` (Debian's chromium package)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def screenshots() -> Path | None:
    target = os.environ.get(SCREENSHOTS_ENV)
    if not target:
        return None
    path = Path(target)
    path.mkdir(parents=True, exist_ok=True)
    return path

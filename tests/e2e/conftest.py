"""One real ``streamlit run`` for the whole session, and a headless Chromium (Debian's) driven by Playwright."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.paths import REPO

TIMEOUT = 120_000
"""Milliseconds to wait, at most, for an element or a finished run: a ceiling for a busy machine, never a pace
(every wait ends as soon as the page says it is ready)."""
READY = '[data-testid="stApp"][data-test-script-state="notRunning"]'
"""Streamlit's own mark that no script run is in progress."""
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


@contextlib.contextmanager
def streamlit_server(log: Path, data_dir: Path | None = None) -> Iterator[str]:
    """``streamlit run app.py`` on a free loopback port; waits for /_stcore/health, stops it afterwards.

    Its stored runs go to ``data_dir`` (default: a folder beside the log), never the user's data folder.
    """
    port = _free_port()
    command = [str(Path(sys.executable).with_name("streamlit")), "run", "app.py", "--server.address", "127.0.0.1",
               "--server.headless", "true", "--server.port", str(port), "--browser.gatherUsageStats", "false"]
    data = data_dir if data_dir is not None else log.parent / "answerlens-data"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "ANSWERLENS_DATA_DIR": str(data)}
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


@pytest.fixture(scope="session")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with streamlit_server(tmp_path_factory.mktemp("streamlit") / "server.log") as url:
        yield url


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


@pytest.fixture
def page(browser: Any, app_url: str) -> Iterator[Any]:
    """A fresh browser session on the app; afterwards: no exception box, no dialog, no failed script."""
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_url)
    page = context.new_page()
    dialogs: list[str] = []
    errors: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(app_url)
    wait_ready(page, "inspect")
    yield page
    try:
        assert page.locator('[data-testid="stException"]').count() == 0
        assert dialogs == [], f"a dialog fired: {dialogs}"
        assert not [e for e in errors if "alert" in e or "xss" in e], errors
    finally:
        context.close()


def runs(page: Any) -> int:
    """How many runs this browser session's page has drawn to the end (its ``data-al-run`` mark; 0: none yet)."""
    value = page.evaluate("() => Math.max(0, ...[...document.querySelectorAll('[data-al-run]')]"
                          ".map(e => Number(e.dataset.alRun)))")
    return int(value)


def wait_ready(page: Any, name: str | None = None, *, after: int = 0, timeout: int = TIMEOUT) -> None:
    """Wait until a run later than ``after`` has drawn the page's readiness mark (of page ``name`` when given) and
    no run is in progress."""
    selector = f'[data-al-ready="{name}"]' if name else "[data-al-ready]"
    page.wait_for_function(
        """([selector, after, ready]) => [...document.querySelectorAll(selector)]
             .some(e => Number(e.dataset.alRun) > after) && document.querySelector(ready) !== null""",
        arg=[selector, after, READY], polling=50, timeout=timeout)


def settle(page: Any) -> None:
    """Wait until the app reports no script run, after a grace for the server to start the rerun an interaction
    asked for (the app shows a run only once the server starts it). Where the interaction reruns the page, prefer
    ``rerun``, which waits for that very run."""
    page.wait_for_timeout(150)
    page.locator(READY).wait_for(timeout=TIMEOUT)


def rerun(page: Any, action: Any) -> None:
    """Do ``action`` (a click, a choice) and wait for the page run it causes to draw its readiness mark."""
    before = runs(page)
    action()
    wait_ready(page, after=before)


def choose(page: Any, label: str, option: str) -> None:
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text=label).first
    choice = page.get_by_role("option", name=re.compile(re.escape(option))).first
    _open(box, choice)
    if choice.get_attribute("aria-selected", timeout=TIMEOUT) == "true":  # choosing it again reruns nothing
        choice.click()
        settle(page)
        return
    rerun(page, choice.click)


def _open(box: Any, choice: Any, attempts: int = 3) -> None:
    """Open a selectbox's list until ``choice`` shows: a click that lands while a folding sidebar or a rerun is
    still moving the page opens nothing, so the click is made again (each wait a third of the ceiling)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(attempts):
        box.click()
        try:
            choice.wait_for(state="attached", timeout=TIMEOUT // attempts)
            return
        except PlaywrightTimeout:
            if attempt == attempts - 1:
                raise


def radio(page: Any, group: str, option: str) -> None:
    target = page.locator('[data-testid="stRadio"]').filter(has_text=group).get_by_text(option, exact=True)
    if target.locator("xpath=ancestor::label//input").first.is_checked():
        return  # already chosen: nothing reruns
    rerun(page, target.click)


def source_kind(page: Any, option: str) -> None:
    target = page.locator('[data-testid="stMain"] [data-testid="stRadio"]').first.get_by_text(option, exact=True)
    if target.locator("xpath=ancestor::label//input").first.is_checked():
        return
    rerun(page, target.click)


def style(page: Any, selector: str, prop: str) -> str:
    return page.eval_on_selector(selector, f"e => getComputedStyle(e).{prop}")


def shoot(page: Any, screenshots: Path | None, name: str, *, charts: bool = False) -> None:
    """Save the whole page at the viewport's width as ``screenshots / name``: the walk-throughs' ``inspect.png``
    (with ``ANSWERLENS_SCREENSHOTS=docs``: docs/inspect.png), the width and theme shots' ``screens/…``. Streamlit
    scrolls inside its own container, so the viewport grows to fit it; with ``charts``, every chart has drawn."""
    if screenshots is None:
        return
    target = screenshots / name
    target.parent.mkdir(parents=True, exist_ok=True)
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": page.viewport_size["width"], "height": min(max(int(height), 900), 12000)})
    page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 0)")
    settle(page)
    if charts:
        drawn(page)
    page.wait_for_timeout(400)  # only when saving a picture: fonts and charts finish painting
    page.screenshot(path=str(target))


def drawn(page: Any) -> None:
    """Wait until every chart on the page has drawn its title (plotly draws after the script run ends)."""
    charts = page.locator('[data-testid="stPlotlyChart"]')
    for index in range(charts.count()):
        charts.nth(index).locator(".gtitle").first.wait_for(timeout=TIMEOUT)
    settle(page)

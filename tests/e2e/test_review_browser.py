"""The Review page in a real Chromium, with the keyboard only: five stored runs labelled with 1–4, seen stored (in
the run store's file), counted (the agreement figures) and exported (the labels download); a reloaded page keeps
them; editing a stored run in the file voids its label. Also: n puts the cursor in the note and shortcuts are off
while typing there; the page at a phone's width."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from answerlens.review.labels import LabelStore
from answerlens.run_store import RunStore
from tests.e2e.conftest import TIMEOUT, rerun, runs, settle, shoot, streamlit_server, wait_ready
from tests.review.helpers import filled

pytestmark = pytest.mark.e2e

KEYS = ["3", "4", "3", "2", "1"]
"""Newest first: the plan cited as fact (insufficient), the deploy freeze (conflicting), table tennis
(insufficient), the checkout migration (partial), billing (answerable)."""


def _position(page: Any) -> dict[str, str]:
    found = page.locator('[data-queue="position"]')
    return {name: found.get_attribute(f"data-{name}") for name in ("index", "total", "left")}


def _counted(page: Any) -> str:
    return page.locator('[data-agreement="summary"]').get_attribute("data-n")


def _press(page: Any, key: str) -> None:
    rerun(page, lambda: page.keyboard.press(key))


def _open(page: Any, url: str) -> None:
    """Load the page, then wait until its key bindings answer: right after a page load (on a cold server) a first
    key can be lost before Streamlit has bound its shortcuts, so a harmless move is pressed until one reruns the
    page, then the queue goes back to its first item (moves stop at either end)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.goto(url)
    wait_ready(page, "review")
    for _ in range(10):
        before = runs(page)
        page.keyboard.press("ArrowRight")
        try:
            wait_ready(page, after=before, timeout=5_000)
            break
        except PlaywrightTimeout:
            continue
    while _position(page)["index"] != "1":
        _press(page, "ArrowLeft")


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("ANSWERLENS_REVIEWER", "ann")
    data = tmp_path / "data"
    # Replaying the samples runs an event loop, which Playwright's own loop in this thread forbids: another thread.
    filling = threading.Thread(target=filled, args=(data / "runs.sqlite3",))
    filling.start()
    filling.join()
    assert len(RunStore(data / "runs.sqlite3").runs()) == 5
    with streamlit_server(tmp_path / "server.log", data_dir=data) as url:
        yield url, data / "runs.sqlite3"


def test_five_runs_labelled_with_the_keyboard_are_stored_counted_exported_kept_and_voided(
        browser: Any, app: tuple[str, Path], screenshots: Path | None) -> None:
    url, store_path = app
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    _open(page, f"{url}/review")
    assert _position(page) == {"index": "1", "total": "5", "left": "5"}
    for done, key in enumerate(KEYS, start=1):
        _press(page, key)
        assert _position(page)["left"] == str(5 - done)
    stored = LabelStore(RunStore(store_path)).labels()
    assert sorted(label.verdict.value for label in stored) == sorted(
        ["insufficient", "conflicting", "insufficient", "partial", "answerable"])
    assert {label.reviewer for label in stored} == {"ann"}
    assert _counted(page) == "5"
    assert page.locator('[data-agreement="unsafe"]').get_attribute("data-count") == "1"

    with page.expect_download() as download:
        page.get_by_role("button", name="Labels (JSON lines)").click()
    lines = Path(download.value.path()).read_text().splitlines()
    assert len(lines) == 5 and {json.loads(line)["reviewer"] for line in lines} == {"ann"}

    _press(page, "ArrowLeft")
    shoot(page, screenshots, "review.png")
    _open(page, f"{url}/review")
    assert _counted(page) == "5" and _position(page)["left"] == "0", "a reloaded page keeps the labels"

    with sqlite3.connect(store_path) as db:  # anyone with the file can edit a run; it then no longer verifies
        db.execute("UPDATE runs SET question = 'Which broker did we pick? (edited)' WHERE number = 3")
    page.reload()
    wait_ready(page, "review")
    assert _counted(page) == "4", "the edited run's label is void: counted nowhere"
    void = page.locator('[data-agreement="void"]').inner_text()
    assert "run 3 does not verify" in void and "insufficient" in void
    context.close()


def test_n_writes_a_note_and_the_keys_are_off_while_typing(browser: Any, app: tuple[str, Path],
                                                           screenshots: Path | None) -> None:
    url, store_path = app
    context = browser.new_context(viewport={"width": 390, "height": 900})
    page = context.new_page()
    _open(page, f"{url}/review")
    page.keyboard.press("n")
    page.wait_for_function("() => document.activeElement && document.activeElement.tagName === 'TEXTAREA'",
                           timeout=TIMEOUT)
    page.keyboard.type("cited a plan, 1 2 3 j k u")
    settle(page)
    assert _position(page) == {"index": "1", "total": "5", "left": "5"}, "typing labelled or moved nothing"
    rerun(page, lambda: page.keyboard.press("Escape"))
    _press(page, "3")
    [label] = LabelStore(RunStore(store_path)).labels()
    assert label.note == "cited a plan, 1 2 3 j k u" and label.verdict.value == "insufficient"
    _press(page, "u")
    assert LabelStore(RunStore(store_path)).labels() == [] and _position(page)["left"] == "5"
    overflow = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollWidth > 400")
    assert not overflow, "nothing wider than a phone's screen"
    shoot(page, screenshots, "review-phone.png")
    context.close()

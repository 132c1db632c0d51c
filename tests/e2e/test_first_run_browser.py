"""The first minute on a fresh page, in a real browser: nothing the user does while the page draws loses an input."""

from __future__ import annotations

from typing import Any

import pytest

from answerlens.samples import load_sample
from tests.e2e.conftest import TIMEOUT, settle, wait_ready
from tests.paths import SAMPLES

pytestmark = pytest.mark.e2e

LOADS = 6
"""Fresh loads per test: before the fix about half of them lost the question."""


def _default_sample_question() -> str:
    first = sorted(path for path in SAMPLES.glob("*.json"))[0]
    return load_sample(first).question


def test_a_sidebar_click_while_the_first_run_draws_keeps_the_question(browser: Any, app_url: str) -> None:
    question = _default_sample_question()
    lost = []
    for attempt in range(LOADS):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            page = context.new_page()
            page.goto(app_url)
            # As soon as the option can be clicked, not when the page is done.
            sidebar = page.locator('[data-testid="stSidebar"] [data-testid="stRadio"]').first
            sidebar.get_by_text("Recorded response", exact=True).click(timeout=TIMEOUT)
            settle(page)
            wait_ready(page, "inspect")
            box = page.get_by_label("Question")
            shown = box.input_value()
            if shown != question or page.get_by_role("button", name="Assess", exact=True).is_disabled():
                lost.append((attempt, shown))
        finally:
            context.close()
    assert lost == [], f"the question box lost its value on {len(lost)} of {LOADS} fresh loads: {lost}"

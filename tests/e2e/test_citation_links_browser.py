"""Citation chips jump to their context line, and the line's requirement number jumps back to the requirement's
row, in a real Chromium (the page's own scrolling, not only the links' markup)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from answerlens.samples import load_sample
from tests.e2e.conftest import TIMEOUT, choose, radio, settle
from tests.paths import SAMPLES

pytestmark = pytest.mark.e2e


def test_a_chip_jumps_to_its_line_and_the_line_back_to_its_requirement(page: Any) -> None:
    sample = load_sample(SAMPLES / "large_platform_history.json")
    choose(page, "Sample bundle", sample.title)
    radio(page, "Provider", "Recorded response")
    page.get_by_role("button", name="Assess", exact=True).click()
    page.locator("[data-verdict]").wait_for(timeout=TIMEOUT)
    settle(page)
    chip = page.locator('tr[data-requirement-row="1"] a.al-jump[data-jump]').first
    line = chip.get_attribute("data-jump")
    target = page.locator(f"#al-line-{line}")
    expect(target).not_to_be_in_viewport()  # far down a 200-record context
    chip.click()
    expect(target).to_be_in_viewport(timeout=TIMEOUT)
    row = page.locator("#al-req-1")
    target.locator('a[data-jump-requirement="1"]').click()
    expect(row).to_be_in_viewport(timeout=TIMEOUT)

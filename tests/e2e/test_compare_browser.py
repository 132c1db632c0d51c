"""The Compare page's shipped pair in headless Chromium at phone and desktop widths, light and dark: it verifies,
shows the second opinion side by side, and no label is cut short."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import TIMEOUT, settle, shoot
from tests.e2e.widths import SCHEMES, WIDTHS, opened, truncated

pytestmark = pytest.mark.e2e

ON_SCREEN = """() => [...document.querySelectorAll('[data-requirement-diff] tbody td:nth-child(-n+3)')]
  .filter(cell => { const r = cell.getBoundingClientRect();
    const box = cell.closest('[data-requirement-diff]').getBoundingClientRect();
    return r.width === 0 || r.right > Math.min(window.innerWidth, box.right) + 1 || r.left < 0; })
  .map(cell => cell.innerText)"""
"""Cells of the number, requirement and status columns that are not wholly on screen."""


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_the_shipped_pair_reads_whole_at_every_width(browser: Any, app_url: str, width: int, scheme: str,
                                                     screenshots: Path | None) -> None:
    with opened(browser, f"{app_url}/compare", width, scheme) as page:
        # Runs stored by earlier tests or not, the page opens on the shipped pair.
        page.get_by_role("heading", name="Compare").wait_for(timeout=TIMEOUT)
        page.locator('[data-opinions="AB"]').wait_for(timeout=TIMEOUT)
        settle(page)
        assert page.locator("[data-verified]").count() == 2
        assert page.locator("[data-same-inputs]").get_attribute("data-same-inputs") == "true"
        assert page.locator('[data-strict-side="A"]').get_attribute("data-strict-changed") == "true"
        assert "What database" in page.locator('[data-question="same"]').inner_text()
        expect(page.locator('[data-testid="stDataFrame"]')).to_have_count(1, timeout=TIMEOUT)  # the opinions
        # Each requirement's text and statuses are on screen at this width, and no cell runs past the table.
        page.locator("[data-requirement-diff] table").scroll_into_view_if_needed()
        assert page.evaluate(ON_SCREEN) == [], "requirement text or status past the viewport's right edge"
        assert truncated(page) == []
        page.get_by_role("button", name="Filter and sort").click()
        page.get_by_text("Change", exact=True).wait_for(timeout=TIMEOUT)
        assert truncated(page) == []
        page.keyboard.press("Escape")
        settle(page)
        shoot(page, screenshots, f"screens/compare-{width}-{scheme}.png", charts=True)


def test_the_truncation_check_finds_a_cut_label(browser: Any, app_url: str) -> None:
    """The check above can fail: a label cut with an ellipsis, and a chart title past its chart, are found."""
    with opened(browser, f"{app_url}/trials", 390, "light") as page:
        page.locator('[data-testid="stPlotlyChart"] .gtitle').first.wait_for(timeout=TIMEOUT)
        page.evaluate("""() => {
          const label = document.createElement('div');
          label.style.cssText = 'width:60px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis';
          label.innerText = 'Unnecessary abstentions';
          document.querySelector('[data-testid="stMain"]').appendChild(label);
          document.querySelector('[data-testid="stPlotlyChart"] .gtitle').textContent = 'x'.repeat(120);
        }""")
        assert truncated(page) == ["Unnecessary abstentions", "x" * 120]

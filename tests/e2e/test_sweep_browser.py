"""The Packing page's sweep grid in a real Chromium: the shipped sweep opened by its link at 1280 and 390 px
(screenshots into ``$ANSWERLENS_SCREENSHOTS/screens``), and a cell that opens its run in Inspect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import TIMEOUT, settle, shoot
from tests.e2e.widths import opened, truncated

pytestmark = pytest.mark.e2e

LINK = "/packing?sweep=sweep_budget_cut"


@pytest.mark.parametrize("width", [1280, 390])
def test_the_grid_reads_at_any_width(browser: Any, app_url: str, screenshots: Path | None, width: int) -> None:
    with opened(browser, app_url + LINK, width, "light") as page:
        grid = page.locator('[data-sweep="sweep_budget_cut"]')
        grid.wait_for(timeout=TIMEOUT)
        grid.scroll_into_view_if_needed()
        settle(page)
        assert page.locator("td[data-cell]").count() == 16
        assert page.locator('td[data-action="answer_partially"]').count() == 5
        assert page.locator('[data-legend="sweep"]').count() == 1
        # The page never scrolls sideways: a grid wider than the screen scrolls inside its own region.
        overflow = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollWidth")
        assert overflow <= width + 1
        assert truncated(page) == []
        if screenshots is not None:
            (screenshots / "screens").mkdir(parents=True, exist_ok=True)
            grid.screenshot(path=str(screenshots / "screens" / f"sweep-grid-{width}.png"))
            shoot(page, screenshots, f"screens/sweep-{width}.png")


def test_a_cell_opens_its_run_in_inspect(browser: Any, app_url: str) -> None:
    with opened(browser, app_url + LINK, 1280, "light") as page:
        cell = page.locator('td[data-format="reader_cited"][data-budget="90%"] a')
        cell.wait_for(timeout=TIMEOUT)
        cell.click()
        page.get_by_role("heading", name="Inspect").wait_for(timeout=TIMEOUT)
        page.locator('[data-verdict="partial"]').wait_for(timeout=TIMEOUT)
        settle(page)
        context = page.locator(".al-context").inner_text()
        assert "eu-central-1" in context and "Priya Raman" not in context  # the cut context: m6 is not there
        assert "run=" in page.url

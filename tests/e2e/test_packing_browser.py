"""The Packing page in a real Chromium: a budget the user types cuts the renderings as a sweep cell does (the
citations table, the "can be assessed" box and the counts follow it), and the four formats read at 1280 and
390 px, side by side or one at a time (screenshots into ``$ANSWERLENS_SCREENSHOTS/screens``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from answerlens.samples import load_sample
from tests.e2e.conftest import TIMEOUT, choose, rerun, settle, shoot
from tests.e2e.widths import opened, truncated
from tests.paths import SAMPLES

pytestmark = pytest.mark.e2e

LINK = "/packing?sweep=sweep_budget_cut"
SAMPLE = load_sample(SAMPLES / "sweep_budget_cut.json")

OVERFLOWING = """() => [...document.querySelectorAll('[data-budget-cut], [data-counts]')].filter(e => {
  const column = e.closest('[data-testid="stColumn"]') || e.closest('[data-testid="stTabPanel"]')
    || document.querySelector('[data-testid="stMain"]');
  return e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > column.getBoundingClientRect().right + 1;
}).map(e => e.innerText)"""
"""Captions wider than themselves or than the column that holds them (the "cut here" caption ran into the next)."""


def set_budget(page: Any, budget: str) -> None:
    field = page.get_by_role("textbox", name="Token budget")
    field.fill(budget)
    rerun(page, lambda: field.press("Enter"))


def test_budget_240_discards_m6_as_cut_and_finds_the_sweeps_partial_outcome(browser: Any, app_url: str,
                                                                             screenshots: Path | None) -> None:
    with opened(browser, app_url + LINK, 1280, "light") as page:
        choose(page, "Sample bundle", SAMPLE.title)
        page.locator('[data-sweep="sweep_budget_cut"]').wait_for(timeout=TIMEOUT)
        assert page.locator('[data-format-verdict="reader_cited"]').inner_text().startswith("answerable")
        set_budget(page, "240")
        cut = page.locator('[data-budget-cut="reader_cited"]')
        assert cut.get_attribute("data-kept") == "5" and cut.inner_text().endswith("; cut: m6")
        cited = page.locator('td[data-format="reader_cited"][data-ref="m6"]')
        assert cited.get_attribute("data-cut") == "true"
        assert cited.inner_text() == "discarded: unknown_reference (m6 was cut by this setting)"
        box = page.locator('[data-notice="ok"]').filter(has_text="Can be assessed").first
        assert "5 citable references" in box.inner_text()
        action = page.locator('[data-format-verdict="reader_cited"] [data-format-action]')
        assert action.get_attribute("data-format-action") == "answer_partially"
        # The shipped sweep's cell that keeps the same five records came to the same action.
        swept = page.locator('td[data-format="reader_cited"][data-budget="90%"]')
        assert swept.get_attribute("data-action") == "answer_partially" and "5/6 records" in swept.inner_text()
        settle(page)
        shoot(page, screenshots, "screens/packing-budget-240-1280.png")


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("layout", ["Side by side", "One at a time"])
def test_the_four_formats_read_at_any_width(browser: Any, app_url: str, screenshots: Path | None, width: int,
                                            layout: str) -> None:
    with opened(browser, app_url + "/packing", width, "light") as page:
        page.get_by_role("heading", name="Packing").wait_for(timeout=TIMEOUT)
        settle(page)
        choose(page, "Sample bundle", SAMPLE.title)
        set_budget(page, "240")
        if layout != "Side by side":
            rerun(page, page.get_by_text(layout, exact=True).click)
            tabs = page.locator('[data-testid="stTab"]')
            assert tabs.count() == 4
        else:
            shown = page.locator("[data-budget-cut]")
            assert shown.count() == 4
            if width >= 640:  # two a row: each format gets half the page, not a quarter
                first, second, third = (shown.nth(index).bounding_box() for index in range(3))
                assert abs(first["y"] - second["y"]) < 5 and third["y"] > first["y"] + 100
                main = page.locator('[data-testid="stMainBlockContainer"]').bounding_box()
                assert first["width"] > main["width"] * 0.4  # was a quarter, with its caption running over
        assert page.evaluate(OVERFLOWING) == []
        assert truncated(page) == []
        overflow = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollWidth")
        assert overflow <= width + 1
        name = "side-by-side" if layout == "Side by side" else "one-at-a-time"
        shoot(page, screenshots, f"screens/packing-formats-{name}-{width}.png")

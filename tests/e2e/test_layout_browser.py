"""The layout in a real Chromium: at 1280 and 390 px, light and dark, the verdict and requirements come before
the context on a phone, no label is truncated, and the cards follow the theme with AA contrast (computed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from answerlens.html.palette import contrast
from answerlens.samples import load_sample
from tests.e2e.conftest import CHROMIUM, TIMEOUT, choose, radio, settle, shoot
from tests.paths import SAMPLES

pytestmark = pytest.mark.e2e

TRUNCATED = """() => [...document.querySelectorAll('[data-testid="stAppViewContainer"] *')].filter(e => {
  const s = getComputedStyle(e);
  const r = e.getBoundingClientRect();
  return s.textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth + 1 && e.innerText.trim().length > 0
    && r.width > 0 && r.right > 0 && r.left < window.innerWidth;
}).map(e => e.innerText.trim().slice(0, 80))"""

COLOURS = """(selector) => { const e = document.querySelector(selector); if (!e) return null;
  const parse = c => (c.match(/[\\d.]+/g) || []).map(Number);
  let node = e, bg = [0, 0, 0, 0];
  while (node && (bg.length < 4 ? false : bg[3] === 0)) { bg = parse(getComputedStyle(node).backgroundColor);
    if (bg.length === 3) bg.push(1); node = node.parentElement; }
  return {fg: parse(getComputedStyle(e).color).slice(0, 3), bg: bg.slice(0, 3)}; }"""


def hex_of(rgb: list[float]) -> str:
    return "#" + "".join(f"{round(value):02x}" for value in rgb[:3])


def open_page(browser: Any, app_url: str, width: int, scheme: str) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    page.goto(app_url)
    page.get_by_role("heading", name="Inspect").wait_for(timeout=TIMEOUT)
    page.locator('[data-testid="stSelectbox"]').first.wait_for(timeout=TIMEOUT)
    settle(page)
    return page


def sidebar(page: Any, show: bool) -> None:
    """On a phone the sidebar is folded away: open it to reach the endpoint, fold it again to read the page."""
    button = page.locator('[data-testid="stExpandSidebarButton"]' if show
                          else '[data-testid="stSidebarCollapseButton"] button')
    if button.count() and button.first.is_visible():
        button.first.click()
        collapsed = "false" if show else "true"
        page.locator(f'[data-testid="stSidebar"][data-collapsed="{collapsed}"]').wait_for(state="attached",
                                                                                         timeout=TIMEOUT)


def assess_flagged_sample(page: Any) -> None:
    sample = load_sample(SAMPLES / "second_opinion_plan_as_fact.json")
    choose(page, "Sample bundle", sample.title)
    narrow = page.viewport_size["width"] < 640
    if narrow:
        sidebar(page, True)
    radio(page, "Provider", "Recorded response")
    if narrow:
        sidebar(page, False)
    page.get_by_role("button", name="Assess", exact=True).click()
    page.locator("[data-verdict]").wait_for(timeout=TIMEOUT)
    settle(page)


def check_theme(page: Any, scheme: str, selectors: list[str]) -> None:
    for selector in selectors:
        found = page.evaluate(COLOURS, selector)
        assert found is not None, selector
        fg, bg = hex_of(found["fg"]), hex_of(found["bg"])
        assert contrast(fg, bg) >= 4.5, (selector, fg, bg)
        dark_background = sum(found["bg"]) / 3 < 100
        assert dark_background == (scheme == "dark"), (selector, scheme, bg)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 390])
def test_inspect_reads_on_any_screen(browser: Any, app_url: str, screenshots: Path | None, width: int,
                                     scheme: str) -> None:
    assert Path(CHROMIUM).exists()
    page = open_page(browser, app_url, width, scheme)
    try:
        assess_flagged_sample(page)
        shoot(page, screenshots, f"screens/inspect-{width}-{scheme}.png")
        verdict = page.locator("[data-verdict]").bounding_box()
        requirements = page.locator(".al-reqs").bounding_box()
        context = page.locator(".al-context").bounding_box()
        legend = page.locator("[data-legend]").bounding_box()  # the top of the context's column
        if width < 640:  # one column: verdict and requirements first, then the context
            assert verdict["y"] < requirements["y"] < context["y"]
        else:  # two columns: the context's column starts beside the verdict, not below it
            assert verdict["x"] < context["x"] and abs(verdict["y"] - legend["y"]) < 200
        assert page.locator("[data-legend]").count() == 1
        assert page.evaluate(TRUNCATED) == []
        check_theme(page, scheme, [".al-context .al-tx", ".al-verdict .al-action", ".al-reqs td.al-text",
                                   ".al-context mark.al-flagged", ".al-legend .al-muted"])
        assert "solid" in page.eval_on_selector(".al-context mark.al-flagged", "e => getComputedStyle(e).outlineStyle")
        if width < 640:
            sidebar(page, True)
        page.get_by_role("link", name="Packing").click()
        page.get_by_role("heading", name="Packing").wait_for(timeout=TIMEOUT)
        settle(page)
        if width < 640:
            sidebar(page, False)
        choose(page, "Sample bundle", load_sample(SAMPLES / "answerable_billing_database.json").title)
        shoot(page, screenshots, f"screens/packing-{width}-{scheme}.png")
        assert page.evaluate(TRUNCATED) == []
        check_theme(page, scheme, ['[data-format="auditable"][data-ref="m1"]', '[data-notice="ok"]'])
    finally:
        page.context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_trial_statistics_labels_wrap_instead_of_being_cut(browser: Any, app_url: str, width: int) -> None:
    from tests.paths import PRME

    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{app_url}/trials")
        page.get_by_role("heading", name="Trials").wait_for(timeout=TIMEOUT)
        settle(page)
        page.get_by_text("Open a result", exact=True).click()
        settle(page)
        page.locator('[data-testid="stMain"] input[type="file"]').first.set_input_files(
            str(PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"))
        page.locator('[data-testid="stMetricLabel"]').first.wait_for(timeout=TIMEOUT)
        settle(page)
        assert "Unsafe answers" in page.locator('[data-testid="stMetricLabel"]').all_inner_texts()
        assert page.evaluate(TRUNCATED) == []
    finally:
        context.close()


def test_the_uploader_states_the_50_mb_limit(browser: Any, app_url: str) -> None:
    page = open_page(browser, app_url, 1280, "light")
    try:
        page.locator('[data-testid="stMain"] [data-testid="stRadio"]').first.get_by_text(
            "Upload a file", exact=True).click()
        settle(page)
        instructions = page.locator('[data-testid="stFileUploaderDropzoneInstructions"]').first.inner_text()
        assert "50MB" in instructions.replace(" ", "") and "200MB" not in instructions.replace(" ", "")
    finally:
        page.context.close()

"""The Trials page and the embedded model, end to end in headless Chromium: the shipped example at phone and
desktop widths in both colour schemes, exports of the visible rows, an upstream result."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from answerlens.samples import load_sample
from tests.e2e.conftest import TIMEOUT, choose, drawn, radio, settle, shoot
from tests.e2e.widths import SCHEMES, WIDTHS, opened, truncated
from tests.paths import PRME, SAMPLES

pytestmark = pytest.mark.e2e
UPSTREAM = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"
LIVE_TIMEOUT = 600_000
"""A live call to the embedded model on a 2-core machine: tens of seconds, sometimes minutes."""


def trials_page(page: Any) -> None:
    page.get_by_role("link", name="Trials").click()
    page.get_by_role("heading", name="Trials").wait_for(timeout=TIMEOUT)
    settle(page)


def test_open_the_upstream_result(page: Any, screenshots: Path | None) -> None:
    trials_page(page)
    page.locator('[data-testid="stMain"] [data-testid="stRadio"]').first.get_by_text(
        "Open a result", exact=True).click()
    settle(page)
    page.get_by_label("Run directory, result.json, or an upstream trial result file").fill(str(UPSTREAM))
    page.get_by_role("button", name="Open", exact=True).click()
    page.locator("[data-gate]").first.wait_for(timeout=TIMEOUT)
    settle(page)

    gates = page.eval_on_selector_all("[data-gate]", "cells => cells.map(c => [c.dataset.gate, c.innerText])")
    assert dict(gates) == {"unsafe_full_answer_count_max": "FAIL", "citation_errors_max": "FAIL",
                           "ordinary_full_answer_count_min": "FAIL", "ordinary_abstention_count_max": "FAIL",
                           "stable_action_questions_min": "FAIL"}
    row = page.locator(".al-table tr").filter(has_text="ordinary_full_answer_count_min").inner_text()
    assert "62" in row and "≥ 86" in row
    charts = page.locator('[data-testid="stPlotlyChart"]')
    expect(charts).to_have_count(4, timeout=TIMEOUT)  # plotly mounts after the rest of the page
    bars = charts.first.locator("g.point")  # the stacked bars of actions per label, drawn in the browser
    bars.first.wait_for(timeout=TIMEOUT)
    assert bars.count() >= 4
    shoot(page, screenshots, "trials.png")

    # A square of the question × repeat grid selects its sample; upstream samples have no context to show.
    squares = charts.nth(2).locator("g.points path.point")
    assert squares.count() == 120
    picker = page.locator('[data-testid="stSelectbox"]').filter(has_text="Sample (120")
    before = picker.locator("input").get_attribute("value")
    squares.nth(5).click(force=True)
    expect(picker.locator("input")).not_to_have_value(before or "", timeout=TIMEOUT)
    settle(page)
    after = picker.locator("input").get_attribute("value")
    assert after != before and "repeat" in (after or "")
    notice = page.locator('[data-notice="info"]').filter(has_text="context isn't available")
    assert "do not contain them" in notice.inner_text()
    assert page.locator('[data-verified="Sample"]').count() == 1


@pytest.mark.local_model
@pytest.mark.timeout(900)
def test_embedded_model_assesses_live(page: Any) -> None:
    """Select the embedded model, start it, assess a short sample: a verdict or a clean error with a remedy."""
    sample = load_sample(SAMPLES / "speech_act_eslint.json")
    choose(page, "Sample bundle", sample.title)
    radio(page, "Provider", "Embedded model (llama.cpp)")
    page.locator('[data-local-model="not_started"]').wait_for(timeout=TIMEOUT)
    assert "verdicts mean nothing" in page.locator('[data-testid="stSidebar"]').inner_text()
    page.get_by_role("button", name="Start", exact=True).click()
    page.locator('[data-local-model="running"]').wait_for(timeout=180_000)
    settle(page)
    assert "SmolLM2-135M-Instruct" in page.locator('[data-local-model="running"]').inner_text()
    try:
        page.get_by_role("button", name="Assess", exact=True).click()
        outcome = page.locator('[data-verdict], [data-testid="stMain"] [data-notice="error"]')
        outcome.first.wait_for(timeout=LIVE_TIMEOUT)
        settle(page)
        main = page.locator('[data-testid="stMain"]').inner_text()
        assert "Traceback" not in main
        verdict = page.locator("[data-verdict]")
        if verdict.count():
            assert verdict.get_attribute("data-verdict") in {"answerable", "partial", "insufficient", "conflicting"}
            assert "live model: llamacpp smollm2" in verdict.inner_text()
        else:
            error = page.locator('[data-testid="stMain"] [data-notice="error"]').first.inner_text()
            assert "no verdict was produced" in error and "What to do" in error
    finally:
        stop = page.get_by_role("button", name="Stop", exact=True)
        if stop.count():  # free the shared server for later tests (and never mask the failure above)
            stop.click()
            page.locator('[data-local-model="not_started"]').wait_for(timeout=TIMEOUT)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_the_example_result_reads_whole_at_every_width(browser: Any, app_url: str, width: int, scheme: str,
                                                       screenshots: Path | None) -> None:
    """The Trials page opens on the shipped example; no label, card, button or chart title is cut short, the
    tables and their filter controls included."""
    with opened(browser, f"{app_url}/trials", width, scheme) as page:
        page.locator("[data-gate]").first.wait_for(timeout=TIMEOUT)
        page.locator('[data-second-opinion="64"]').wait_for(timeout=TIMEOUT)
        drawn(page)
        expect(page.locator('[data-testid="stMetric"]')).to_have_count(13, timeout=TIMEOUT)  # run 9, opinion 4
        assert page.locator('[data-error-group="read_timeout"][data-error-count="2"]').count() == 1
        page.get_by_text("Questions (33) and samples (66) as tables").click()
        page.locator('[data-testid="stDataFrame"]').nth(1).wait_for(timeout=TIMEOUT)
        settle(page)
        assert truncated(page) == []
        page.get_by_role("button", name="Filter and sort").nth(1).click()  # the samples table's popover
        page.get_by_text("Error kind", exact=True).wait_for(timeout=TIMEOUT)
        assert truncated(page) == []
        page.keyboard.press("Escape")
        settle(page)
        shoot(page, screenshots, f"screens/trials-{width}-{scheme}.png", charts=True)


def test_export_the_visible_samples(browser: Any, app_url: str, tmp_path: Path) -> None:
    """Search the samples table, then download it: the CSV and the JSON hold exactly the rows shown."""
    with opened(browser, f"{app_url}/trials", 1280, "light") as page:
        page.get_by_text("Questions (33) and samples (66) as tables").click()
        search = page.get_by_placeholder("words of a question, or a sample id")
        search.fill("pgbouncer")
        search.press("Enter")
        page.get_by_text("2 of 66 samples shown").wait_for(timeout=TIMEOUT)
        settle(page)
        with page.expect_download() as csv_download:
            page.get_by_role("button", name="Shown samples as CSV").click()
        rows = list(csv.DictReader(io.StringIO(Path(csv_download.value.path()).read_text(encoding="utf-8"))))
        assert [row["sample"] for row in rows] == ["billing-pgbouncer-mode#0", "billing-pgbouncer-mode#1"]
        with page.expect_download() as json_download:
            page.get_by_role("button", name="Shown samples as JSON").click()
        shown = json.loads(Path(json_download.value.path()).read_text(encoding="utf-8"))
        assert [row["sample"] for row in shown] == [row["sample"] for row in rows]
        assert shown[0]["question text"] == "How does billing-api connect to its primary database?"

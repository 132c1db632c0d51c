"""The app end to end in a real headless Chromium: assess, highlight, hashes, errors, hostile text, pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from answerlens import AnswerabilityConfig, derive_assessment
from answerlens.html import palette
from answerlens.samples import load_sample
from tests.e2e.conftest import TIMEOUT, choose, radio, rerun, settle, shoot, source_kind, style
from tests.paths import SAMPLES

pytestmark = pytest.mark.e2e


def rgb(hex_colour: str) -> str:
    value = hex_colour.lstrip("#")
    red, green, blue = (int(value[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgb({red}, {green}, {blue})"


def assess_recorded(page: Any, stem: str) -> None:
    sample = load_sample(SAMPLES / f"{stem}.json")
    choose(page, "Sample bundle", sample.title)
    radio(page, "Provider", "Recorded response")
    expect(page.get_by_label("Question")).to_have_value(sample.question, timeout=TIMEOUT)
    page.get_by_role("button", name="Assess", exact=True).click()
    page.locator("[data-verdict]").wait_for(timeout=TIMEOUT)
    settle(page)


def test_assess_a_sample_with_its_recorded_reply(page: Any, screenshots: Path | None) -> None:
    sample = load_sample(SAMPLES / "prme_reader_citations.json")
    assess_recorded(page, "prme_reader_citations")
    verdict = page.locator("[data-verdict]")
    assert verdict.get_attribute("data-verdict") == "partial"
    assert "recorded response" in verdict.inner_text()

    context = ".al-context"
    accepted = f'{context} mark[data-citation="accepted"][data-requirement="0"][data-ref="m1"]'
    assert page.locator(accepted).count() == 1
    mark, line, _edge = palette.IDENTITY[0]
    assert style(page, accepted, "backgroundColor") == rgb(mark.light)
    # The repeated m4 is skipped: it draws no dashed outline on its accepted mark; its chip is dashed.
    assert page.locator(f'{context} mark[data-citation="discarded"]').count() == 0
    duplicate = '.al-reqs .al-chip[data-citation="discarded"][data-requirement="1"][data-ref="m4"]'
    assert style(page, duplicate, "backgroundColor") == "rgba(0, 0, 0, 0)"  # no fill: a decision, not an identity
    assert "dashed" in style(page, duplicate, "borderStyle")
    assert style(page, duplicate, "borderColor") == rgb(palette.DISCARDED.light)
    # The downgraded requirement's valid m2 supports nothing: outlined, not filled.
    uncounted = f'{context} mark[data-citation="uncounted"][data-requirement="2"][data-ref="m2"]'
    assert style(page, uncounted, "backgroundColor") == "rgba(0, 0, 0, 0)"
    assert style(page, f'{context} .al-line[data-requirements="0"]', "backgroundColor") == rgb(line.light)
    # m1 (requirement 0), m4 (requirement 1), m2 (requirement 2, uncounted)
    assert page.locator(f"{context} mark[data-citation]").count() == 3
    chip = '.al-chip[data-citation="discarded"][data-requirement="3"][data-ref="m99"]'
    assert "line-through" in style(page, chip, "textDecorationLine")
    assert page.locator(f'{context} [data-ref="m99"]').count() == 0  # not in the context, so only a chip

    # Playwright's sync API owns this thread's event loop, so derive the expected hashes with the pure path.
    expected = derive_assessment(sample.question, sample.load(), sample.recording().text,  # type: ignore[union-attr]
                                 config=AnswerabilityConfig(provider="replay", model=sample.recorded_model))
    for field in ("evaluation_id", "assessment_sha256", "context_sha256", "query_sha256", "raw_output_sha256"):
        assert page.locator(f'[data-hash="{field}"]').inner_text() == getattr(expected, field)
    shoot(page, screenshots, "inspect.png")
    page.locator('button[data-copy]').first.click()
    assert page.evaluate("navigator.clipboard.readText()") == expected.evaluation_id

    radio(page, "Highlight requirement", "2")  # people count from 1; the data keep 0-based indices
    requirements = page.eval_on_selector_all(f"{context} mark[data-citation]",
                                             "marks => marks.map(m => m.dataset.requirement)")
    assert set(requirements) == {"1"}


def test_upload_a_broken_file_then_carry_on(page: Any) -> None:
    source_kind(page, "Upload a file")
    page.locator('[data-testid="stMain"] input[type="file"]').first.set_input_files(
        files=[{"name": "broken.json", "mimeType": "application/json", "buffer": b'{"sections": ['}])
    error = page.locator('[data-testid="stMain"] [data-notice="error"]')
    error.first.wait_for(timeout=TIMEOUT)
    assert "broken.json" in error.first.inner_text() and "invalid JSON" in error.first.inner_text()
    source_kind(page, "Sample")
    assess_recorded(page, "speech_act_eslint")
    assert page.locator("[data-verdict]").get_attribute("data-verdict") == "insufficient"


def test_hostile_sample_renders_as_inert_text(page: Any) -> None:
    assess_recorded(page, "hostile_record_text")
    text = page.locator(".al-context").inner_text()
    assert "<script>alert('xss')</script>" in text and "<img src=x onerror=alert(1)>" in text
    assert page.locator('img[src="x"]').count() == 0
    assert page.locator("b", has_text="APPROVED").count() == 0
    scripts = page.eval_on_selector_all("script", "s => s.map(e => e.textContent).join('\\n')")
    assert "alert(" not in scripts


HOSTILE = "<img src=x onerror=alert(7)><script>alert(8)</script>![x](http://127.0.0.1:9/leak.png)"


def test_hostile_model_text_and_file_name_stay_inert(page: Any, tmp_path: Path) -> None:
    sample = {
        "title": HOSTILE,
        "description": HOSTILE,
        "question": f"Who approved? {HOSTILE}",
        "bundle": {"records": [{"text": HOSTILE, "speaker": "<b>Eve</b>"}]},
        "recorded_reply": {
            "requirements": [
                {"requirement": HOSTILE, "status": "supported", "evidence_refs": ["m1", HOSTILE],
                 "explanation": HOSTILE},
            ],
            "reasoning": HOSTILE,
        },
    }
    source_kind(page, "Upload a file")
    page.locator('[data-testid="stMain"] input[type="file"]').first.set_input_files(
        files=[{"name": f"{HOSTILE}.json", "mimeType": "application/json", "buffer": json.dumps(sample).encode()}])
    page.get_by_role("button", name="Assess", exact=True).wait_for(timeout=TIMEOUT)
    settle(page)
    radio(page, "Provider", "Recorded response")
    page.get_by_role("button", name="Assess", exact=True).click()
    page.locator("[data-verdict]").wait_for(timeout=TIMEOUT)
    settle(page)
    assert page.locator("[data-verdict]").get_attribute("data-verdict") == "answerable"
    assert page.locator('img[src="x"]').count() == 0
    assert page.locator('img[src*="leak"]').count() == 0
    assert page.locator("b", has_text="Eve").count() == 0
    assert HOSTILE in page.locator(".al-reqs").inner_text()
    chip = page.locator('.al-chip[data-citation="discarded"]')
    assert chip.inner_text() == HOSTILE
    # DOMPurify drops an attribute whose value holds "</script"; the escaped text is all that is left.
    assert chip.get_attribute("data-ref") in (HOSTILE, None)


BIDI = "pay \u202eevil\u202c \u2066x\u2069 \u200b"


def test_bidi_and_invisible_characters_show_as_badges(page: Any) -> None:
    sample = {
        "title": "bidi", "description": "bidi", "question": f"Who? {BIDI}",
        "bundle": {"records": [{"text": BIDI, "speaker": "Eve"}]},
        "recorded_reply": {"requirements": [{"requirement": BIDI, "status": "supported", "evidence_refs": ["m1"],
                                             "explanation": BIDI}], "reasoning": BIDI},
    }
    source_kind(page, "Upload a file")
    page.locator('[data-testid="stMain"] input[type="file"]').first.set_input_files(
        files=[{"name": "bidi.json", "mimeType": "application/json", "buffer": json.dumps(sample).encode()}])
    page.get_by_role("button", name="Assess", exact=True).wait_for(timeout=TIMEOUT)
    settle(page)
    radio(page, "Provider", "Recorded response")
    page.get_by_role("button", name="Assess", exact=True).click()
    page.locator("[data-verdict]").wait_for(timeout=TIMEOUT)
    settle(page)
    main = page.locator('[data-testid="stMain"]').inner_text()
    assert not any(char in main for char in "\u202e\u202c\u2066\u2069\u200b")
    badges = page.eval_on_selector_all(".al-ctl", "b => b.map(e => [e.textContent, e.title])")
    assert ["U+202E", "invisible character"] in badges and ["U+2066", "invisible character"] in badges
    assert page.locator(".al-context .al-ctl").count() == 5 and page.locator(".al-table .al-ctl").count() == 10


def test_walk_the_packing_page(page: Any, app_url: str, screenshots: Path | None) -> None:
    page.get_by_role("link", name="Packing").click()
    page.get_by_role("heading", name="Packing").wait_for(timeout=TIMEOUT)
    settle(page)
    choose(page, "Sample bundle", load_sample(SAMPLES / "reader_without_citations.json").title)
    notice = page.locator('[data-notice="error"]').filter(has_text="Cannot be assessed")
    assert "PRME_PACKING__CONTEXT_CITATIONS=true" in notice.inner_text()
    assert "PackingConfig(context_format='reader', context_citations=True)" in notice.inner_text()
    assert page.locator("[data-counts]").count() == 4
    choose(page, "Sample bundle", load_sample(SAMPLES / "answerable_billing_database.json").title)
    verdicts = page.eval_on_selector_all("[data-format-verdict]",
                                         "cells => cells.map(c => [c.dataset.formatVerdict, c.firstChild.textContent])")
    assert dict(verdicts) == {"reader_cited": "answerable", "reader_plain": "cannot be assessed",
                              "auditable": "insufficient", "compact": "answerable"}
    cell = '[data-format="auditable"][data-ref="m1"]'
    assert style(page, cell, "backgroundColor") == rgb(palette.SOFT["conflicting"].light)
    shoot(page, screenshots, "packing.png")


def test_walk_the_compare_page(page: Any, screenshots: Path | None) -> None:
    assess_recorded(page, "partial_checkout_migration")
    # Runs of earlier tests share this server's store.
    rerun(page, page.get_by_role("button", name="Clear history").click)
    assert page.locator("[data-verdict]").count() == 0
    for _ in range(2):
        page.get_by_role("button", name="Assess", exact=True).click()
        page.locator("[data-verdict]").wait_for(timeout=TIMEOUT)
        settle(page)
    page.get_by_text("History (1 run)").wait_for(timeout=TIMEOUT)  # the same inputs again: one run, the latest
    page.get_by_role("link", name="Compare", exact=True).first.click()
    page.get_by_role("heading", name="Compare").wait_for(timeout=TIMEOUT)
    page.locator('[data-opinions="AB"]').wait_for(timeout=TIMEOUT)  # it opens on the shipped pair
    settle(page)
    for group in page.locator('[data-testid="stMain"] [data-testid="stRadio"]').all()[:2]:
        group.get_by_text("A stored run", exact=True).click()
        settle(page)
    page.locator("[data-same-inputs]").wait_for(timeout=TIMEOUT)
    page.locator("[data-verified]").nth(1).wait_for(timeout=TIMEOUT)
    assert page.locator("[data-same-inputs]").get_attribute("data-same-inputs") == "true"
    assert page.locator("[data-same-output]").get_attribute("data-same-output") == "true"
    assert page.locator("[data-verified]").count() == 2
    assert page.locator('[data-hash="evaluation_id"][data-side="A"]').inner_text() == page.locator(
        '[data-hash="evaluation_id"][data-side="B"]').inner_text()
    shoot(page, screenshots, "compare.png")

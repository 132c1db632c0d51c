"""The first minute on a fresh page, in a real browser: nothing the user does while the page draws loses an input."""

from __future__ import annotations

from typing import Any

import pytest

from answerlens.samples import load_sample
from tests.e2e.conftest import TIMEOUT, choose, radio, settle, wait_ready
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


# Every word (a run of letters and digits) of the context, and every citation label, lies on one line: a split one
# has client rectangles on two lines.
SPLIT = """() => {
  const split = [];
  for (const tx of document.querySelectorAll('.al-context .al-tx')) {
    const walker = document.createTreeWalker(tx, NodeFilter.SHOW_TEXT);
    let text = '', nodes = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) { nodes.push([n, text.length]); text += n.data; }
    const at = i => { let k = nodes.length - 1; while (nodes[k][1] > i) k--; return [nodes[k][0], i - nodes[k][1]]; };
    for (const m of text.matchAll(/[\\p{L}\\p{N}]+/gu)) {
      const range = document.createRange();
      range.setStart(...at(m.index)); range.setEnd(...at(m.index + m[0].length - 1)); range.setEnd(
        range.endContainer, range.endOffset + 1);
      const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      if (tops.size > 1) split.push(m[0]);
    }
  }
  for (const mark of document.querySelectorAll('.al-context mark.al-cite')) {
    const tops = new Set([...mark.getClientRects()].map(r => Math.round(r.top)));
    if (tops.size > 1) split.push('label ' + mark.textContent);
  }
  return split;
}"""


@pytest.mark.parametrize("stem", ["compact_citation_errors", "large_platform_history", "auditable_uuid_citations"])
def test_the_context_breaks_lines_only_between_words_and_never_inside_a_citation(page: Any, stem: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    sample = load_sample(SAMPLES / f"{stem}.json")
    choose(page, "Sample bundle", sample.title)
    radio(page, "Provider", "Recorded response")
    page.get_by_role("button", name="Assess", exact=True).click()
    page.locator("[data-verdict]").wait_for(timeout=TIMEOUT)
    settle(page)
    assert page.locator(".al-context .al-line").count() > 0
    wrapped = page.evaluate("""() => [...document.querySelectorAll('.al-context .al-tx')]
        .filter(e => e.getClientRects().length && e.getBoundingClientRect().height > 30).length""")
    assert wrapped > 0, "no context line wraps at this width: the test would prove nothing"
    assert page.evaluate(SPLIT) == []


def test_after_assess_the_verdict_is_in_view_at_1280x900(page: Any) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    sample = load_sample(SAMPLES / "compact_citation_errors.json")
    choose(page, "Sample bundle", sample.title)
    radio(page, "Provider", "Recorded response")
    page.get_by_role("button", name="Assess", exact=True).click()
    page.locator("[data-verdict]").wait_for(timeout=TIMEOUT)
    settle(page)
    box = page.locator(".al-verdict").first.bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= 900, f"the verdict is off screen: {box}"

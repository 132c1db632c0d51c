"""A page at a given width and colour scheme, and whether any of its labels is cut short (the Trials, Compare and
sweep views at 1280 and 390 px, light and dark); their screenshots go through ``conftest.shoot``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.e2e.conftest import TIMEOUT, settle

WIDTHS = (1280, 390)
SCHEMES = ("light", "dark")

_TRUNCATED = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const cut = [...main.querySelectorAll('*')].filter(e => {
    if (e.closest('[data-baseweb="select"]') || !e.innerText || !e.innerText.trim()) return false;
    const style = getComputedStyle(e);
    return style.textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth + 1;
  }).map(e => e.innerText.trim());
  for (const svg of main.querySelectorAll('.js-plotly-plot svg.main-svg')) {
    const right = svg.getBoundingClientRect().right;
    for (const text of svg.querySelectorAll('.gtitle, .gtitle-subtitle, .legendtext, .ytick text')) {
      if (text.getBoundingClientRect().right > right + 1) cut.push(text.textContent);
    }
  }
  return cut;
}"""
"""Text cut with an ellipsis (labels, buttons, metric cards, captions; not a select's chosen value), and chart
titles, legends and axis labels running past their chart's right edge."""


@contextmanager
def opened(browser: Any, url: str, width: int, scheme: str) -> Iterator[Any]:
    """A fresh session of the app at ``url`` in a ``width``-px viewport with the ``scheme`` colour preference."""
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(url)
        page.locator('[data-testid="stMain"] h1').first.wait_for(timeout=TIMEOUT)
        settle(page)
        yield page
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not errors, errors
    finally:
        context.close()


def truncated(page: Any) -> list[str]:
    return list(page.evaluate(_TRUNCATED))

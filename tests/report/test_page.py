"""The document shell: a policy that forbids every fetch and every script, the app's style sheet once, sheets
that print on pages of their own, themes, and escaped pieces."""

from __future__ import annotations

import re

import pytest

from answerlens.html import palette
from answerlens.html.markup import notice_html
from answerlens.html.style import STYLESHEET
from answerlens.report.embedded import data_block
from answerlens.report.page import (
    CSS,
    POLICY,
    cards,
    document,
    header,
    key_values,
    muted,
    section,
)
from tests.report.inert import problems, visible_text

HOSTILE = '<img src=x onerror="alert(1)">\u202e'


def page(*sheets: str, title: str = "t") -> str:
    return document(title=title, kind="assessment", sheets=list(sheets), data=data_block({"a": 1}))


def test_the_policy_forbids_every_fetch_and_every_script() -> None:
    assert "default-src 'none'" in POLICY and "script-src" not in POLICY, "default-src 'none' covers scripts"
    html = page("<p>x</p>")
    assert f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">' in html
    assert problems(html) == []


def test_the_one_style_sheet_is_written_once_in_the_head_and_no_fragment_carries_it() -> None:
    html = page(notice_html("ok", "one"), notice_html("ok", "two"))
    assert html.count(STYLESHEET) == 1 and html.count("<style>") == 1
    assert html.index(STYLESHEET) < html.index("</head>")
    assert "<style" not in notice_html("ok", "x")


def test_the_report_theme_comes_from_the_palette() -> None:
    """No colour literal and no !important in the report's own rules: the dark theme is the palette's."""
    assert not re.search(r"#[0-9a-fA-F]{3,6}\b|rgb|!important", CSS)
    assert "--al-page:" + palette.PAGE.css in STYLESHEET


def test_each_sheet_prints_from_a_new_page() -> None:
    html = page("<p>one</p>", "<p>two</p>", "<p>three</p>")
    assert html.count('<div class="rp-sheet">') == 3
    assert ".rp .rp-sheet+.rp-sheet{break-before:page}" in CSS
    assert "@page{margin:14mm}" in CSS, "margins that fit A4 and Letter; the size is the printer's"
    assert re.search(r"@media print\{.*\.al-context\{max-height:none;overflow:visible\}", CSS, re.S)


def test_the_theme_follows_the_system_on_screen_and_prints_light() -> None:
    assert '<meta name="color-scheme" content="light dark">' in page()
    assert CSS.index("@media print{") < CSS.index(":root{color-scheme:light}")


@pytest.mark.parametrize("render", [
    pytest.param(lambda text: page(title=text), id="title"),
    pytest.param(lambda text: section("anchor", text, muted(text)), id="section"),
    pytest.param(lambda text: key_values([(text, text)]), id="key_values"),
    pytest.param(lambda text: header(text, text, [(text, text)], text), id="header"),
    pytest.param(lambda text: cards([(text, text, text)]), id="cards"),
])
def test_every_piece_escapes_its_text(render) -> None:  # type: ignore[no-untyped-def]
    html = render(HOSTILE)
    assert "<img" not in html and 'onerror="' not in html
    assert "U+202E" in html, "an invisible reordering character shows as a badge"
    assert "<img src=x" in visible_text(html)


def test_values_read_as_people_write_them() -> None:
    table = key_values([("model_called", True), ("answer_sha256", None), ("cases", 3)])
    assert [cell for cell in re.findall(r'data-fact="[^"]+">([^<]*)<', table)] == ["yes", "—", "3"]

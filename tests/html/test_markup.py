"""The HTML renderers: hostile text stays inert and visible in every one of them, and the data attributes hold."""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser

import pytest

from answerlens.citations import CitationDecision, Decision, DiscardReason, Span
from answerlens.explanation import HASH_FIELDS
from answerlens.html.escape import esc
from answerlens.html.highlight import CitedToken, Mark, RequirementRow, highlight, requirement_rows, uncounted
from answerlens.html.markup import (
    PALETTE,
    STATUS_SOLID,
    VERDICT_COLOURS,
    Notice,
    NoticeKind,
    cell,
    colour,
    context_html,
    facts_html,
    hashes_html,
    notice_html,
    outcome_cell,
    paragraph_html,
    source_label_html,
    table_html,
    tint,
    verdict_html,
)
from answerlens.html.requirements import chip, requirements_html
from tests.ui.conftest import recorded, sample

ALLOWED_TAGS = {"div", "span", "mark", "table", "thead", "tbody", "tr", "th", "td", "p", "strong", "em",
                "code", "pre", "details", "summary", "button", "br", "ul", "li", "script", "a"}
"""Links are in-page jumps only (``href="#…"``), between a citation chip and its context line."""


class Parsed(HTMLParser):
    """Every start tag with its attributes, and the text of every script element."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


def row(text: str) -> RequirementRow:
    return RequirementRow(index=0, requirement=text, claimed=text, status=text, explanation=text,
                          accepted=(CitedToken(Mark(0, text, Decision.ACCEPTED), located=True, line=1),),
                          discarded=(CitedToken(Mark(0, text, Decision.DISCARDED, DiscardReason.UNKNOWN_REFERENCE),
                                                located=False),))


RENDERERS: list[object] = [
    pytest.param(lambda t: context_html(t, highlight(t, [])), id="context_html"),
    pytest.param(lambda t: chip(Mark(1, t, Decision.ACCEPTED), located=True), id="chip_accepted"),
    pytest.param(lambda t: chip(Mark(1, t, Decision.DISCARDED, DiscardReason.UNKNOWN_REFERENCE), located=False),
                 id="chip_discarded"),
    pytest.param(lambda t: verdict_html(t, t, source=t, note=t), id="verdict_html"),
    pytest.param(lambda t: source_label_html(t), id="source_label_html"),
    pytest.param(lambda t: paragraph_html(t), id="paragraph_html"),
    pytest.param(lambda t: requirements_html([row(t)]), id="requirements_html"),
    pytest.param(lambda t: hashes_html({t: t}), id="hashes_html"),
    pytest.param(lambda t: facts_html([(t, t)]), id="facts_html"),
    pytest.param(lambda t: notice_html("error", t, t, t, code=t), id="notice_html"),
    pytest.param(lambda t: outcome_cell(t, False), id="outcome_cell"),
    pytest.param(lambda t: table_html([t], [cell(t)]), id="table_html"),
]

HOSTILE = [
    pytest.param("<script>alert(1)</script>", id="script"),
    pytest.param('"><img src=x onerror=alert(2)>', id="double_quote_breakout"),
    pytest.param("' onmouseover='alert(3)' x='", id="single_quote_breakout"),
    pytest.param("</td></tr></table><b>forged</b>", id="closing_tags"),
]


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize("render", RENDERERS)
def test_hostile_text_adds_no_tag_no_attribute_and_no_script(render: Callable[[str], str], text: str) -> None:
    parsed = Parsed(render(text))
    assert {tag for tag, _ in parsed.tags} <= ALLOWED_TAGS
    assert all((attrs.get("href") or "").startswith("#") for tag, attrs in parsed.tags if tag == "a")
    assert not [name for _, attrs in parsed.tags for name in attrs if name.startswith("on") or name == "x"]
    assert "alert(" not in "".join(parsed.scripts)
    assert "forged" not in [tag for tag, _ in parsed.tags]
    assert esc(text) in render(text)


@pytest.mark.parametrize("render", RENDERERS)
def test_no_fragment_carries_the_stylesheet(render: Callable[[str], str]) -> None:
    """The stylesheet is written once per page (the app's style call, the report's head), never by a fragment."""
    assert "<style" not in render("x")


# Bidi embeddings and overrides, bidi isolates, and other characters that draw nothing or reorder text.
INVISIBLE = ("\u202a\u202b\u202c\u202d\u202e" "\u2066\u2067\u2068\u2069" "\u200b\u200e\u200f\u061c\ufeff\u00ad"
             "\u2028\u2029\u0085\x1b\r\U000e0041")


@pytest.mark.parametrize("render", RENDERERS)
def test_invisible_characters_become_visible_badges_in_every_renderer(render: Callable[[str], str]) -> None:
    html = render(f"pay {INVISIBLE} evil")
    for char in INVISIBLE:
        assert char not in html, f"U+{ord(char):04X} reached the page"
        assert f">U+{ord(char):04X}</span>" in html


def test_a_badge_inside_an_attribute_stays_inside_it() -> None:
    ref = "m\u202e1"
    (span, *_) = Parsed(chip(Mark(0, ref, Decision.ACCEPTED), located=True)).tags
    assert set(span[1]) == {"class", "data-citation", "data-requirement", "data-ref", "data-located", "style"}
    assert span[1]["data-ref"] == "m<span class=al-ctl title=invisible character>U+202E</span>1"


def test_palette_cycles_and_keeps_mark_and_tint_apart() -> None:
    assert colour(0) == PALETTE[0][0] and tint(0) == PALETTE[0][1]
    assert colour(len(PALETTE)) == colour(0) and tint(len(PALETTE) + 3) == tint(3)
    assert len({colour(i) for i in range(len(PALETTE))}) == len(PALETTE)


@pytest.mark.parametrize("verdict", [*VERDICT_COLOURS, "unknown"])
def test_verdict_badge_carries_verdict_and_action(verdict: str) -> None:
    html = verdict_html(verdict, "answer_partially", source="live model: ollama m", note=None)
    assert f'data-verdict="{verdict}"' in html and 'data-action="answer_partially"' in html
    assert verdict.upper() in html and "action: answer partially" in html
    strong, soft = VERDICT_COLOURS.get(verdict, ("#57606a", "var(--al-soft-insufficient)"))
    assert f"background-color:{soft};border-color:{strong}" in html and 'data-stale="false"' in html


@pytest.mark.parametrize(
    "label, source",
    [
        pytest.param("recorded response (hand-written)", "recorded", id="recorded"),
        pytest.param("live model: ollama qwen", "live", id="live"),
        pytest.param("no model call (no citable evidence)", "live", id="no_call"),
    ],
)
def test_source_label_marks_recordings(label: str, source: str) -> None:
    assert f'data-source="{source}"' in source_label_html(label)
    assert ("al-recorded" in source_label_html(label)) == (source == "recorded")


def test_context_of_a_real_assessment_marks_accepted_and_discarded_citations() -> None:
    assessment = recorded("prme_reader_citations")
    context = sample("prme_reader_citations").load().exact_context
    requirements = assessment.requirements
    html = context_html(context, highlight(context, [r.citations for r in requirements],
                                           uncounted=uncounted(requirements)))
    marks = re.findall(r'<mark [^>]*data-citation="(\w+)" data-requirement="(\d+)" data-ref="([^"]+)"', html)
    assert sorted(marks) == [("accepted", "0", "m1"), ("accepted", "1", "m4"), ("uncounted", "2", "m2")], \
        "the repeated m4 adds no mark; the downgraded requirement's valid m2 is not drawn as accepted"
    assert html.count('class="al-line"') == context.count("\n") + 1


@pytest.mark.parametrize(
    "cited_only, gaps", [pytest.param(False, [], id="all_lines"), pytest.param(True, ["1", "2"], id="cited_only")]
)
def test_folding_names_how_many_lines_it_hides(cited_only: bool, gaps: list[str]) -> None:
    context = "a\nb\nc\nd"
    decision = CitationDecision(token="b", normalized="b", decision=Decision.ACCEPTED, ref="b",
                                span=Span(start=2, end=3), line=Span(start=2, end=3))
    html = context_html(context, highlight(context, [[decision]]), cited_only=cited_only)
    assert re.findall(r'data-hidden="(\d+)"', html) == gaps
    if cited_only:
        assert "⋯ 1 line without citations ⋯" in html and "⋯ 2 lines without citations ⋯" in html


def test_requirements_table_of_a_real_assessment() -> None:
    assessment = recorded("compact_citation_errors")
    html = requirements_html(requirement_rows(assessment.requirements))
    assert re.findall(r'data-requirement-row="(\d+)"', html) == [str(i) for i in range(len(assessment.requirements))]
    statuses = re.findall(r'data-status="(\w+)" style="background-color:([^"]+)"', html)
    assert statuses == [(r.status.value, STATUS_SOLID[r.status.value]) for r in assessment.requirements]
    changed = [r for r in assessment.requirements if r.claimed_status and r.claimed_status != r.status]
    assert len(re.findall(r"data-claimed=", html)) == len(changed) > 0
    discarded = sum(1 for r in assessment.requirements for c in r.citations if c.decision == Decision.DISCARDED)
    assert html.count('data-citation="discarded"') == discarded > 0


def test_hashes_of_a_real_assessment_each_carry_their_field_and_a_copy_button() -> None:
    assessment = recorded("conflicting_deploy_freeze")
    values = {name: getattr(assessment, name) for name in HASH_FIELDS}
    html = hashes_html(values)
    for name, value in values.items():
        if value is None:
            assert f'<code data-hash="{name}" class="al-muted">null</code>' in html
        else:
            assert f'<code data-hash="{name}">{value}</code>' in html
    copies = re.findall(r'data-copy="([^"]+)"', html)
    assert copies == [v for v in values.values() if v is not None]
    assert "<script>" in html and "<script>" not in hashes_html(values, copy_buttons=False)


def test_only_sha256_values_get_a_copy_button() -> None:
    html = hashes_html({"evaluation_id": "a" * 64, "short": "abc", "upper": "A" * 64})
    assert re.findall(r'data-copy="([^"]+)"', html) == ["a" * 64]


def test_facts_table_keys_values_and_data_attributes() -> None:
    html = facts_html([("provider", "ollama"), ("model_called", True), ("latency", "1,234 ms, 1 attempt(s)")])
    assert re.findall(r'data-fact="(\w+)">([^<]+)<', html) == [
        ("provider", "ollama"), ("model_called", "True"), ("latency", "1,234 ms, 1 attempt(s)")]


@pytest.mark.parametrize("kind", ["error", "warning", "info", "ok"])
def test_notice_parts(kind: str) -> None:
    html = notice_html(kind, "Title", "detail", "do this", code="raw")
    assert f'data-notice="{kind}" role="alert"' in html
    assert '<div class="al-remedy"><strong>What to do:</strong> do this</div>' in html
    assert "<pre><code>raw</code></pre>" in html
    bare = notice_html(kind, "Title")
    assert 'class="al-detail"' not in bare and 'class="al-remedy"' not in bare and "<pre>" not in bare


@pytest.mark.parametrize(
    "accepted, expected",
    [pytest.param(True, ' class="al-ok" style="background-color:var(--al-soft-answerable);'
                  'box-shadow:inset 3px 0 0 var(--al-edge-answerable)"', id="accepted"),
     pytest.param(False, ' class="al-no" style="background-color:var(--al-soft-conflicting);'
                  'box-shadow:inset 3px 0 0 var(--al-edge-conflicting)"', id="discarded"),
     pytest.param(None, "", id="neither")],
)
def test_outcome_cell_follows_the_theme_and_keeps_its_words(accepted: bool | None, expected: str) -> None:
    assert outcome_cell("x", accepted, 'data-format="compact"') == f'<td data-format="compact"{expected}>x</td>'


def test_table_and_cells() -> None:
    html = table_html(["a", "b"], [cell(1) + cell("<2>", 'data-x="y"')], css="al-table al-extra")
    assert '<table class="al-table al-extra"><thead><tr><th>a</th><th>b</th></tr></thead>' in html
    assert '<tbody><tr><td>1</td><td data-x="y">&lt;2&gt;</td></tr></tbody>' in html


@pytest.mark.parametrize(
    "count, word, text",
    [pytest.param(1, "line", "1 line", id="one"), pytest.param(2, "line", "2 lines", id="two"),
     pytest.param(1024, "line", "1,024 lines", id="many"), pytest.param(0, "run", "0 runs", id="none")],
)
def test_plural(count: int, word: str, text: str) -> None:
    from answerlens.html.markup import plural

    assert plural(count, word) == text


def test_remedies_show_commands_as_code_never_as_backticks() -> None:
    html = notice_html("error", "No server answers", "model 'm' is missing — pull it with `ollama pull m`",
                       remedy="start it with `ollama serve` <now>")
    assert "<code>ollama serve</code>" in html and "<code>ollama pull m</code>" in html
    assert "`" not in html and "&lt;now&gt;" in html


def test_one_notice_type_draws_itself_and_refuses_an_unknown_kind() -> None:
    notice = Notice(NoticeKind.WARNING, "title <b>", "detail `cmd`", "remedy")
    assert notice.html() == notice_html("warning", "title <b>", "detail `cmd`", "remedy")
    assert 'data-notice="warning"' in notice.html() and "<code>cmd</code>" in notice.html()
    with pytest.raises(ValueError):
        notice_html("fatal", "no such kind")

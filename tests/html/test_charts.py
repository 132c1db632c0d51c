"""The Trials page's charts as static SVG: well-formed, one mark per count or sample, the palette's colours, labels
escaped with text-only badges (an HTML tag inside ``<svg>`` would end the drawing), tooltips as ``<title>``."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections import Counter

import pytest

from answerlens.html import charts, palette
from answerlens.html.escape import DEFAULT_IGNORABLE
from answerlens.html.trial_rows import ACTIONS, QuestionRow, outcome_groups, questions, samples
from tests.report.builders import TRIALS, trial

HOSTILE_ID = '<img src=x onerror="alert(1)">&q'


def parsed(svg: str) -> ElementTree.Element:
    return ElementTree.fromstring(svg)


def rects(svg: str, **attributes: str) -> list[ElementTree.Element]:
    return [rect for rect in parsed(svg).iter("rect")
            if rect.find("title") is not None and all(rect.get(k) == v for k, v in attributes.items())]


def test_every_outcome_has_one_colour_of_its_own() -> None:
    assert set(palette.OUTCOMES) == set(ACTIONS)
    assert len(set(palette.OUTCOMES.values())) == len(ACTIONS)


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in TRIALS])
def test_each_chart_draws_every_count(name: str) -> None:
    result = trial(name)
    refs = samples(result)
    rows = questions(result, refs)
    groups = outcome_groups(refs)
    bars = charts.actions_per_label(groups)
    for outcome, colour in palette.OUTCOMES.items():
        drawn = rects(bars, fill=colour)
        assert len(drawn) == sum(1 for counts in groups.values() if counts[outcome])
    grid = charts.outcome_grid(rows)
    assert len(rects(grid)) == len(refs), "one square per sample, errors included"
    assert len(rects(grid, **{"data-outcome": "error"})) == result.summary.error_samples
    errors = charts.citation_errors(rows)
    assert len(rects(errors)) == sum(1 for row in rows if row.citation_errors)
    agreement = charts.requirement_agreement(rows)
    assert len(rects(agreement)) == sum(
        bool(row.agreeing) + bool(row.matched - row.agreeing) + bool(row.requirements - row.matched) for row in rows)


def test_bar_heights_follow_the_counts() -> None:
    svg = charts.actions_per_label({"unanswerable": Counter({"abstain": 4, "answer": 1}), "answerable": Counter()})
    heights = {rect.get("data-outcome"): float(rect.get("height") or 0) for rect in rects(svg)}
    assert heights["abstain"] == pytest.approx(4 * heights["answer"], rel=0.01)
    assert [text.text for text in parsed(svg).iter("text") if text.text in ("unanswerable", "answerable")] == [
        "unanswerable", "answerable"]


def test_question_ids_are_escaped_and_kept_whole_in_the_tooltip() -> None:
    row = QuestionRow(HOSTILE_ID, "answerable", None, ("answer", None, "error"), 2, 3, 2, 1)
    for svg in (charts.outcome_grid([row]), charts.citation_errors([row]), charts.requirement_agreement([row])):
        assert "<img" not in svg
        tree = parsed(svg)
        assert HOSTILE_ID in [title.text for title in tree.iter("title")]
        assert all(not name.startswith("on") for element in tree.iter() for name in element.attrib)


def test_a_missing_repeat_has_no_square() -> None:
    row = QuestionRow("q", "answerable", None, ("answer", None, "abstain"), 0, 0, 0, 0)
    assert [rect.get("data-outcome") for rect in rects(charts.outcome_grid([row]))] == ["answer", "abstain"]


@pytest.mark.parametrize(("value", "top"), [pytest.param(0, 1, id="zero"), pytest.param(7, 10, id="seven"),
                                            pytest.param(12, 20, id="twelve"), pytest.param(50, 50, id="fifty"),
                                            pytest.param(51, 100, id="fifty_one")])
def test_the_axis_ends_on_a_round_number(value: float, top: float) -> None:
    assert charts._nice_max(value) == top


def test_charts_follow_the_page_theme_and_stay_small() -> None:
    result = trial("upstream")
    refs = samples(result)
    svg = charts.outcome_grid(questions(result, refs))
    assert 'fill="currentColor"' in svg and "#000" not in svg
    assert len(svg.encode()) < 40_000, "120 samples in a few tens of kB"


SVG_ELEMENTS = {"svg", "rect", "text", "title", "line"}
HOSTILE_LABELS = [
    pytest.param("q\u034f1", id="combining_grapheme_joiner"),
    pytest.param("appr\u200bo\ufe0fved\U000e0100", id="zero_width_and_variation_selectors"),
    pytest.param("\u115f\u1160\u3164\uffa0", id="hangul_fillers"),
    pytest.param("\u17b4q\u17b5", id="khmer_inherent_vowels"),
    pytest.param("a\u202egnp.exe\u2066x\u2069", id="bidi"),
    pytest.param("<script>alert(1)</script>", id="script"),
    pytest.param('"\' onload="alert(2)', id="quotes"),
    pytest.param("</text></svg><b>forged</b>", id="closing_tags"),
]


def every_chart(label: str) -> list[str]:
    rows = [QuestionRow(label, "answerable", None, ("answer", "error"), 2, 3, 2, 1),
            QuestionRow("after", "answerable", None, ("abstain", "answer"), 1, 2, 1, 1)]
    return [charts.actions_per_label({label: Counter({"answer": 2}), "after": Counter({"abstain": 1})}),
            charts.outcome_grid(rows), charts.citation_errors(rows), charts.requirement_agreement(rows)]


@pytest.mark.parametrize("label", HOSTILE_LABELS)
def test_hostile_labels_stay_text_inside_every_chart(label: str) -> None:
    for svg in every_chart(label):
        tree = parsed(svg)
        assert {element.tag for element in tree.iter()} <= SVG_ELEMENTS, "an HTML tag would end the SVG"
        assert all(not name.startswith("on") for element in tree.iter() for name in element.attrib)
        assert "<span" not in svg and "<script" not in svg and "<b>" not in svg
        assert any("after" in "".join(text.itertext()) for text in tree.iter("text")), "later rows keep their labels"
        shown = "".join(tree.itertext())
        hidden = [char for char in label if any(low <= ord(char) <= high for low, high in DEFAULT_IGNORABLE)]
        for char in hidden:
            assert char not in shown and f"⟨U+{ord(char):04X}⟩" in shown


def test_the_rows_after_a_hostile_label_keep_their_bars() -> None:
    (_, grid, errors, agreement) = every_chart("q\u200b1")
    assert len(rects(grid)) == 4 and len(rects(errors)) == 2 and len(rects(agreement)) == 5

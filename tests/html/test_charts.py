"""The Trials page's charts as static SVG: well-formed, one mark per count or sample, the page's colours, the
question ids escaped, tooltips as ``<title>``."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections import Counter

import pytest

from answerlens.report import charts
from answerlens.ui.trials import charts as page_charts
from answerlens.ui.trials.viewmodel import QuestionRow, outcome_groups, questions, samples
from tests.report.builders import TRIALS, trial

HOSTILE_ID = '<img src=x onerror="alert(1)">&q'


def parsed(svg: str) -> ElementTree.Element:
    return ElementTree.fromstring(svg)


def rects(svg: str, **attributes: str) -> list[ElementTree.Element]:
    return [rect for rect in parsed(svg).iter("rect")
            if rect.find("title") is not None and all(rect.get(k) == v for k, v in attributes.items())]


def test_the_colours_and_names_are_the_trials_pages() -> None:
    assert charts.OUTCOME_COLOURS == page_charts.OUTCOME_COLOURS
    assert charts.OUTCOME_NAMES == page_charts.OUTCOME_NAMES


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in TRIALS])
def test_each_chart_draws_every_count(name: str) -> None:
    result = trial(name)
    refs = samples(result)
    rows = questions(result, refs)
    groups = outcome_groups(refs)
    bars = charts.actions_per_label(groups)
    for outcome, colour in charts.OUTCOME_COLOURS.items():
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
